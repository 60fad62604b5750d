// Durable approvals (--durable-requests) through the per-user daemon, the
// path `accord acp` takes by default: real bridges, a real socket, the fake
// model. The turn ends `waiting` with the request in _meta; every attached
// client is asked; a bad request id or option is refused and approves
// nothing; the approval outlives kill -9 of the daemon (and an approval
// timeout far shorter than the wait) and is answered on the next prompt
// after a new daemon loads the session; the first answer wins between two
// clients, whichever path it takes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor, messageText, neverAnswer, updatesOf, type ChildHarness } from '../agent/harness';
import { daemonWorld, ensureBuilt, pidAlive, waitFor } from './fixtures';

before(() => ensureBuilt());

const KEY = 'accord/permission';

describe('durable approvals through the daemon', () => {
  const model = fakeModelFor('accord-daemon-durable-config-');
  // An approval timeout far shorter than any wait here: a durable approval must not lapse by it.
  const world = daemonWorld('accord-daemon-durable-', () => ({ ...model.env(), ACCORD_APPROVAL_TIMEOUT: '1ms' }));
  after(() => world.cleanup());

  const project = () => {
    const dir = join(world.root, `project-${Math.random().toString(36).slice(2)}`);
    mkdirSync(dir);
    return dir;
  };
  const prompt = (h: ChildHarness, sessionId: string, text: string, meta?: unknown) =>
    h.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: text ? [{ type: 'text', text }] : [], ...(meta ? { _meta: { [KEY]: meta } } : {}) }) as Promise<{
      stopReason: string;
      _meta?: any;
    }>;
  const rpcCode = (promise: Promise<unknown>) => promise.then(() => undefined, (error: { code?: number }) => error.code);
  const durableBridge = async () => {
    const h = await world.bridge(['--durable-requests']);
    h.permissions.policy = neverAnswer;
    return h;
  };

  test('ends waiting; bad id or option refused; kill -9 of the daemon; a new daemon loads it; the answer on the next prompt runs the call', { timeout: 240_000 }, async () => {
    const cwd = project();
    const a = await durableBridge();
    const { sessionId, _meta: created } = await a.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    assert.equal(created?.['accord/durableRequests'], true);
    // Commands always ask (edits of the session's own copy are reviewed instead).
    model.server.script(reply.tool('c1', 'run_command', { argv: ['echo', 'approved through the daemon'] }));
    const response = await prompt(a, sessionId, 'say it');
    assert.equal(response.stopReason, 'waiting', 'the turn does not block on the approval');
    const pending = response._meta[KEY] as { requestId: string; toolCall: any; options: any[] };
    assert.match(pending.requestId, /^perm_/);
    assert.equal(pending.toolCall.toolCallId, 'c1');
    assert.deepEqual(pending.options.map((o) => o.optionId), ['allow_once', 'reject_once']);
    await waitFor('the question to reach the client', () => a.permissionRequests.length === 1);
    assert.deepEqual((a.permissionRequests[0] as any)._meta[KEY], { requestId: pending.requestId });

    // Refused, and nothing approved: the call is still pending afterwards.
    assert.equal(await rpcCode(prompt(a, sessionId, '', { requestId: 'perm_forged', optionId: 'allow_once' })), -32602);
    assert.equal(await rpcCode(prompt(a, sessionId, '', { requestId: pending.requestId, optionId: 'allow_always' })), -32602);
    assert.equal(await rpcCode(prompt(a, sessionId, '', { requestId: 42, optionId: 'allow_once' })), -32602);
    assert.ok(!updatesOf(a, sessionId, 'tool_call_update').some((u) => u.toolCallId === 'c1' && u.status === 'completed'), 'nothing ran');
    const status = JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout);
    assert.equal(status.sessions.find((s: any) => s.sessionId === sessionId)?.pendingPermissions, 1, 'daemon status counts the waiting approval');

    const first = world.daemonPid()!;
    process.kill(first, 'SIGKILL');
    await waitFor('the bridge to end with its daemon', () => a.child.exitCode !== null);
    assert.equal(pidAlive(first), false);

    const b = await durableBridge();
    assert.notEqual(world.daemonPid(), first, 'a new daemon serves');
    const loaded = (await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] })) as { _meta?: any };
    assert.equal(loaded._meta?.[KEY]?.requestId, pending.requestId, 'the load response names the pending approval');
    assert.equal(loaded._meta?.['accord/durableRequests'], true, "the session keeps its creator's flag");
    await waitFor('the question to be asked again', () => b.permissionRequests.length === 1);
    assert.equal((b.permissionRequests[0] as any)._meta[KEY].requestId, pending.requestId);
    assert.ok(!updatesOf(b, sessionId, 'tool_call_update').some((u) => u.toolCallId === 'c1' && u.status === 'failed'), 'the waiting call is not closed as interrupted');

    const before = model.server.requests.length;
    model.server.script(reply.text('Finished after the daemon restart.'));
    const answered = await prompt(b, sessionId, '', { requestId: pending.requestId, optionId: 'allow_once' });
    assert.equal(answered.stopReason, 'end_turn');
    assert.equal(updatesOf(b, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'c1').at(-1).status, 'completed');
    assert.match(JSON.stringify(model.server.requests[before]!.body.messages), /approved through the daemon/, 'the command ran and its output reached the model');
    assert.equal(await rpcCode(prompt(b, sessionId, '', { requestId: pending.requestId, optionId: 'allow_once' })), -32602, 'an answered approval cannot be answered again');
    await b.close();
  });

  test('two clients: both are asked; one answers from its dialog and the turn goes on for both; the other is told; a later prompt answer is refused', { timeout: 180_000 }, async () => {
    const cwd = project();
    const a = await durableBridge();
    const b = await durableBridge();
    const { sessionId } = await a.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    let click: () => void = () => undefined;
    const clicked = new Promise<void>((resolve) => (click = resolve));
    b.permissions.policy = async () => {
      await clicked; // the person clicks "Allow once" after the turn has ended
      return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
    };
    model.server.script(reply.tool('c2', 'run_command', { argv: ['echo', 'from the dialog'] }), reply.text('Ran it after B allowed it.'));
    const response = await prompt(a, sessionId, 'run it');
    assert.equal(response.stopReason, 'waiting');
    const { requestId } = response._meta[KEY];
    await waitFor('both clients to be asked', () => a.permissionRequests.length === 1 && b.permissionRequests.length === 1);
    assert.equal((b.permissionRequests[0] as any)._meta[KEY].requestId, requestId);

    click();
    await a.waitForUpdate((n) => n.update.sessionUpdate === 'agent_message_chunk' && (n.update as any).content.text === 'Ran it after B allowed it.');
    assert.equal(updatesOf(a, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'c2').at(-1).status, 'completed');
    const settled = await waitFor('A to be told', () => a.extNotifications.find((n) => n.method === '_accord/permission_settled'));
    assert.deepEqual(settled.params, { sessionId, toolCallId: 'c2', requestId, outcome: 'allow' });
    // No prompt carried this turn: both clients learn it started and ended.
    for (const h of [a, b]) {
      await waitFor('the turn-ended notice', () => h.extNotifications.find((n) => n.method === '_accord/turn_ended' && (n.params as any).stopReason === 'end_turn'));
      assert.ok(h.extNotifications.some((n) => n.method === '_accord/turn_started'));
    }
    assert.equal(await rpcCode(prompt(a, sessionId, '', { requestId, optionId: 'reject_once' })), -32602, 'the first answer won');
    assert.equal(messageText(b, sessionId).includes('Ran it after B allowed it.'), true);
    await a.close();
    await b.close();
  });

  test('a prompt answer withdraws every open dialog; reject tells the model and continues', { timeout: 180_000 }, async () => {
    const cwd = project();
    const a = await durableBridge();
    const b = await durableBridge();
    const { sessionId } = await a.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    let withdrawn = 0;
    for (const h of [a, b]) {
      h.permissions.policy = (request, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            withdrawn++;
            resolve({ outcome: { outcome: 'cancelled' } });
          }, { once: true }),
        );
    }
    model.server.script(reply.tool('c3', 'run_command', { argv: ['echo', 'never'] }));
    const response = await prompt(a, sessionId, 'run it');
    assert.equal(response.stopReason, 'waiting');
    await waitFor('both clients to be asked', () => a.permissionRequests.length === 1 && b.permissionRequests.length === 1);
    const before = model.server.requests.length;
    model.server.script(reply.text('Leaving it.'));
    const answered = await prompt(a, sessionId, '', { requestId: response._meta[KEY].requestId, optionId: 'reject_once' });
    assert.equal(answered.stopReason, 'end_turn');
    await waitFor('both dialogs to be withdrawn', () => withdrawn === 2);
    assert.match(JSON.stringify(model.server.requests[before]!.body.messages), /declined/);
    // B is another connection: what it is told arrives on its own, not before A's response.
    await waitFor('B to be told the answer', () => b.extNotifications.some((n) => n.method === '_accord/permission_settled' && (n.params as any).outcome === 'reject'));
    await waitFor('B to see the call failed', () => updatesOf(b, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'c3').at(-1)?.status === 'failed');
    await a.close();
    await b.close();
  });
});
