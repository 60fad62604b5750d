// Durable approvals (--durable-requests) over real ACP against the fake
// model: the turn ends `waiting` with the request in _meta; the answer comes
// on a later prompt or as the JSON-RPC response (the first wins); a bad
// request id or option is refused and approves nothing; and the pending
// approval survives kill -9 of the agent process and a load in a new one.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { DurableRequests } from '../../../agent/acp/durablePermissions';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { builtinTools } from '../../../agent/tools/index';
import { reply } from '../../fakeModelServer/index';
import { tempDataDir } from '../log/fixtures';
import { childAgent, fakeModelFor, inMemoryApp, neverAnswer, tempDir, updatesOf, type Harness } from './harness';

const KEY = 'accord/permission';

describe('durable approvals', () => {
  const model = fakeModelFor('accord-durable-config-');

  async function withAgent(run: (agent: Harness, sessionId: string, root: string) => Promise<void>) {
    const root = tempDir('accord-durable-');
    const { dir, cleanup } = await tempDataDir();
    const agent = inMemoryApp(createLoggedAgent({ env: model.env(), tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0, durable: new DurableRequests() }, new SessionStore(dir)).app);
    agent.permissions.policy = neverAnswer;
    try {
      const sessionId = await agent.newSession(root.path);
      await run(agent, sessionId, root.path);
      await agent.connection.agent.request(methods.agent.session.close, { sessionId });
    } finally {
      await agent.close();
      await cleanup();
      root.remove();
    }
  }

  const prompt = (agent: Harness, sessionId: string, text: string, meta?: unknown) =>
    agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: text ? [{ type: 'text', text }] : [], ...(meta ? { _meta: { [KEY]: meta } } : {}) }) as Promise<{ stopReason: string; _meta?: any }>;
  const rpcCode = (promise: Promise<unknown>) => promise.then(() => undefined, (error: { code?: number }) => error.code);

  /** A prompt whose edit needs an approval: the turn ends waiting. */
  async function waitingEdit(agent: Harness, sessionId: string, root: string) {
    writeFileSync(join(root, 'notes.txt'), 'draft\n');
    model.server.script(reply.tool('e1', 'edit_file', { path: 'notes.txt', old_string: 'draft', new_string: 'final' }));
    const response = await prompt(agent, sessionId, 'finish the notes');
    assert.equal(response.stopReason, 'waiting');
    return response._meta[KEY] as { requestId: string; toolCall: any; options: any[] };
  }

  test('the turn ends waiting; the request still goes out; a bad id or option is refused; allow on the next prompt runs the call and continues', async () => {
    await withAgent(async (agent, sessionId, root) => {
      const pending = await waitingEdit(agent, sessionId, root);
      assert.match(pending.requestId, /^perm_/);
      assert.equal(pending.toolCall.toolCallId, 'e1');
      assert.deepEqual(pending.toolCall.content[0].newText, 'final\n');
      assert.deepEqual(pending.options.map((o) => o.optionId), ['allow_once', 'reject_once']);
      assert.equal(agent.permissionRequests.length, 1, 'session/request_permission was sent');
      assert.deepEqual((agent.permissionRequests[0] as any)._meta[KEY], { requestId: pending.requestId });
      assert.deepEqual(agent.permissionRequests[0]!.options.map((o) => o.optionId), ['allow_once', 'reject_once']);
      assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'draft\n');

      assert.equal(await rpcCode(prompt(agent, sessionId, '', { requestId: 'perm_nope', optionId: 'allow_once' })), -32602);
      assert.equal(await rpcCode(prompt(agent, sessionId, '', { requestId: pending.requestId, optionId: 'allow_always' })), -32602);
      assert.equal(await rpcCode(prompt(agent, sessionId, '', { optionId: 'allow_once' })), -32602);
      assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'draft\n', 'nothing was approved');

      const before = model.server.requests.length;
      model.server.script(reply.text('The notes are final.'));
      const answered = await prompt(agent, sessionId, '', { requestId: pending.requestId, optionId: 'allow_once' });
      assert.equal(answered.stopReason, 'end_turn');
      assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'final\n');
      assert.equal(updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'e1').at(-1).status, 'completed');
      assert.equal(model.server.requests.length, before + 1, 'the turn went on to the model');
      assert.equal(await rpcCode(prompt(agent, sessionId, '', { requestId: pending.requestId, optionId: 'allow_once' })), -32602, 'an answered request cannot be answered again');
    });
  });

  test('reject on the next prompt tells the model and continues', async () => {
    await withAgent(async (agent, sessionId, root) => {
      const pending = await waitingEdit(agent, sessionId, root);
      const before = model.server.requests.length;
      model.server.script(reply.text('Leaving it.'));
      const answered = await prompt(agent, sessionId, '', { requestId: pending.requestId, optionId: 'reject_once' });
      assert.equal(answered.stopReason, 'end_turn');
      assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'draft\n');
      assert.match(JSON.stringify(model.server.requests[before]!.body.messages), /declined/);
    });
  });

  test('an approval for what a call would have done does not run it once that has changed', async () => {
    await withAgent(async (agent, sessionId, root) => {
      const pending = await waitingEdit(agent, sessionId, root);
      writeFileSync(join(root, 'notes.txt'), 'draft\nmore lines written meanwhile\n');
      const before = model.server.requests.length;
      model.server.script(reply.text('I will ask again.'));
      assert.equal((await prompt(agent, sessionId, '', { requestId: pending.requestId, optionId: 'allow_once' })).stopReason, 'end_turn');
      assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'draft\nmore lines written meanwhile\n');
      assert.equal(updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'e1').at(-1).status, 'failed');
      assert.match(JSON.stringify(model.server.requests[before]!.body.messages), /changed after the person approved/);
    });
  });

  test('a !command waiting for its approval runs when allowed, without a model request', async () => {
    await withAgent(async (agent, sessionId) => {
      const before = model.server.requests.length;
      const response = await prompt(agent, sessionId, '!echo durable hello');
      assert.equal(response.stopReason, 'waiting');
      const answered = await prompt(agent, sessionId, '', { requestId: response._meta[KEY].requestId, optionId: 'allow_once' });
      assert.equal(answered.stopReason, 'end_turn');
      const card = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.toolCallId === response._meta[KEY].toolCall.toolCallId).at(-1);
      assert.equal(card.status, 'completed');
      assert.match(JSON.stringify(card.content), /durable hello/);
      assert.equal(model.server.requests.length, before, 'no model involved');
      model.server.script(reply.text('ok'));
      await prompt(agent, sessionId, 'what did I run?');
      assert.match(JSON.stringify(model.server.requests.at(-1)!.body.messages), /I ran `echo durable hello` myself/);
    });
  });

  test('answering the JSON-RPC request itself runs the call and continues; a later prompt answer is refused', async () => {
    await withAgent(async (agent, sessionId, root) => {
      let answer: () => void = () => undefined;
      const clicked = new Promise<void>((resolve) => (answer = resolve));
      agent.permissions.policy = async () => {
        await clicked; // the person clicks after the turn has ended
        return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
      };
      model.server.script(reply.tool('e1', 'edit_file', { path: 'notes.txt', old_string: 'draft', new_string: 'final' }), reply.text('Done after approval.'));
      writeFileSync(join(root, 'notes.txt'), 'draft\n');
      const response = await prompt(agent, sessionId, 'finish the notes');
      assert.equal(response.stopReason, 'waiting');
      answer();
      await agent.waitForUpdate((n) => (n.update as any).toolCallId === 'e1' && (n.update as any).status === 'completed');
      await agent.waitForUpdate((n) => (n.update as any).content?.text === 'Done after approval.');
      assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'final\n');
      // No prompt carried the continued turn: the client is told it started and how it ended.
      await agent.waitForUpdate(() => agent.extNotifications.some((n) => n.method === '_accord/turn_ended'));
      assert.deepEqual(agent.extNotifications.filter((n) => n.method.startsWith('_accord/turn_')).map((n) => [n.method, n.params]), [
        ['_accord/turn_started', { sessionId }],
        ['_accord/turn_ended', { sessionId, stopReason: 'end_turn' }],
      ]);
      assert.equal(await rpcCode(prompt(agent, sessionId, '', { requestId: response._meta[KEY].requestId, optionId: 'allow_once' })), -32602);
    });
  });

  test("a child session's approval is asked and waited for (a child cannot outlive its turn): the parent's turn does not end waiting", async () => {
    await withAgent(async (agent, sessionId) => {
      let asked: any;
      agent.permissions.policy = async (request) => {
        asked = request;
        return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
      };
      model.server.script(
        reply.tool('t1', 'task', { description: 'Run the check', prompt: 'Run echo child ran and report.', allow_edits: true }),
        reply.tool('c1', 'run_command', { argv: ['echo', 'child ran'] }),
        reply.text('The child ran it.'),
        reply.text('Parent done.'),
      );
      const response = await prompt(agent, sessionId, 'delegate it');
      assert.equal(response.stopReason, 'end_turn');
      assert.equal(response._meta, undefined, 'no pending approval is left behind');
      assert.ok(asked, 'the child asked');
      assert.equal(asked.toolCall.toolCallId, 'c1');
      assert.equal(asked._meta?.[KEY], undefined, 'an ordinary question, answered now, not a durable one');
      assert.match(JSON.stringify(model.server.requests.at(-1)!.body.messages), /The child ran it\./);
      assert.match(JSON.stringify(model.server.requests.at(-2)!.body.messages), /child ran/, "the child's command ran and the child saw its output");
    });
  });

  test('a child whose approval is rejected reports it; nothing stays pending', async () => {
    await withAgent(async (agent, sessionId) => {
      agent.permissions.policy = async () => ({ outcome: { outcome: 'selected', optionId: 'reject_once' } });
      model.server.script(
        reply.tool('t2', 'task', { description: 'Try a command', prompt: 'Run echo x.', allow_edits: true }),
        reply.tool('c2', 'run_command', { argv: ['echo', 'x'] }),
        reply.text('It was declined.'),
        reply.text('Parent done.'),
      );
      const response = await prompt(agent, sessionId, 'delegate it');
      assert.equal(response.stopReason, 'end_turn');
      assert.match(JSON.stringify(model.server.requests.at(-2)!.body.messages), /declined/);
      assert.equal(await rpcCode(prompt(agent, sessionId, '', { requestId: 'perm_x', optionId: 'allow_once' })), -32602);
    });
  });

  test('kill -9 while waiting: a new process loads the session, the approval is still pending, and the answer on the next prompt runs the call', { timeout: 180_000 }, async () => {
    const root = tempDir('accord-durable-kill-');
    const { dir, cleanup } = await tempDataDir();
    const spawnAgent = () => {
      const agent = childAgent({ ...model.env(), ACCORD_HOME: dir }, ['--durable-requests']);
      agent.permissions.policy = neverAnswer;
      return agent;
    };
    try {
      const a = spawnAgent();
      const sessionId = await a.newSession(root.path);
      // A command asks (an edit of the session's own copy would not: the review is its approval).
      model.server.script(reply.tool('e1', 'run_command', { argv: ['echo', 'approved after a restart'] }));
      const response = await prompt(a, sessionId, 'say it');
      assert.equal(response.stopReason, 'waiting');
      const { requestId } = response._meta[KEY];
      a.child.kill('SIGKILL');
      await a.close();

      const b = spawnAgent();
      try {
        await b.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
        const loaded = (await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd: root.path, mcpServers: [] })) as { _meta?: any };
        assert.equal(loaded._meta?.[KEY]?.requestId, requestId, 'the load response names the pending approval');
        await b.waitForUpdate(() => b.permissionRequests.length > 0);
        assert.equal((b.permissionRequests[0] as any)._meta[KEY].requestId, requestId, 'the question is asked again');
        const card = updatesOf(b, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'e1');
        assert.ok(!card.some((u) => u.status === 'failed'), 'the waiting call is not closed as interrupted');
        const before = model.server.requests.length;
        model.server.script(reply.text('Finished after the restart.'));
        const answered = await prompt(b, sessionId, '', { requestId, optionId: 'allow_once' });
        assert.equal(answered.stopReason, 'end_turn');
        assert.equal(updatesOf(b, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'e1').at(-1).status, 'completed');
        const sent = JSON.stringify(model.server.requests[before]!.body.messages);
        assert.doesNotMatch(sent, /before this tool call finished/);
        assert.match(sent, /approved after a restart/, 'the command ran and its output reached the model');
      } finally {
        b.child.kill('SIGKILL');
        await b.close();
      }
    } finally {
      await cleanup();
      root.remove();
    }
  });
});

