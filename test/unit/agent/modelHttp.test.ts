// The agent's model requests on its own HTTP client (agent/models/http/),
// end to end: no undici loaded by a turn (from source and in the bundle), one
// kept-alive connection across turns, cancel and broken or hostile servers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { childAgent, ensureAgentBundle, fakeModelFor, inMemoryAgent, isolatedEnv, messageText } from './harness';
import { reply, startFakeModelServer } from '../../fakeModelServer/index';
import { idleModelConnections } from '../../../agent/models/http/modelFetch';
import { waitFor } from '../../support/waitFor';

describe('model requests without undici', () => {
  const model = fakeModelFor('accord-model-http-');
  ensureAgentBundle();

  test('from source: two turns in each provider format stream in full and load no undici', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/support/providerUtilsHeaders.mjs', join(import.meta.dirname, 'child', 'modelTurns.ts')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const { texts, undici } = JSON.parse(run.stdout) as { texts: string[]; undici: string[] };
    assert.deepEqual(texts, ['one two three', 'one two three', 'one two three']);
    assert.deepEqual(undici, []);
  });

  test('the bundle (dist/agent.js acp): a warmed session and a turn load no undici', async () => {
    // A preload that reports, as the agent exits, which modules it loaded.
    const preload = join(model.configDir, 'report-undici.cjs');
    const report = join(model.configDir, 'undici.json');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici')))));\n`);
    const agent = childAgent({ ...model.env(), NODE_OPTIONS: `--require ${preload}` });
    try {
      const sessionId = await agent.newSession(model.configDir);
      model.server.script(reply.text('from the bundle'));
      assert.equal(await agent.prompt(sessionId, 'hi'), 'end_turn');
      assert.equal(messageText(agent, sessionId), 'from the bundle');
    } finally {
      await agent.close();
    }
    assert.deepEqual(JSON.parse(readFileSync(report, 'utf8')), []);
  });

  test('keep-alive: two turns go out on one TCP connection', async () => {
    const agent = inMemoryAgent({ env: { ...model.env(), ACCORD_WARM_MODEL: 'off' } });
    try {
      const sessionId = await agent.newSession(model.configDir);
      const before = model.server.requests.length;
      model.server.script(reply.text('first'), reply.text('second'));
      assert.equal(await agent.prompt(sessionId, 'one'), 'end_turn');
      assert.equal(await agent.prompt(sessionId, 'two'), 'end_turn');
      const [first, second] = model.server.requests.slice(before);
      assert.equal(first!.connection, second!.connection);
    } finally {
      await agent.close();
    }
  });

  test("the warm-up at session/new opens the connection the first prompt's request goes out on", async () => {
    // A server of its own: the connection count is this test's alone.
    const server = await startFakeModelServer();
    const agent = inMemoryAgent({ env: isolatedEnv({ ACCORD_MODEL: `openai-compatible:${server.baseUrl}#fake` }, model.configDir) });
    try {
      const idleBefore = idleModelConnections();
      const sessionId = await agent.newSession(model.configDir);
      await waitFor('the warm-up connection to be open and idle', () => server.connections() === 1 && idleModelConnections() > idleBefore);
      server.script(reply.text('warm'));
      assert.equal(await agent.prompt(sessionId, 'hi'), 'end_turn');
      assert.equal(server.requests.at(-1)!.connection, 1, 'the prompt went out on the warmed connection');
      assert.equal(server.connections(), 1);
    } finally {
      await agent.close();
      await server.close();
    }
  });

  test('cancel while the body never ends: the turn ends cancelled and the connection is released', async () => {
    const agent = inMemoryAgent({ env: model.env() });
    try {
      const sessionId = await agent.newSession(model.configDir);
      model.server.script({ type: 'stream', parts: [{ text: 'endless ' }, { text: 'never' }], stallAfterParts: 1 });
      const prompt = agent.prompt(sessionId, 'talk');
      await agent.waitForUpdate((n) => n.update.sessionUpdate === 'agent_message_chunk');
      assert.equal(model.server.openStreams(), 1);
      await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
      await waitFor('the stalled stream to be closed by the agent', () => model.server.openStreams() === 0);
    } finally {
      await agent.close();
    }
  });

  test('a server that closes mid-body: a clear error, and what streamed before stays in the history', async () => {
    const agent = inMemoryAgent({ env: model.env() });
    try {
      const sessionId = await agent.newSession(model.configDir);
      model.server.script({ type: 'stream', parts: [{ text: 'half an answer' }, { text: ' never' }], closeAfterParts: 1 });
      assert.equal(await agent.prompt(sessionId, 'talk'), 'end_turn');
      const text = messageText(agent, sessionId);
      assert.match(text, /^half an answer/);
      assert.doesNotMatch(text, /never/);
      assert.match(text, /closed the connection in the middle of its answer/);
      assert.doesNotMatch(text, /Could not reach/);
      model.server.script(reply.text('again'));
      assert.equal(await agent.prompt(sessionId, 'continue'), 'end_turn');
      assert.match(JSON.stringify(model.server.requests.at(-1)!.body.messages), /half an answer/);
    } finally {
      await agent.close();
    }
  });

  test('an error body far past the bound: the turn says HTTP 500, the message stays short', async () => {
    const agent = inMemoryAgent({ env: model.env() });
    try {
      const sessionId = await agent.newSession(model.configDir);
      model.server.script(reply.error(500, { error: { message: 'x'.repeat(2 * 1024 * 1024) } }));
      assert.equal(await agent.prompt(sessionId, 'hi'), 'end_turn');
      const text = messageText(agent, sessionId);
      assert.match(text, /HTTP 500/);
      assert.ok(text.length < 70 * 1024, `${text.length} characters`);
    } finally {
      await agent.close();
    }
  });

  test('a slow server: paced chunks all arrive, in order', async () => {
    const agent = inMemoryAgent({ env: model.env() });
    try {
      const sessionId = await agent.newSession(model.configDir);
      model.server.script({ type: 'stream', parts: ['a', 'b', 'c', 'd'].map((text) => ({ text })), delayMs: 50 });
      assert.equal(await agent.prompt(sessionId, 'slowly'), 'end_turn');
      assert.equal(messageText(agent, sessionId), 'abcd');
    } finally {
      await agent.close();
    }
  });

  test('a redirect to another origin is not followed: the turn reports it, the other origin gets nothing', async () => {
    // A front on its own port (another origin) that sends every request on to the fake model server.
    const { createServer } = await import('node:http');
    const front = createServer((_req, res) => res.writeHead(307, { location: `${model.server.baseUrl}/chat/completions` }).end());
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const port = (front.address() as { port: number }).port;
    const agent = inMemoryAgent({ env: isolatedEnv({ ACCORD_MODEL: `openai-compatible:http://127.0.0.1:${port}/v1#fake` }, model.configDir) });
    try {
      const sessionId = await agent.newSession(model.configDir);
      const before = model.server.requests.length;
      assert.equal(await agent.prompt(sessionId, 'hi'), 'end_turn');
      assert.equal(model.server.requests.length, before, 'nothing was sent to the other origin');
      assert.match(messageText(agent, sessionId), /307/);
    } finally {
      await agent.close();
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
  });
});
