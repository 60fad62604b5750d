// Version negotiation as a client meets it on the wire: the highest version
// Accord speaks that is not newer than the one asked for; v2 never for a
// client that asked for 1; 0 or a non-number fails with -32022 and says what
// was asked and what is supported, and the connection stays usable.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyMessage } from '@agentclientprotocol/sdk/unstable';
import { createAccordAgent } from '../../../agent/acp/app';
import { serveVersions } from '../../../agent/acp/versions';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { builtinTools } from '../../../agent/tools/index';
import { streamPair } from './v2Harness';

/** A raw JSON-RPC client: one request at a time, the answer to it. */
function rawClient() {
  const app = createAccordAgent({ env: { PATH: process.env.PATH, ACCORD_LOCAL_SERVERS: '' }, tools: builtinTools(), commands: new ProcessRunner() });
  const pair = streamPair();
  const served = serveVersions(app, pair.agent);
  const writer = pair.client.writable.getWriter();
  const reader = pair.client.readable.getReader();
  let id = 0;
  return {
    async request(method: string, params: unknown): Promise<Record<string, any>> {
      id += 1;
      await writer.write({ jsonrpc: '2.0', id, method, params } as AnyMessage);
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the agent closed the connection');
        if ((value as { id?: unknown }).id === id) return value as Record<string, any>;
      }
    },
    /** Sends without waiting for an answer (a notification, or a request answered later). */
    async send(message: Record<string, unknown>) {
      await writer.write({ jsonrpc: '2.0', ...message } as AnyMessage);
    },
    async close() {
      await writer.close();
      await served.closed;
    },
  };
}

const v1Init = (protocolVersion: unknown) => ({ protocolVersion, clientCapabilities: {}, clientInfo: { name: 'raw', version: '1' } });
const v2Init = (protocolVersion: unknown) => ({ protocolVersion, info: { name: 'raw', version: '1' }, capabilities: {} });

describe('protocol version negotiation', () => {
  for (const [asked, params, answered] of [
    [1, v1Init(1), 1],
    [2, v2Init(2), 2],
    [3, v2Init(3), 2],
    [70, v2Init(70), 2],
  ] as const) {
    test(`asked for ${asked}, Accord answers ${answered}`, async () => {
      const client = rawClient();
      try {
        const response = await client.request('initialize', params);
        assert.equal(response.error, undefined, JSON.stringify(response.error));
        assert.equal(response.result.protocolVersion, answered);
        if (answered === 1) {
          assert.ok(response.result.agentCapabilities, 'a v1 answer has v1 fields');
          assert.equal(response.result.capabilities, undefined);
        } else {
          assert.equal(response.result.info.name, 'accord', 'a v2 answer has v2 fields');
          assert.ok(response.result.capabilities.session.prompt);
        }
      } finally {
        await client.close();
      }
    });
  }

  test('a v1-shaped request for 1 is never answered with v2, even from a client that also knows v2 fields', async () => {
    const client = rawClient();
    try {
      const response = await client.request('initialize', { ...v1Init(1), info: { name: 'raw', version: '1' }, capabilities: {} });
      assert.equal(response.result.protocolVersion, 1);
    } finally {
      await client.close();
    }
  });

  for (const bad of [0, '2', null, 1.5, -1, { major: 2 }, 2 ** 20]) {
    test(`asked for ${JSON.stringify(bad)}: -32022 with {requested, supported}, and the connection stays open`, async () => {
      const client = rawClient();
      try {
        const response = await client.request('initialize', v2Init(bad));
        assert.equal(response.error?.code, -32022, JSON.stringify(response));
        assert.deepEqual(response.error.data, { requested: bad, supported: [1, 2] });
        const retry = await client.request('initialize', v2Init(2));
        assert.equal(retry.result.protocolVersion, 2, 'a later initialize with a real version works');
      } finally {
        await client.close();
      }
    });
  }

  // A connection that opens with a v1 initialize goes to the v1 app directly (acp/versions.ts); these
  // keep what the router did for every other opening, and what the app does after a failed initialize.
  test('a notification or another request before initialize: ignored, or -32600; then a v1 or v2 initialize works', async () => {
    for (const [params, answered] of [[v1Init(1), 1], [v2Init(2), 2]] as const) {
      const client = rawClient();
      try {
        await client.send({ method: 'session/cancel', params: { sessionId: 'nope' } });
        const early = await client.request('session/new', { cwd: '/', mcpServers: [] });
        assert.equal(early.error?.code, -32600, JSON.stringify(early));
        const response = await client.request('initialize', params);
        assert.equal(response.result?.protocolVersion, answered, JSON.stringify(response));
      } finally {
        await client.close();
      }
    }
  });

  test('a v1 initialize with malformed fields is answered alike whether it opens the connection (the app directly) or follows a notification (the router)', async () => {
    const odd = { ...v1Init(1), clientCapabilities: 'all of them', clientInfo: { name: 5 }, _meta: 7, extra: [1] };
    const answers = [];
    for (const notificationFirst of [false, true]) {
      const client = rawClient();
      try {
        if (notificationFirst) await client.send({ method: 'session/cancel', params: { sessionId: 'nope' } });
        const { id: _id, ...answer } = await client.request('initialize', odd);
        answers.push(answer);
        const session = await client.request('session/new', { cwd: '/nonexistent-accord-dir', mcpServers: [] });
        assert.notEqual(session.error?.code, -32600, 'the connection counts as initialized');
      } finally {
        await client.close();
      }
    }
    assert.equal(answers[0]!.result?.protocolVersion, 1, JSON.stringify(answers[0]));
    assert.deepEqual(answers[0], answers[1]);
  });

  test('a client that leaves before initialize: the connection closes', async () => {
    const client = rawClient();
    await client.close();
  });

  test('asked with no protocolVersion at all: -32022 naming null', async () => {
    const client = rawClient();
    try {
      const response = await client.request('initialize', { info: { name: 'raw', version: '1' } });
      assert.equal(response.error?.code, -32022);
      assert.deepEqual(response.error.data, { requested: null, supported: [1, 2] });
    } finally {
      await client.close();
    }
  });
});
