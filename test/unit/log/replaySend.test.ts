// session/load sends a long log's updates without waiting for each write
// (agent/acp/replaySend.ts sendReplayed) through one shared writer
// (agent/acp/sharedWriter.ts): the client still gets every update in log
// order with its offset, before the load's response; a client that hangs up
// mid-replay fails the load cleanly (no stray rejection) and leaves the log
// unlocked for the next load.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, methods, type AnyMessage, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { serveVersions } from '../../../agent/acp/versions';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { logOffsetOf, offsetCarried, SessionStore, type LogEvent } from '../../../agent/log';
import { builtinTools } from '../../../agent/tools/index';
import { streamPair } from '../agent/v2Harness';
import { isolatedEnv, tempDir } from '../agent/harness';
import { recordedTurn, tempDataDir } from './fixtures';

const ID = '00000000-0000-4000-8000-0000000a11ad';

/** A recorded session of `turns` turns, each with 40 streamed chunks (most written as compact records). */
async function longLog(dir: string, cwd: string, turns: number): Promise<void> {
  const log = await new SessionStore(dir).create({ id: ID, cwd, agentVersion: 'test', config: { model: 'anthropic:claude-sonnet-4-5' } });
  for (let n = 0; n < turns; n++) {
    const chunks = Array.from({ length: 40 }, (_, i): LogEvent => ({ type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `t${n} c${i} "é" ` } } }));
    for (const event of [...recordedTurn(n), ...chunks, { type: 'turn_end', stopReason: 'end_turn' } as LogEvent]) log.append(event);
  }
  await log.close();
}

function agentOn(dir: string, configDir: string) {
  const env = isolatedEnv({ ANTHROPIC_API_KEY: 'unused' }, configDir);
  const { app, closeLogs } = createLoggedAgent({ env, tools: builtinTools(), commands: new ProcessRunner() }, new SessionStore(dir));
  const pair = streamPair();
  const served = serveVersions(app, pair.agent);
  return { pair, served, closeLogs };
}

describe('session/load of a long log', () => {
  test('every update arrives in log order with its offset, before the response, across many replay windows', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await tempDataDir();
    const cwd = tempDir('accord-replay-send-');
    const config = tempDir('accord-replay-send-config-');
    const { pair, served, closeLogs } = agentOn(dir, config.path);
    try {
      await longLog(dir, cwd.path, 60);
      const expected = (await new SessionStore(dir).replay(ID)).updates;
      assert.ok(expected.length > 2048, `${expected.length} updates: several windows of 1024`);
      const received: SessionNotification[] = [];
      let answered = false;
      const app = client({ name: 'replay-send-test' }).onNotification(methods.client.session.update, ({ params }) => {
        assert.equal(answered, false, 'an update came after the load response');
        received.push(params);
      });
      const connection = app.connect(pair.client);
      await connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      await connection.agent.request(methods.agent.session.load, { sessionId: ID, cwd: cwd.path, mcpServers: [] });
      answered = true;
      const replayed = received.slice(0, expected.length);
      assert.deepStrictEqual(
        replayed.map((n) => offsetCarried(n.update)),
        expected.map((u) => u.offset),
      );
      assert.deepStrictEqual(
        replayed.map((n) => {
          const { _meta, ...rest } = n.update as typeof n.update & { _meta?: Record<string, unknown> };
          const { 'accord/logOffset': _offset, ...otherMeta } = _meta ?? {};
          return Object.keys(otherMeta).length > 0 ? { ...rest, _meta: otherMeta } : rest;
        }),
        expected.map((u) => u.update),
      );
      assert.ok(received.every((n) => n.sessionId === ID));
      assert.equal(logOffsetOf(received[0]!.update), undefined); // the client's copies are plain objects
      connection.close();
    } finally {
      pair.end();
      await served.closed;
      await closeLogs();
      await cleanup();
      cwd.remove();
      config.remove();
    }
  });

  test('attack: a client that hangs up mid-replay fails the load without a stray rejection; the log opens again', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await tempDataDir();
    const cwd = tempDir('accord-replay-send-');
    const config = tempDir('accord-replay-send-config-');
    const stray: unknown[] = [];
    const onStray = (reason: unknown) => stray.push(reason);
    process.on('unhandledRejection', onStray);
    const { pair, served, closeLogs } = agentOn(dir, config.path);
    try {
      await longLog(dir, cwd.path, 60);
      const writer = pair.client.writable.getWriter();
      const reader = pair.client.readable.getReader();
      await writer.write({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } } as AnyMessage);
      await reader.read();
      await writer.write({ jsonrpc: '2.0', id: 2, method: 'session/load', params: { sessionId: ID, cwd: cwd.path, mcpServers: [] } } as AnyMessage);
      let notifications = 0;
      while (notifications < 1500) {
        const { value } = await reader.read();
        if ((value as { method?: string }).method === 'session/update') notifications++;
      }
      // The client goes away: it reads nothing more and its input ends.
      await reader.cancel();
      pair.end();
      await served.closed;
      await closeLogs();
      // The load's failure closed its log: a new agent loads the session from it.
      const again = await new SessionStore(dir).open(ID);
      await again.close();
      await new Promise((resolve) => setTimeout(resolve, 50)); // let any stray rejection surface
      assert.deepStrictEqual(stray, []);
    } finally {
      process.off('unhandledRejection', onStray);
      await cleanup();
      cwd.remove();
      config.remove();
    }
  });
});
