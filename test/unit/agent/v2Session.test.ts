// A v2 session through the SDK's own v2 client, in memory behind the version
// router (as `accord acp` serves it): new, a prompt with an edit (a
// structured diff at the isolated workspace's path, with a git patch), a
// command (permission with title and subject; its output as an agent-owned
// terminal), cancel; then a fresh agent on the same logs resumes the session
// with each replay cursor: none, start, a mid-log offset, bad offsets.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { SessionWorkspaces } from '../../../agent/session/workspaces';
import { builtinTools } from '../../../agent/tools/index';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor } from './harness';
import { gitProject } from './isolationFixtures';
import { inMemoryV2, v2Updates, type V2Harness } from './v2Harness';

const offsetOf = (update: unknown) => ((update as { _meta?: Record<string, unknown> })._meta ?? {})['accord/logOffset'] as number | undefined;
const decode = (data: string) => Buffer.from(data, 'base64').toString('utf8');
/** What a resumed view is compared on: the updates the log holds (state and the prompt's own echo are per connection). */
const replayable = (h: V2Harness, sessionId: string, from = 0) =>
  h.updates.slice(from).filter((n) => n.sessionId === sessionId && !['state_update', 'user_message', 'available_commands_update'].includes(n.update.sessionUpdate)).map((n) => n.update);

