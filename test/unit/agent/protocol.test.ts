// The protocol surface: initialize, session/new validation, error codes,
// config options, available commands.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { startFakeModelServer, type FakeModelServer } from '../../fakeModelServer/index';
import { inMemoryAgent, isolatedEnv, tempDir, updatesOf, type Harness } from './harness';

async function rpcError(promise: Promise<unknown>): Promise<{ code: number; message: string; data?: any }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; message: string; data?: any };
  }
  assert.fail('expected an error response');
}

describe('protocol', () => {
  let server: FakeModelServer;
  let agent: Harness;
  const root = tempDir('accord-protocol-');
  before(async () => {
    server = await startFakeModelServer();
    agent = inMemoryAgent({ env: isolatedEnv({ ACCORD_MODEL: `openai-compatible:${server.baseUrl}#fake`, ANTHROPIC_API_KEY: 'k' }, root.path) });
  });
  after(async () => {
    await agent.close();
    await server.close();
    root.remove();
  });

  test('initialize answers version 1 with honest capabilities and agent info', async () => {
    const response = await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(response.protocolVersion, 1);
    assert.deepEqual(response.authMethods, []);
    assert.equal(response.agentInfo?.name, 'accord');
    assert.equal(response.agentInfo?.title, 'Accord');
    assert.equal(response.agentCapabilities?.loadSession, false);
    assert.equal(response.agentCapabilities?.promptCapabilities?.image, true);
    assert.equal(response.agentCapabilities?.promptCapabilities?.embeddedContext, true);
  });

  test('session/new refuses a relative or missing cwd with -32602', async () => {
    for (const cwd of ['relative/dir', join(root.path, 'does-not-exist')]) {
      const error = await rpcError(agent.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] }));
      assert.equal(error.code, -32602);
      assert.match(error.message, /absolute path to an existing directory/);
    }
  });

  test('unknown session ids get -32002 with data.sessionId', async () => {
    const error = await rpcError(agent.connection.agent.request(methods.agent.session.prompt, { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] }));
    assert.equal(error.code, -32002);
    assert.equal(error.data?.sessionId, 'nope');
  });

  test('unknown methods get -32601', async () => {
    const error = await rpcError(agent.connection.agent.request('_accord/no_such_method', {}));
    assert.equal(error.code, -32601);
  });

  test('session/new offers model and reasoning_effort; a change answers the full set and is mirrored', async () => {
    const { sessionId, configOptions } = await agent.connection.agent.request(methods.agent.session.new, { cwd: root.path, mcpServers: [] });
    const model = configOptions!.find((o) => o.id === 'model')!;
    assert.equal(model.category, 'model');
    assert.equal((model as any).currentValue, `openai-compatible:${server.baseUrl}#fake`);
    // Grouped by provider (ACP select groups): the keyed provider's models under "Anthropic".
    const anthropic = (model as any).options.find((g: any) => g.group === 'anthropic');
    assert.equal(anthropic?.name, 'Anthropic');
    assert.ok(anthropic.options.some((o: any) => o.value === 'anthropic:claude-sonnet-4-5'), 'a keyed provider is offered');
    assert.ok((model as any).options.some((g: any) => g.group.startsWith('local:') && g.options.some((o: any) => o.value.endsWith('#fake'))), 'the local server has its own group');
    const effort = configOptions!.find((o) => o.id === 'reasoning_effort')!;
    assert.equal(effort.category, 'thought_level');

    await agent.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update');
    assert.deepEqual(updatesOf(agent, sessionId, 'available_commands_update')[0].availableCommands.map((c: any) => c.name), ['compact'], 'every command the agent handles');

    const changed = await agent.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: 'reasoning_effort', value: 'high' });
    assert.deepEqual(changed.configOptions.map((o) => o.id), ['model', 'reasoning_effort', 'mode']);
    assert.equal((changed.configOptions.find((o) => o.id === 'reasoning_effort') as any).currentValue, 'high');
    const mirrored = updatesOf(agent, sessionId, 'config_option_update').at(-1);
    assert.deepEqual(mirrored.configOptions, changed.configOptions);

    const switched = await agent.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'anthropic:claude-sonnet-4-5' });
    assert.equal((switched.configOptions.find((o) => o.id === 'model') as any).currentValue, 'anthropic:claude-sonnet-4-5');

    const bad = await rpcError(agent.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: 'reasoning_effort', value: 'extreme' }));
    assert.equal(bad.code, -32602);
  });

  test('a second prompt while a turn runs waits for it, not interleaved; a cancel ends both', async () => {
    const sessionId = await agent.newSession(root.path);
    server.script({ type: 'stream', parts: [{ text: 'slow' }, { text: ' rest' }], stallAfterParts: 1 });
    const requests = server.requests.length;
    const first = agent.prompt(sessionId, 'one');
    await agent.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk');
    const second = agent.prompt(sessionId, 'two');
    await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    assert.equal(await second, 'cancelled');
    assert.equal(server.requests.length, requests + 1, 'the queued prompt never reached the model');
    assert.equal(await first, 'cancelled');
  });
});
