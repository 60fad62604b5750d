// The bundled agent (`node dist/agent.js acp`) with isolation, across
// processes: it runs commands under the real sandbox from the CJS bundle, and
// a session loaded in a fresh process continues in the same workspace; after
// a kill -9 during a running command the load closes that call as failed and
// the next prompt works.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { reply } from '../../fakeModelServer/index';
import { ensureAgentBundle, fakeModelFor, childAgent, isolatedEnv, preparedMeta, updatesOf, type ChildHarness } from './harness';
import { gitProject } from './isolationFixtures';

describe('isolated sessions in the bundled agent', () => {
  ensureAgentBundle();
  const model = fakeModelFor('accord-isoproc-config-');
  const start = (data: string, extraEnv: Record<string, string> = {}, args: string[] = []) =>
    childAgent(isolatedEnv({ ACCORD_MODEL: `openai-compatible:${model.server.baseUrl}#fake`, ACCORD_HOME: data, ...extraEnv }, model.configDir), args);
  const load = async (agent: ChildHarness, sessionId: string, cwd: string) => {
    await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    return agent.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  };

  test('a session loaded in a fresh process continues in the same workspace; commands run sandboxed from the bundle', { timeout: 180_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const first = start(data);
    let sessionId = '';
    let root = '';
    try {
      await first.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const created = await first.connection.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
      sessionId = created.sessionId;
      const sandbox = (await preparedMeta(first, sessionId))['accord/sandbox'];
      const bwrap = spawnSync('bwrap', ['--version']).status === 0;
      if (bwrap) assert.deepEqual(sandbox, { state: 'sandboxed', platform: 'linux', warnings: [] }, 'the bundle loads sandbox-runtime and finds its seccomp helper');
      model.server.script(reply.tool('e1', 'edit_file', { path: 'a.txt', old_string: 'a', new_string: 'A' }), reply.text('Edited a.'));
      assert.equal(await first.prompt(sessionId, 'capitalise a'), 'end_turn');
      const edited = updatesOf(first, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'e1' && u.status).at(-1);
      assert.equal(edited?.status, 'completed', JSON.stringify(updatesOf(first, sessionId, 'tool_call_update')));
      if (bwrap) {
        assert.equal(await first.prompt(sessionId, `!touch ${join(project, 'escaped.txt')}`), 'end_turn');
        const touched = updatesOf(first, sessionId, 'tool_call_update').filter((u) => u.status).at(-1);
        assert.equal(touched.status, 'failed');
        assert.ok(!existsSync(join(project, 'escaped.txt')), 'the sandboxed command could not write outside the workspace');
      }
      root = (await first.connection.agent.request<{ root: string }>('_accord/workspace/status', { sessionId })).root;
    } finally {
      await first.close();
    }

    const second = start(data);
    try {
      const loaded = await load(second, sessionId, project);
      assert.equal((loaded._meta as any)['accord/workspace'].root, root, 'the same workspace, not a new copy');
      model.server.script(reply.tool('e2', 'edit_file', { path: 'b.txt', old_string: 'b', new_string: 'B' }), reply.text('Edited b.'));
      assert.equal(await second.prompt(sessionId, 'capitalise b'), 'end_turn');
      const { changes } = await second.connection.agent.request<{ changes: Array<{ path: string }> }>('_accord/changes/list', { sessionId });
      assert.deepEqual(changes.map((c) => c.path), ['a.txt', 'b.txt'], `the earlier change is still there, next to the new one: ${JSON.stringify(changes)}`);
      assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'A\n');
      assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), 'a\n');
      assert.equal(readFileSync(join(project, 'b.txt'), 'utf8'), 'b\n');
    } finally {
      await second.close();
      remove();
    }
  });

  test('kill -9 while a command runs: the load closes the call as failed and the next prompt works', { timeout: 180_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const first = start(data);
    let sessionId = '';
    try {
      sessionId = await first.newSession(project);
      model.server.script(reply.tool('s1', 'run_command', { argv: ['sleep', '60'] }));
      void first.prompt(sessionId, 'wait a minute').catch(() => undefined);
      await first.waitForUpdate((n) => n.update.sessionUpdate === 'tool_call_update' && (n.update as any).toolCallId === 's1' && (n.update as any).status === 'in_progress');
      first.child.kill('SIGKILL');
    } finally {
      await first.close();
    }

    const second = start(data);
    try {
      await load(second, sessionId, project);
      const closed = updatesOf(second, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 's1' && u.status).at(-1);
      assert.equal(closed.status, 'failed', 'the interrupted call is closed as failed');
      model.server.script(reply.text('Fine.'));
      assert.equal(await second.prompt(sessionId, 'never mind'), 'end_turn');
      const records: string[] = readFileSync(join(data, 'sessions', `${sessionId}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l).type);
      assert.ok(records.includes('interrupted'), 'the log says the turn was interrupted');
      assert.match(JSON.stringify(model.server.requests.at(-1)!.body.messages), /s1/, 'the model gets a result for the interrupted call');
    } finally {
      await second.close();
      remove();
    }
  });

  test('without the sandbox the client is told why, and a command the policy allows still asks', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n', '.accord/policy.json': JSON.stringify({ version: 1, rules: [{ decision: 'allow', commands: [['ls']] }] }) });
    const agent = start(data, { ACCORD_SANDBOX: 'off' });
    try {
      await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const created = await agent.connection.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
      assert.deepEqual((await preparedMeta(agent, created.sessionId))['accord/sandbox'], { state: 'unsandboxed', reason: 'the sandbox was turned off with ACCORD_SANDBOX=off' });
      assert.equal(await agent.prompt(created.sessionId, '!ls'), 'end_turn');
      assert.equal(agent.permissionRequests.length, 1, 'an allowed command asks when it would run unsandboxed');
      assert.match(JSON.stringify(agent.permissionRequests[0]!.toolCall), /not sandboxed/);
    } finally {
      await agent.close();
      remove();
    }
  });

  test('accord acp --always-approve: what would ask runs without asking; a denied command is still refused', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n', '.accord/policy.json': JSON.stringify({ version: 1, rules: [{ decision: 'deny', commands: [['rm', '**']], reason: 'no deleting' }] }) });
    const agent = start(data, {}, ['--always-approve']);
    try {
      const sessionId = await agent.newSession(project);
      assert.equal(await agent.prompt(sessionId, '!echo approved'), 'end_turn');
      assert.equal(await agent.prompt(sessionId, '!rm a.txt'), 'refusal');
      assert.equal(agent.permissionRequests.length, 0);
      assert.match(updatesOf(agent, sessionId, 'agent_message_chunk').map((u) => u.content.text).join(''), /no deleting/);
    } finally {
      await agent.close();
      remove();
    }
  });

  for (const ending of ['stdin closed', 'SIGTERM'] as const) {
    test(`when the agent ends (${ending}) the sandbox's helper processes end with it`, { timeout: 120_000 }, async (t) => {
      const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
      const agent = start(data);
      try {
        await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
        const created = await agent.connection.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
        if ((await preparedMeta(agent, created.sessionId))['accord/sandbox'].state !== 'sandboxed') return t.skip('no sandbox here');
        const children = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(agent.child.pid)], { encoding: 'utf8' }).trim().split('\n');
        const helpers = children.filter((line) => line.includes('socat')).map((line) => Number(line.trim().split(/\s+/)[0]));
        assert.ok(helpers.length > 0, `the sandbox's network bridges run as children of the agent: ${children.join('; ')}`);
        const exited = new Promise<number | null>((resolve) => agent.child.once('exit', (code) => resolve(code)));
        if (ending === 'SIGTERM') agent.child.kill('SIGTERM');
        else agent.child.stdin!.end();
        assert.equal(await exited, ending === 'SIGTERM' ? 143 : 0);
        const alive = helpers.filter((pid) => spawnSync('kill', ['-0', String(pid)]).status === 0);
        assert.deepEqual(alive, [], 'no orphaned socat left behind');
      } finally {
        await agent.close();
        remove();
      }
    });
  }
});
