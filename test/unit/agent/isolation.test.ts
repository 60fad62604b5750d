// Sessions work in their own workspace, through real ACP connections (SDK
// client ↔ the logged agent with isolation) and the fake model server: the
// person's tree changes only when the client applies a reviewed change (the agent cannot); the project
// policy decides without asking; the sandbox keeps commands inside the
// workspace; `!cmd` prompts; what an editor may not ask for.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { methods } from '@agentclientprotocol/sdk';
import { runSessionsCli } from '../../../agent/log/cli';
import { reply } from '../../fakeModelServer/index';
import { updatesOf, fakeModelFor } from './harness';
import { failure, gitProject, isolatedAgent, lines } from './isolationFixtures';

const textOf = (update: any) => (update.content ?? []).map((c: any) => c.content?.text ?? '').join('');

describe('isolated sessions over ACP', () => {
  const model = fakeModelFor('accord-iso-config-');
  const env = model.env;

  test('an edit lands in the workspace; review lists it, gives base/current, applies one hunk and reports a conflict', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': lines(20), 'b.txt': lines(3) });
    const agent = isolatedAgent(env(), data);
    try {
      const { sessionId, meta } = await agent.newSession(project);
      assert.equal(meta['accord/workspace'].mode, 'git-clone');
      model.server.script(
        {
          type: 'stream',
          parts: [
            { toolCall: { id: 'a1', name: 'edit_file', args: { path: 'a.txt', old_string: 'line 2\n', new_string: 'LINE TWO\n' } } },
            { toolCall: { id: 'a2', name: 'edit_file', args: { path: 'a.txt', old_string: 'line 18\n', new_string: 'LINE EIGHTEEN\n' } } },
            { toolCall: { id: 'b1', name: 'edit_file', args: { path: 'b.txt', old_string: 'line 1\n', new_string: 'agent line 1\n' } } },
          ],
        },
        reply.text('Done.'),
      );
      assert.equal(await agent.harness.prompt(sessionId, 'shout lines 2 and 18, and change b'), 'end_turn');
      assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), lines(20), "the person's tree is unchanged");
      const status = await agent.ext('_accord/workspace/status', { sessionId });
      assert.notEqual(status.root, project);
      assert.equal(readFileSync(join(status.root, 'a.txt'), 'utf8'), lines(20, { 2: 'LINE TWO', 18: 'LINE EIGHTEEN' }));
      const calls = updatesOf(agent.harness, sessionId, 'tool_call');
      assert.deepEqual(calls.map((c) => c.locations?.[0]?.path), [join(project, 'a.txt'), join(project, 'a.txt'), join(project, 'b.txt')], "locations name the person's files");

      const { changes } = await agent.ext('_accord/changes/list', { sessionId });
      assert.deepEqual(changes.map((c: any) => [c.path, c.status, c.additions, c.deletions]), [['a.txt', 'modified', 2, 2], ['b.txt', 'modified', 1, 1]]);
      const file = await agent.ext('_accord/changes/file', { sessionId, path: 'a.txt' });
      assert.deepEqual(file, { path: 'a.txt', baseText: lines(20), currentText: lines(20, { 2: 'LINE TWO', 18: 'LINE EIGHTEEN' }), binary: false });
      // Applying is the extension's (its reviewed 3-way merge): the agent offers no way to write the person's tree.
      for (const method of ['_accord/changes/apply', '_accord/changes/patch']) {
        assert.equal((await failure(agent.ext(method, { sessionId }))).code, -32601, `${method} is gone`);
      }
      assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), lines(20), "the person's tree is still unchanged");

      assert.equal((await failure(agent.ext('_accord/changes/list', { sessionId: 'nope' }))).code, -32602);
      assert.equal((await failure(agent.ext('_accord/changes/file', { sessionId, path: 'unchanged.txt' }))).code, -32602);
      assert.equal((await failure(agent.ext('_accord/changes/file', { sessionId, path: '../x' }))).code, -32602);

      const records: any[] = [];
      for await (const { record } of agent.logs.read(sessionId)) records.push(record);
      const io = records.filter((r) => r.type === 'tool_io');
      assert.deepEqual(io.map((r) => [r.toolCallId, r.toolName, r.input.path, r.isError]), [['a1', 'edit_file', 'a.txt', false], ['a2', 'edit_file', 'a.txt', false], ['b1', 'edit_file', 'b.txt', false]]);
      assert.ok(io.every((r) => typeof r.output === 'string' && r.output.length > 0));
      assert.equal(records.filter((r) => r.type === 'usage').length, 2, 'one usage record per model request');
      assert.ok(records.find((r) => r.type === 'usage').usage.inputTokens > 0);
      assert.deepEqual(records[0].workspace, { preparing: true, inPlace: false }, 'the log starts before the copy is made');
      assert.equal(records.find((r) => r.type === 'workspace').workspace.root, status.root, 'the log records where the session works');
    } finally {
      await agent.close();
      remove();
    }
  });

  test('a policy that denies a command fails the call with its reason, without asking', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    mkdirSync(join(project, '.accord'));
    writeFileSync(join(project, '.accord/policy.json'), JSON.stringify({ version: 1, rules: [{ decision: 'deny', commands: [['rm', '**']], reason: 'removing files is for people' }] }));
    const agent = isolatedAgent(env(), data);
    try {
      const { sessionId } = await agent.newSession(project);
      model.server.script(reply.tool('r1', 'run_command', { argv: ['rm', 'a.txt'] }), reply.text('Could not.'));
      assert.equal(await agent.harness.prompt(sessionId, 'delete a.txt'), 'end_turn');
      assert.equal(agent.harness.permissionRequests.length, 0, 'nothing asked');
      const failed = updatesOf(agent.harness, sessionId, 'tool_call_update').find((u) => u.toolCallId === 'r1' && u.status === 'failed');
      assert.match(textOf(failed), /removing files is for people/);
      const status = await agent.ext('_accord/workspace/status', { sessionId });
      assert.ok(existsSync(join(status.root, 'a.txt')));
    } finally {
      await agent.close();
      remove();
    }
  });

  test('--always-approve runs what would ask without asking, and still refuses what the policy denies', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    mkdirSync(join(project, '.accord'));
    writeFileSync(join(project, '.accord/policy.json'), JSON.stringify({ version: 1, rules: [{ decision: 'deny', commands: [['rm', '**']] }] }));
    const agent = isolatedAgent(env(), data, true);
    try {
      const { sessionId } = await agent.newSession(project);
      model.server.script(
        { type: 'stream', parts: [{ toolCall: { id: 'w1', name: 'write_file', args: { path: 'new.txt', content: 'new\n' } } }, { toolCall: { id: 'r1', name: 'run_command', args: { argv: ['rm', 'a.txt'] } } }] },
        reply.text('Done.'),
      );
      assert.equal(await agent.harness.prompt(sessionId, 'go'), 'end_turn');
      assert.equal(agent.harness.permissionRequests.length, 0);
      const final = (id: string) => updatesOf(agent.harness, sessionId, 'tool_call_update').filter((u) => u.toolCallId === id && u.status).at(-1)?.status;
      assert.equal(final('w1'), 'completed');
      assert.equal(final('r1'), 'failed');
    } finally {
      await agent.close();
      remove();
    }
  });

  test('an editor cannot turn approvals off, nor start MCP servers; the refusals say where to declare them', { timeout: 60_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const agent = isolatedAgent(env(), data);
    try {
      await agent.harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const yolo = await failure(agent.harness.connection.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [], _meta: { yoloMode: true } }));
      assert.equal(yolo.code, -32602);
      assert.match(yolo.message, /cannot widen what a project allows/);
      const mcp = await failure(agent.harness.connection.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [{ name: 'docs', command: 'node', args: ['x.js'], env: [] }] }));
      assert.equal(mcp.code, -32602);
      assert.match(mcp.message, /\.accord\/policy\.json/);
      assert.ok(!existsSync(join(data, 'sessions')), 'no workspace was created for a refused session');
      const load = await failure(agent.harness.connection.agent.request(methods.agent.session.load, { sessionId: 'any', cwd: project, mcpServers: [], _meta: { autoApprove: true } }));
      assert.equal(load.code, -32602);
      assert.match(load.message, /cannot widen what a project allows/);
    } finally {
      await agent.close();
      remove();
    }
  });

  test('!echo hi runs without the model and streams its output; !echo $HOME is refused with the reason', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const agent = isolatedAgent(env(), data);
    try {
      const { sessionId } = await agent.newSession(project);
      const requestsBefore = model.server.requests.length;
      assert.equal(await agent.harness.prompt(sessionId, '!echo hi'), 'end_turn');
      const [call] = updatesOf(agent.harness, sessionId, 'tool_call');
      assert.equal(call.kind, 'execute');
      assert.deepEqual(call.rawInput, { argv: ['echo', 'hi'] });
      const done = updatesOf(agent.harness, sessionId, 'tool_call_update').find((u) => u.status === 'completed');
      assert.match(textOf(done), /hi/);

      assert.equal(await agent.harness.prompt(sessionId, '!echo $HOME'), 'refusal');
      assert.match(updatesOf(agent.harness, sessionId, 'agent_message_chunk').map((u) => u.content.text).join(''), /variables .* are not expanded/);
      assert.equal(model.server.requests.length, requestsBefore, 'no model involved');
    } finally {
      await agent.close();
      remove();
    }
  });

  test('under the real sandbox a command cannot write outside the workspace', { timeout: 120_000 }, async (t) => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const agent = isolatedAgent(env(), data);
    try {
      const { sessionId, meta } = await agent.newSession(project);
      if (meta['accord/sandbox'].state !== 'sandboxed') return t.skip(`no sandbox here: ${meta['accord/sandbox'].reason}`);
      model.server.script(
        { type: 'stream', parts: [{ toolCall: { id: 't1', name: 'run_command', args: { argv: ['touch', join(project, 'escaped.txt')] } } }, { toolCall: { id: 't2', name: 'run_command', args: { argv: ['touch', 'inside.txt'] } } }] },
        reply.text('Tried.'),
      );
      await agent.harness.prompt(sessionId, 'touch files');
      assert.ok(!existsSync(join(project, 'escaped.txt')), "nothing written in the person's tree");
      const final = (id: string) => updatesOf(agent.harness, sessionId, 'tool_call_update').filter((u) => u.toolCallId === id && u.status).at(-1);
      assert.equal(final('t1').status, 'failed');
      assert.match(textOf(final('t1')), /Read-only file system|Permission denied/);
      assert.equal(final('t2').status, 'completed');
      const { changes } = await agent.ext('_accord/changes/list', { sessionId });
      assert.deepEqual(changes.map((c: any) => c.path), ['inside.txt']);
      assert.match(agent.harness.permissionRequests.map((r) => textOf(r.toolCall)).join('\n'), /Sandbox: sandboxed/, 'the question carries the sandbox state');
    } finally {
      await agent.close();
      remove();
    }
  });

  test('in place (on request) the person\'s file changes directly, with a snapshot to diff and discard against', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'one\n' });
    const agent = isolatedAgent(env(), data);
    try {
      const { sessionId, meta } = await agent.newSession(project, { 'accord/workspace': 'in-place' });
      assert.equal(meta['accord/workspace'].mode, 'in-place');
      model.server.script(reply.tool('e1', 'edit_file', { path: 'a.txt', old_string: 'one', new_string: 'two' }), reply.text('Done.'));
      await agent.harness.prompt(sessionId, 'edit');
      assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), 'two\n');
      const { changes } = await agent.ext('_accord/changes/list', { sessionId });
      assert.deepEqual(changes.map((c: any) => c.path), ['a.txt']);
      assert.deepEqual((await agent.ext('_accord/changes/discard', { sessionId })).discarded, ['a.txt']);
      assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), 'one\n');
      assert.equal((await failure(agent.newSession(project, { 'accord/workspace': 'sideways' }))).code, -32602);
    } finally {
      await agent.close();
      remove();
    }
  });

  test('loading a session whose workspace was deleted says so instead of starting over', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const first = isolatedAgent(env(), data);
    let sessionId = '';
    try {
      ({ sessionId } = await first.newSession(project));
      await first.harness.connection.agent.request(methods.agent.session.close, { sessionId });
    } finally {
      await first.close();
    }
    rmSync(join(data, 'sessions', sessionId), { recursive: true, force: true });
    const second = isolatedAgent(env(), data);
    try {
      await second.harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const load = await failure(second.harness.connection.agent.request(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] }));
      assert.equal(load.code, -32600);
      assert.match(load.message, /no longer exists/);
      assert.ok(!existsSync(join(data, 'sessions', sessionId)), 'not re-created');
    } finally {
      await second.close();
      remove();
    }
  });

  test('accord sessions remove deletes the workspace copy and unpins its base in the person\'s repository', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const agent = isolatedAgent(env(), data);
    try {
      const { sessionId } = await agent.newSession(project);
      await agent.harness.connection.agent.request(methods.agent.session.close, { sessionId });
      const pins = () => execFileSync('git', ['for-each-ref', 'refs/accord/'], { cwd: project, encoding: 'utf8' }).trim();
      assert.match(pins(), new RegExp(sessionId));
      assert.ok(existsSync(join(data, 'sessions', sessionId, 'ws')));
      const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), interactive: false, dataDir: data };
      assert.equal(await runSessionsCli(['remove', sessionId, '--yes'], io), 0);
      assert.ok(!existsSync(join(data, 'sessions', sessionId)));
      assert.equal(pins(), '');
    } finally {
      await agent.close();
      remove();
    }
  });
});