describe('ACP v2 session (SDK v2 client, in memory)', () => {
  const model = fakeModelFor('accord-v2-config-');
  const world = gitProject({ 'app.js': 'console.log("hi");\n' });
  after(() => world.remove());

  const agent = () => {
    const logs = new SessionStore(world.data);
    const isolation = new SessionWorkspaces({ dataDir: world.data, alwaysApprove: false });
    const { app, closeLogs } = createLoggedAgent({ env: { ...model.env(), ACCORD_SANDBOX: 'off' }, tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0, isolation }, logs);
    const harness = inMemoryV2(app);
    return {
      harness,
      logs,
      async close() {
        await harness.close();
        await closeLogs();
        await isolation.releaseAll();
      },
    };
  };

  let sessionId = '';
  let root = '';
  let live: any[] = [];

  before(async () => {
    process.env.ACCORD_SANDBOX = 'off';
  });

  test('new, a prompt with an edit and a command, permission, cancel', { timeout: 120_000 }, async () => {
    const a = agent();
    try {
      const init = await a.harness.initialize(2);
      assert.equal(init.protocolVersion, 2);
      const created = await a.harness.connection.agent.request(v2.methods.agent.session.new, { cwd: world.project });
      sessionId = created.sessionId;
      assert.ok(created.configOptions?.every((o) => typeof o.configId === 'string'), 'config options in v2 shape');
      const info = await a.harness.waitForUpdate((n) => n.update.sessionUpdate === 'session_info_update' && (n.update as any)._meta?.['accord/workspace'] !== undefined);
      root = (info.update as any)._meta['accord/workspace'].root;
      assert.notEqual(root, world.project);

      model.server.script(
        { type: 'stream', parts: [{ reasoning: 'Read, then edit.' }, { text: 'Editing now.' }, { toolCall: { id: 'e1', name: 'edit_file', args: { path: 'app.js', old_string: '"hi"', new_string: '"hello"' } } }] },
        reply.tool('c1', 'run_command', { argv: [process.execPath, '-e', 'console.log("ran it")'] }),
        reply.text('Done: it says hello.'),
      );
      const from = a.harness.updates.length;
      const { messageId } = await a.harness.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'make it say hello' }] });
      assert.equal(await a.harness.idleAfter(sessionId, from), 'end_turn');
      // (The "/" menu, sent just after session/new, may still be on its way: it is not part of the turn.)
      const turn = a.harness.updates.slice(from).filter((n) => n.sessionId === sessionId && n.update.sessionUpdate !== 'available_commands_update').map((n) => n.update as any);

      assert.deepEqual(turn[0], { sessionUpdate: 'user_message', messageId, content: [{ type: 'text', text: 'make it say hello' }] }, 'the prompt is echoed as an upsert with the id the response gave');
      assert.deepEqual(turn[1], { sessionUpdate: 'state_update', state: 'running' });
      assert.equal(turn.filter((u) => u.sessionUpdate === 'tool_call').length, 0, 'v2 has no tool_call: the first upsert creates the call');
      const text = turn.filter((u) => u.sessionUpdate === 'agent_message_chunk');
      assert.ok(text.length >= 2 && text.every((u) => typeof u.messageId === 'string'));
      assert.notEqual(text[0].messageId, text.at(-1).messageId, 'text after a tool call is a new message');
      const thought = turn.find((u) => u.sessionUpdate === 'agent_thought_chunk');
      assert.ok(thought.messageId.startsWith('thought-'));

      const edit = turn.find((u) => u.sessionUpdate === 'tool_call_update' && u.content?.some((c: any) => c.type === 'diff'));
      const diff = edit.content.find((c: any) => c.type === 'diff');
      const workspaceFile = join(root, 'app.js');
      assert.deepEqual(diff.changes, [{ operation: 'modify', path: workspaceFile, fileType: 'text' }], 'the absolute path in the isolated workspace');
      assert.equal(diff.patch.format, 'git_patch');
      assert.equal(diff.patch.text, `diff --git ${workspaceFile} ${workspaceFile}\n--- ${workspaceFile}\n+++ ${workspaceFile}\n@@ -1 +1 @@\n-console.log("hi");\n+console.log("hello");\n`);
      // The default mode is ask (issue 15): the edit of the own copy asks too; in auto only the command would.
      assert.equal(a.harness.permissionRequests.length, 2, `the edit and the command asked: ${a.harness.permissionRequests.map((r) => r.title).join(' | ')}`);

      const asked = a.harness.permissionRequests.find((r) => r.title.includes('ran it'))!;
      assert.ok(asked, 'the command asked');
      assert.equal(asked.subject?.type, 'tool_call');
      const subject = (asked.subject as any).toolCall;
      assert.equal(subject.kind, 'execute');
      assert.ok(turn.some((u) => u.sessionUpdate === 'state_update' && u.state === 'requires_action'), 'waiting on the person is requires_action');

      const card = turn.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === subject.toolCallId);
      assert.ok(card.some((u) => u.content?.some((c: any) => c.type === 'terminal' && c.terminalId === `terminal-${subject.toolCallId}`)), 'the card shows an agent-owned terminal');
      const terminalId = `terminal-${subject.toolCallId}`;
      const terminal = turn.filter((u) => (u.sessionUpdate === 'terminal_update' || u.sessionUpdate === 'terminal_output_chunk') && u.terminalId === terminalId);
      assert.ok(terminal[0].command.includes('ran it'));
      const output = terminal.map((u) => (u.sessionUpdate === 'terminal_output_chunk' ? decode(u.data) : u.output ? decode(u.output.data) : '')).join('');
      assert.match(output, /ran it/);
      assert.deepEqual(terminal.at(-1).exitStatus, { exitCode: 0 });
      assert.equal(card.at(-1).status, 'completed');

      for (const u of turn) {
        if (u.sessionUpdate === 'state_update' || u.sessionUpdate === 'user_message') continue;
        assert.equal(typeof offsetOf(u), 'number', `${u.sessionUpdate} carries its log offset live`);
      }

      // Cancel: the confirmation is the idle state with stopReason cancelled.
      model.server.script({ type: 'stream', parts: [{ text: 'thinking out loud' }, { text: 'never' }], stallAfterParts: 1 });
      const before = a.harness.updates.length;
      await a.harness.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'keep going' }] });
      await a.harness.waitForUpdate((n) => n.update.sessionUpdate === 'agent_message_chunk' && (n.update as any).content.text === 'thinking out loud');
      await a.harness.connection.agent.notify(v2.methods.agent.session.cancel, { sessionId });
      assert.equal(await a.harness.idleAfter(sessionId, before), 'cancelled');
      live = replayable(a.harness, sessionId);
    } finally {
      await a.close();
    }
  });

  test('a permission answer naming no offered option, or an unknown outcome, is never an approval', { timeout: 120_000 }, async () => {
    const a = agent();
    try {
      await a.harness.initialize(2);
      const { sessionId: id } = await a.harness.connection.agent.request(v2.methods.agent.session.new, { cwd: world.project });
      const marker = join(world.project, '..', 'ran-anyway');
      const command = { argv: [process.execPath, '-e', `require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`] };
      for (const outcome of [{ outcome: 'selected', optionId: 'allow_always_forever' }, { outcome: '_accept_everything' }, { outcome: 'selected' }]) {
        a.harness.permissions.policy = async () => ({ outcome } as never);
        model.server.script(reply.tool('c9', 'run_command', command), reply.text('ok'));
        const from = a.harness.updates.length;
        await a.harness.connection.agent.request(v2.methods.agent.session.prompt, { sessionId: id, prompt: [{ type: 'text', text: 'run it' }] });
        assert.equal(await a.harness.idleAfter(id, from), 'end_turn');
        assert.equal(existsSync(marker), false, `${JSON.stringify(outcome)} did not run the command`);
        const card = a.harness.updates.slice(from).map((n) => n.update as any).filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'c9');
        assert.equal(card.at(-1).status, 'failed');
      }
    } finally {
      await a.close();
    }
  });

  test('cancel during a permission question withdraws it (the client sees its request cancelled) and ends the turn cancelled', { timeout: 120_000 }, async () => {
    const a = agent();
    try {
      await a.harness.initialize(2);
      const { sessionId: id } = await a.harness.connection.agent.request(v2.methods.agent.session.new, { cwd: world.project });
      let withdrawn = false;
      a.harness.permissions.policy = (_request, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            withdrawn = true;
            resolve({ outcome: { outcome: 'cancelled' } });
          }),
        );
      model.server.script(reply.tool('c8', 'run_command', { argv: [process.execPath, '-e', '1'] }), reply.text('never'));
      const from = a.harness.updates.length;
      const asked = a.harness.permissionRequests.length;
      await a.harness.connection.agent.request(v2.methods.agent.session.prompt, { sessionId: id, prompt: [{ type: 'text', text: 'run it' }] });
      await a.harness.waitForUpdate(() => a.harness.permissionRequests.length > asked);
      await a.harness.connection.agent.notify(v2.methods.agent.session.cancel, { sessionId: id });
      assert.equal(await a.harness.idleAfter(id, from), 'cancelled');
      assert.equal(withdrawn, true, 'the question was withdrawn with $/cancel_request');
    } finally {
      await a.close();
    }
  });

  test('resume with no cursor, from the start, after a mid-log offset, and with bad offsets', { timeout: 120_000 }, async () => {
    assert.ok(sessionId, 'runs after the session test');
    const resume = async (h: V2Harness, replayFrom?: unknown) => {
      const from = h.updates.length;
      await h.connection.agent.request(v2.methods.agent.session.resume, { sessionId, cwd: world.project, ...(replayFrom !== undefined ? { replayFrom: replayFrom as never } : {}) });
      // Sent before the response; waited for so a client that hands notifications over late reads the same.
      await h.waitForUpdate((n) => h.updates.indexOf(n) >= from && n.update.sessionUpdate === 'state_update');
      return h.updates.slice(from).filter((n) => n.sessionId === sessionId).map((n) => n.update as any);
    };
    const fresh = async () => {
      const b = agent();
      await b.harness.initialize(2);
      return b;
    };

    let b = await fresh();
    try {
      const none = await resume(b.harness);
      assert.deepEqual(none, [{ sessionUpdate: 'state_update', state: 'idle' }], 'no cursor: no replay, only the state, before the response');
    } finally {
      await b.close();
    }

    b = await fresh();
    let all: any[];
    try {
      all = await resume(b.harness, { type: 'start' });
      assert.deepEqual(all.at(-1), { sessionUpdate: 'state_update', state: 'idle' }, 'the state comes last, before the response');
      const replayed = all.filter((u) => !['state_update', 'user_message_chunk', 'available_commands_update'].includes(u.sessionUpdate));
      assert.deepEqual(replayed, live.filter((u) => u.sessionUpdate !== 'available_commands_update'), 'start: the same updates with the same message, tool-call, terminal ids, diffs and offsets');
    } finally {
      await b.close();
    }

    // A mid-log offset: the edit's diff. Everything up to it is folded, the rest comes exactly as it did live.
    const edit = live.find((u) => u.sessionUpdate === 'tool_call_update' && u.content?.some((c: any) => c.type === 'diff'));
    const cut = offsetOf(edit)!;
    b = await fresh();
    try {
      const later = await resume(b.harness, { type: '_accord_offset', after: cut });
      assert.deepEqual(later.at(-1), { sessionUpdate: 'state_update', state: 'idle' });
      const expected = all.filter((u) => u.sessionUpdate !== 'state_update' && offsetOf(u)! > cut);
      assert.ok(expected.length > 3);
      assert.deepEqual(later.slice(0, -1), expected, 'exactly the events after the offset, with the ids they had (the earlier ones folded)');

      for (const bad of [cut + 1, 10 ** 9, -5, 'x']) {
        const before = b.harness.updates.length;
        const error = await b.harness.connection.agent.request(v2.methods.agent.session.resume, { sessionId, cwd: world.project, replayFrom: { type: '_accord_offset', after: bad } as never }).then(
          () => undefined,
          (e: { code?: number; message?: string }) => e,
        );
        assert.equal(error?.code, -32602, `after ${bad} is refused`);
        assert.match(error!.message + JSON.stringify((error as any).data), /offset/i);
        // (The previous resume's "/" menu may still arrive: it is sent just after its response.)
        const sent = b.harness.updates.slice(before).filter((n) => n.update.sessionUpdate !== 'available_commands_update');
        assert.deepEqual(sent, [], 'nothing was sent: never a partial view');
      }
      const unknown = await b.harness.connection.agent.request(v2.methods.agent.session.resume, { sessionId, cwd: world.project, replayFrom: { type: '_other' } as never }).then(
        () => undefined,
        (e: { code?: number }) => e.code,
      );
      assert.equal(unknown, -32602, 'an unknown cursor type is refused, not treated as start');
    } finally {
      await b.close();
    }
  });
});
