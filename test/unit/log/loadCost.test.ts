// The session's running cost survives a reload: an agent that loads a session
// (after a crash and restart, or in another window) keeps adding to the cost
// the client last saw, instead of starting again from zero.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, methods, type AgentApp, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { builtinTools } from '../../../agent/tools/index';
import { startFakeModelServer, type FakeModelServer } from '../../fakeModelServer/index';
import { isolatedEnv, tempDir } from '../agent/harness';
import { tempDataDir } from './fixtures';

let server: FakeModelServer;
const config = tempDir('accord-load-cost-config-');
before(async () => {
  server = await startFakeModelServer();
});
after(async () => {
  await server.close();
  config.remove();
});

function connect(agentApp: AgentApp) {
  const updates: SessionNotification[] = [];
  const app = client({ name: 'load-cost-test' }).onNotification(methods.client.session.update, ({ params }) => void updates.push(params));
  return { connection: app.connect(agentApp), updates };
}

const costs = (updates: SessionNotification[]) =>
  updates.map((n) => n.update as { sessionUpdate: string; cost?: { amount: number } }).filter((u) => u.sessionUpdate === 'usage_update').map((u) => u.cost?.amount);

test('after session/load, the next usage_update adds to the session cost recorded before, not to zero', { timeout: 120_000 }, async () => {
  const root = tempDir('accord-load-cost-');
  const { dir, cleanup } = await tempDataDir();
  // A priced model, so every usage_update carries a cost.
  const env = isolatedEnv({ ACCORD_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'test-key', ACCORD_ANTHROPIC_BASE_URL: server.baseUrl }, config.path);
  const agentFor = () => createLoggedAgent({ env, tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0 }, new SessionStore(dir)).app;
  try {
    const first = connect(agentFor());
    await first.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await first.connection.agent.request(methods.agent.session.new, { cwd: root.path, mcpServers: [] });
    server.script({ type: 'stream', parts: [{ text: 'First.' }], usage: { input: 60_000, output: 200 } });
    await first.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'one' }] });
    const before = costs(first.updates).at(-1);
    assert.ok(before !== undefined && before > 0, `the first turn was priced: ${before}`);
    await first.connection.agent.request(methods.agent.session.close, { sessionId });
    first.connection.close();

    const second = connect(agentFor());
    await second.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: root.path, mcpServers: [] });
    assert.equal(costs(second.updates).at(-1), before, 'the replay shows the cost seen before');
    server.script({ type: 'stream', parts: [{ text: 'Second.' }], usage: { input: 100, output: 10 } });
    await second.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'two' }] });
    const after = costs(second.updates).at(-1);
    assert.ok(after !== undefined && after > before, `the session cost went from ${before} to ${after} after one more priced request`);
    second.connection.close();
  } finally {
    root.remove();
    await cleanup();
  }
});
