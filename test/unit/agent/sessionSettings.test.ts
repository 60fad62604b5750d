// session/set_config_option and session/set_mode through a real ACP
// connection: the value as a plain string or as {"value": "<string>"},
// booleans refused by the option's name, the two modes announced both ways
// (current_mode_update and the category "mode" config option), and the mode
// kept in the session's log across a load.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { fakeModelFor, updatesOf } from './harness';
import { failure, gitProject, isolatedAgent } from './isolationFixtures';
import { initializedAgent } from './agentSessions';

const current = (options: readonly any[], id: string) => options.find((o) => o.id === id)?.currentValue;

describe('session settings', () => {
  const shared = initializedAgent('accord-settings-');
  const request = (method: string, params: unknown) => shared.agent.connection.agent.request(method as never, params as never) as Promise<any>;

  test('set_config_option takes the value as a plain string or as {"value": "<string>"}; both answer the full set and are mirrored', async () => {
    const { sessionId } = await shared.agent.connection.agent.request(methods.agent.session.new, { cwd: shared.model.configDir, mcpServers: [] });
    const plain = await request('session/set_config_option', { sessionId, configId: 'reasoning_effort', value: 'high' });
    assert.equal(current(plain.configOptions, 'reasoning_effort'), 'high');
    const wrapped = await request('session/set_config_option', { sessionId, configId: 'reasoning_effort', value: { value: 'low' } });
    assert.equal(current(wrapped.configOptions, 'reasoning_effort'), 'low');
    assert.deepEqual(wrapped.configOptions.map((o: any) => o.id), ['model', 'reasoning_effort', 'mode'], 'the full set');
    assert.deepEqual(updatesOf(shared.agent, sessionId, 'config_option_update').at(-1).configOptions, wrapped.configOptions);
  });

  test('a boolean is refused with -32602 and a message naming the option; so is any other shape; nothing changes', async () => {
    const { sessionId } = await shared.agent.connection.agent.request(methods.agent.session.new, { cwd: shared.model.configDir, mcpServers: [] });
    for (const params of [
      { sessionId, configId: 'reasoning_effort', type: 'boolean', value: true },
      { sessionId, configId: 'reasoning_effort', value: false },
      { sessionId, configId: 'reasoning_effort', value: { value: true } },
    ]) {
      const refused = await failure(request('session/set_config_option', params));
      assert.equal(refused.code, -32602, JSON.stringify(params));
      assert.match(refused.message, /"reasoning_effort"/);
      assert.match(refused.message, /off, low, medium, high/, 'it says what to send instead');
    }
    for (const value of [3, null, ['high'], { value: 3 }, { other: 'high' }]) {
      const refused = await failure(request('session/set_config_option', { sessionId, configId: 'mode', value }));
      assert.equal(refused.code, -32602, JSON.stringify(value));
      assert.match(refused.message, /"mode"/);
    }
    const unknown = await failure(request('session/set_config_option', { sessionId, configId: 'reasoning_effort', value: 'extreme' }));
    assert.match(unknown.message, /"extreme" is not a value of the option "reasoning_effort"/);
    const missing = await failure(request('session/set_config_option', { sessionId: 'nope', configId: 'mode', value: 'auto' }));
    assert.equal(missing.code, -32002);
    const { configOptions } = await request('session/set_config_option', { sessionId, configId: 'mode', value: 'ask' });
    assert.equal(current(configOptions, 'reasoning_effort'), 'medium', 'no refused change was applied');
  });

  test('session/new offers the modes ask (current) and auto, and the same as a category "mode" config option', async () => {
    const created = await shared.agent.connection.agent.request(methods.agent.session.new, { cwd: shared.model.configDir, mcpServers: [] });
    assert.equal(created.modes?.currentModeId, 'ask');
    assert.deepEqual(created.modes?.availableModes.map((m) => m.id), ['ask', 'auto']);
    const option = created.configOptions!.find((o) => o.id === 'mode') as any;
    assert.equal(option.category, 'mode');
    assert.equal(option.currentValue, 'ask');
    assert.deepEqual(option.options.map((o: any) => o.value), ['ask', 'auto']);
  });

  test('set_mode and the mode config option move the same mode and announce it both ways; an unknown mode is -32602 and changes nothing', async () => {
    const { sessionId } = await shared.agent.connection.agent.request(methods.agent.session.new, { cwd: shared.model.configDir, mcpServers: [] });
    assert.deepEqual(await shared.agent.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'auto' }), {});
    await shared.agent.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'current_mode_update');
    assert.deepEqual(updatesOf(shared.agent, sessionId, 'current_mode_update').map((u) => u.currentModeId), ['auto']);
    assert.equal(current(updatesOf(shared.agent, sessionId, 'config_option_update').at(-1).configOptions, 'mode'), 'auto');

    const back = await request('session/set_config_option', { sessionId, configId: 'mode', value: { value: 'ask' } });
    assert.equal(current(back.configOptions, 'mode'), 'ask');
    await shared.agent.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'current_mode_update' && n.update.currentModeId === 'ask');

    // Setting the mode it already has is no change: no second announcement.
    await request('session/set_config_option', { sessionId, configId: 'mode', value: 'ask' });
    const bad = await failure(shared.agent.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'yolo' }));
    assert.equal(bad.code, -32602);
    assert.match(bad.message, /Choose one of: ask, auto/);
    assert.deepEqual(updatesOf(shared.agent, sessionId, 'current_mode_update').map((u) => u.currentModeId), ['auto', 'ask']);
    assert.equal((await failure(shared.agent.connection.agent.request(methods.agent.session.setMode, { sessionId: 'nope', modeId: 'auto' }))).code, -32002);
  });
});

describe('the mode is kept in the session log', () => {
  const model = fakeModelFor('accord-settings-log-');

  test('a session set to auto is still in auto when loaded by a new connection', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const first = isolatedAgent(model.env(), data);
    let sessionId = '';
    try {
      sessionId = (await first.newSession(project)).sessionId;
      await first.harness.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'auto' });
    } finally {
      await first.close();
    }
    const second = isolatedAgent(model.env(), data);
    try {
      await second.harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const loaded = await second.harness.connection.agent.request(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
      assert.equal(loaded.modes?.currentModeId, 'auto');
      assert.equal(current(loaded.configOptions ?? [], 'mode'), 'auto');
    } finally {
      await second.close();
      remove();
    }
  });
});
