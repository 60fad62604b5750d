// The tool loop through the real agent and the real tools: announcements,
// the permission round trip, results fed back to the model, the request cap.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply, startFakeModelServer, type FakeModelServer } from '../../fakeModelServer/index';
import { inMemoryAgent, isolatedEnv, messageText, rejectOnce, tempDir, updatesOf, type Harness } from './harness';

describe('tool loop', () => {
  let server: FakeModelServer;
  const config = tempDir('accord-loop-config-');
  before(async () => {
    server = await startFakeModelServer();
  });
  after(async () => {
    await server.close();
    config.remove();
  });

  async function withAgent(run: (agent: Harness, sessionId: string, root: string) => Promise<void>, maxTurnRequests?: number) {
    const root = tempDir('accord-loop-');
    const env = isolatedEnv({ ACCORD_MODEL: `openai-compatible:${server.baseUrl}#fake-coder` }, config.path);
    const agent = inMemoryAgent({ env, ...(maxTurnRequests ? { maxTurnRequests } : {}) });
    try {
      await run(agent, await agent.newSession(root.path), root.path);
    } finally {
      await agent.close();
      root.remove();
    }
  }

  const toolResultsIn = (index: number) =>
    (server.requests[index]!.body.messages as any[]).filter((m) => m.role === 'tool').map((m) => String(m.content));

  test('reads, then edits a file on disk after the client allows it once', async () => {
    await withAgent(async (agent, sessionId, root) => {
      writeFileSync(join(root, 'greeting.txt'), 'hello world\n');
      const first = server.requests.length;
      server.script(
        reply.tool('call_read', 'read_file', { path: 'greeting.txt' }),
        reply.tool('call_edit', 'edit_file', { path: 'greeting.txt', old_string: 'world', new_string: 'accord' }),
        reply.text('Changed the greeting.'),
      );
      assert.equal(await agent.prompt(sessionId, 'Change world to accord'), 'end_turn');
      assert.equal(readFileSync(join(root, 'greeting.txt'), 'utf8'), 'hello accord\n');
      assert.equal(messageText(agent, sessionId), 'Changed the greeting.');

      const calls = updatesOf(agent, sessionId, 'tool_call');
      assert.deepEqual(calls.map((c) => [c.toolCallId, c.kind, c.status]), [['call_read', 'read', 'pending'], ['call_edit', 'edit', 'pending']]);
      assert.equal(calls[0].locations[0].path, join(root, 'greeting.txt'));
      assert.deepEqual(calls[1].rawInput, { path: 'greeting.txt', old_string: 'world', new_string: 'accord' });

      assert.equal(agent.permissionRequests.length, 1, 'reading does not ask; editing does');
      const asked = agent.permissionRequests[0]!;
      assert.deepEqual(asked.options.map((o) => o.kind), ['allow_once', 'reject_once']);
      assert.equal(asked.toolCall.toolCallId, 'call_edit');
      assert.deepEqual(asked.toolCall.content, [{ type: 'diff', path: join(root, 'greeting.txt'), oldText: 'hello world\n', newText: 'hello accord\n' }]);

      const finals = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.status === 'completed');
      assert.deepEqual(finals.map((u) => u.toolCallId), ['call_read', 'call_edit']);
      assert.ok(finals[1].content.some((c: any) => c.type === 'diff' && c.newText === 'hello accord\n'));
      assert.ok(updatesOf(agent, sessionId, 'tool_call_update').some((u) => u.toolCallId === 'call_edit' && u.status === 'in_progress'));

      assert.equal(server.requests.length - first, 3);
      assert.match(toolResultsIn(first + 1).join('\n'), /hello world/, 'the read result reaches the model');
    });
  });

  test('a rejected edit leaves the file alone and tells the model', async () => {
    await withAgent(async (agent, sessionId, root) => {
      writeFileSync(join(root, 'keep.txt'), 'original\n');
      agent.permissions.policy = rejectOnce;
      const first = server.requests.length;
      server.script(reply.tool('call_1', 'edit_file', { path: 'keep.txt', old_string: 'original', new_string: 'changed' }), reply.text('OK, leaving it.'));
      assert.equal(await agent.prompt(sessionId, 'edit it'), 'end_turn');
      assert.equal(readFileSync(join(root, 'keep.txt'), 'utf8'), 'original\n');
      const failed = updatesOf(agent, sessionId, 'tool_call_update').find((u) => u.toolCallId === 'call_1' && u.status === 'failed');
      assert.ok(failed, 'the card shows failed');
      assert.match(toolResultsIn(first + 1).join('\n'), /declined/);
    });
  });

  test('parallel tool calls all run and all results go back in one request', async () => {
    await withAgent(async (agent, sessionId, root) => {
      writeFileSync(join(root, 'a.txt'), 'alpha\n');
      writeFileSync(join(root, 'b.txt'), 'beta\n');
      const first = server.requests.length;
      server.script(
        {
          type: 'stream',
          parts: [
            { toolCall: { id: 'call_a', name: 'read_file', args: { path: 'a.txt' } } },
            { toolCall: { id: 'call_b', name: 'read_file', args: { path: 'b.txt' } } },
          ],
        },
        reply.text('Both read.'),
      );
      assert.equal(await agent.prompt(sessionId, 'read both'), 'end_turn');
      const done = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.status === 'completed').map((u) => u.toolCallId);
      assert.deepEqual(done.sort(), ['call_a', 'call_b']);
      const results = toolResultsIn(first + 1).join('\n');
      assert.match(results, /alpha/);
      assert.match(results, /beta/);
    });
  });

  test('bad tool input is a failed result the model sees, and unknown tools too', async () => {
    await withAgent(async (agent, sessionId) => {
      const first = server.requests.length;
      server.script(
        {
          type: 'stream',
          parts: [
            { toolCall: { id: 'call_bad', name: 'read_file', args: { file: 42 } } },
            { toolCall: { id: 'call_none', name: 'no_such_tool', args: {} } },
          ],
        },
        reply.text('Sorry.'),
      );
      assert.equal(await agent.prompt(sessionId, 'go'), 'end_turn');
      const failed = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.status === 'failed').map((u) => u.toolCallId);
      assert.ok(failed.includes('call_bad'));
      const sent = JSON.stringify(server.requests[first + 1]!.body.messages);
      assert.match(sent, /Invalid input for read_file/);
      assert.match(sent, /call_none/);
    });
  });

  test('the cap on model requests ends the turn with max_turn_requests', async () => {
    await withAgent(async (agent, sessionId, root) => {
      writeFileSync(join(root, 'a.txt'), 'alpha\n');
      server.script(reply.tool('c1', 'read_file', { path: 'a.txt' }), reply.tool('c2', 'read_file', { path: 'a.txt' }), reply.tool('c3', 'read_file', { path: 'a.txt' }));
      assert.equal(await agent.prompt(sessionId, 'loop'), 'max_turn_requests');
      assert.match(messageText(agent, sessionId), /Stopped after 2 model requests/);
      server.clearScript(); // the third reply was never requested
    }, 2);
  });
});
