// Sessions shared by several clients of one daemon, over real bridges and a
// real socket: streams fan out, config is mirrored, a prompt shows up as a
// user message for the others, approvals go to every client (first answer
// wins), and a client leaving (close, disconnect, kill) never stops the turn.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor, messageText, neverAnswer, updatesOf, type ChildHarness } from '../agent/harness';
import { daemonWorld, ensureBuilt, waitFor } from './fixtures';

before(() => ensureBuilt());

describe('two clients on one live session', () => {
  const model = fakeModelFor('accord-shared-config-');
  const world = daemonWorld('accord-shared-', () => model.env());
  after(() => world.cleanup());

  const project = () => {
    const dir = join(world.root, `project-${Math.random().toString(36).slice(2)}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'draft\n');
    return dir;
  };
  const newSession = async (h: ChildHarness, cwd: string) => (await h.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId;
  const status = async () => JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout);

  test('A prompts and B sees the stream; a config change is mirrored; B answers the approval and A is told it is settled', { timeout: 120_000 }, async () => {
    const cwd = project();
    const a = await world.bridge();
    const b = await world.bridge();
    a.permissions.policy = neverAnswer;
    const sessionId = await newSession(a, cwd);
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });

    const effort = await a.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: 'reasoning_effort', value: 'high' });
    assert.ok(effort.configOptions);
    await b.waitForUpdate((n) => n.update.sessionUpdate === 'config_option_update' && JSON.stringify(n.update).includes('"currentValue":"high"'));

    // Commands always ask (edits of the session's own copy do not).
    model.server.script(reply.tool('w1', 'run_command', { argv: ['echo', 'finished'] }), reply.text('Edited it.'));
    const prompt = a.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'finish the notes' }] });
    const seen = await b.waitForUpdate((n) => n.update.sessionUpdate === 'user_message_chunk');
    assert.equal((seen.update as any).content.text, 'finish the notes', "B sees A's prompt as a user message");
    await waitFor('both clients to be asked', () => a.permissionRequests.length === 1 && b.permissionRequests.length === 1);
    assert.equal(a.permissionRequests[0]!.toolCall.toolCallId, b.permissionRequests[0]!.toolCall.toolCallId);
    // B's policy is allowOnce, but it answered as soon as it was asked: it wins; A's open question is withdrawn.
    assert.equal((await prompt).stopReason, 'end_turn');
    const settled = await waitFor('A to be told', () => a.extNotifications.find((n) => n.method === '_accord/permission_settled'));
    assert.deepEqual(settled.params, { sessionId, toolCallId: 'w1', outcome: 'allow' });
    assert.equal(b.extNotifications.filter((n) => n.method === '_accord/permission_settled').length, 0, 'the client that answered is not told');
    await b.waitForUpdate((n) => n.update.sessionUpdate === 'agent_message_chunk' && (n.update as any).content.text === 'Edited it.');
    assert.equal(messageText(a, sessionId), 'Edited it.');
    assert.equal(updatesOf(a, sessionId, 'user_message_chunk').length, 0, 'the prompting client is not sent its own prompt back');
    await a.close();
    await b.close();
  });

  test('the other clients are told a turn started and ended; list and load say the session is running', { timeout: 120_000 }, async () => {
    const cwd = project();
    const a = await world.bridge();
    const b = await world.bridge();
    const sessionId = await newSession(a, cwd);
    await b.connection.agent.request(methods.agent.session.resume, { sessionId, cwd, mcpServers: [] });
    model.server.script({ type: 'stream', parts: [{ text: 'working ' }, { text: 'done' }], stallAfterParts: 1 });
    const prompt = a.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'work' }] });
    await waitFor('B to hear the turn start', () => b.extNotifications.find((n) => n.method === '_accord/turn_started'));
    const listed = await b.connection.agent.request(methods.agent.session.list, { cwd });
    assert.equal((listed.sessions.find((x) => x.sessionId === sessionId)?._meta as any)?.['accord/running'], true, 'session/list marks it running');
    const table = await world.cli(['sessions', 'list']);
    assert.match(table.stdout, new RegExp(`${sessionId}\\s+running \\(2 clients\\)`), 'accord sessions list shows live state');
    const json = JSON.parse((await world.cli(['sessions', 'list', '--json'])).stdout);
    assert.deepEqual(json.find((x: any) => x.sessionId === sessionId).live, { turnRunning: true, clients: 2, pendingPermissions: 0 });
    const c = await world.bridge();
    const loaded = await c.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    assert.equal((loaded._meta as any)?.['accord/running'], true, 'a client joining mid-turn is told');
    await a.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    assert.equal((await prompt).stopReason, 'cancelled');
    const ended = await waitFor('B to hear the turn end', () => b.extNotifications.find((n) => n.method === '_accord/turn_ended'));
    assert.deepEqual(ended.params, { sessionId, stopReason: 'cancelled' });
    assert.equal(a.extNotifications.filter((n) => n.method.startsWith('_accord/turn_')).length, 0, 'the prompting client has its own response');
    const after = await b.connection.agent.request(methods.agent.session.list, { cwd });
    assert.equal(after.sessions.find((x) => x.sessionId === sessionId)?._meta, undefined);
    await a.close();
    await b.close();
    await c.close();
  });

  test('each client gets the updates it can read: a compaction is a compaction_update for the client that advertised it and a message for the other, live and on load', { timeout: 120_000 }, async () => {
    const cwd = project();
    const a = await world.bridge([], {}, { session: { compaction: {} } });
    const b = await world.bridge();
    const sessionId = await newSession(a, cwd);
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    model.server.script(reply.text('An answer about apples.'));
    await a.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'tell me about apples' }] });
    model.server.script(reply.text('SUMMARY: apples were discussed.'));
    const { stopReason } = await a.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: '/compact' }] });
    assert.equal(stopReason, 'end_turn');
    assert.deepEqual(updatesOf(a, sessionId, 'compaction_update').map((u) => u.status), ['in_progress', 'completed']);
    await waitFor('B to read the summary as a message', () => /compacted[\s\S]*SUMMARY: apples were discussed/.test(messageText(b, sessionId)));
    assert.equal(updatesOf(b, sessionId, 'compaction_update').length, 0, 'B never advertised session.compaction');
    assert.equal(updatesOf(b, sessionId, 'compaction_summary_chunk').length, 0);
    // A client joining the live session later gets its replay shaped the same way.
    const c = await world.bridge();
    await c.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    assert.equal(updatesOf(c, sessionId, 'compaction_update').length, 0);
    assert.match(messageText(c, sessionId), /compacted[\s\S]*SUMMARY: apples were discussed/);
    await a.close();
    await b.close();
    await c.close();
  });

  test("B's prompt during A's turn is queued, not refused: it runs next with A's exchange in its history, and A sees it and hears its turn", { timeout: 120_000 }, async () => {
    const cwd = project();
    const a = await world.bridge();
    const b = await world.bridge();
    const sessionId = await newSession(a, cwd);
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    const first = model.server.requests.length;
    model.server.script(reply.text('first answer', { delayMs: 200 }), reply.text('second answer'));
    const one = a.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'first question' }] });
    await model.server.waitForRequests(first + 1);
    const two = b.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'second question' }] });
    assert.deepEqual((await Promise.all([one, two])).map((r) => r.stopReason), ['end_turn', 'end_turn']);
    assert.match(JSON.stringify(model.server.requests[first + 1]!.body.messages), /first question[\s\S]*first answer[\s\S]*second question/);
    const seen = await waitFor("A to see B's prompt", () => updatesOf(a, sessionId, 'user_message_chunk').find((u) => u.content?.text === 'second question'));
    assert.equal(seen._meta?.['accord/fromAnotherClient'], true);
    await waitFor("A to hear B's turn end", () => a.extNotifications.find((n) => n.method === '_accord/turn_ended'));
    await waitFor('both to have both answers', () => messageText(a, sessionId) === 'first answersecond answer' && messageText(b, sessionId) === 'first answersecond answer');
    await a.close();
    await b.close();
  });

  test('the creator’s --always-approve is in the session _meta for every client, and a joining client cannot widen it', { timeout: 120_000 }, async () => {
    const cwd = project();
    const a = await world.bridge(['--always-approve']);
    const b = await world.bridge();
    const created = await a.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    assert.equal((created._meta as any)?.['accord/alwaysApprove'], true);
    const loaded = await b.connection.agent.request(methods.agent.session.load, { sessionId: created.sessionId, cwd, mcpServers: [] });
    assert.equal((loaded._meta as any)?.['accord/alwaysApprove'], true);
    const own = await b.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    assert.equal((own._meta as any)?.['accord/alwaysApprove'], undefined, "B's own session is not widened by A's flag");
    await a.close();
    await b.close();
  });

  test('--project is the directory of a session that names none; --model picks the model of the sessions it creates', { timeout: 120_000 }, async () => {
    const cwd = project();
    const model2 = `openai-compatible:${model.server.baseUrl}#other`;
    const a = await world.bridge(['--project', cwd, '--model', model2]);
    const created = await a.connection.agent.request(methods.agent.session.new, { cwd: '', mcpServers: [] });
    const listed = await a.connection.agent.request(methods.agent.session.list, { cwd });
    assert.ok(listed.sessions.some((x) => x.sessionId === created.sessionId), 'the session works in --project');
    const modelOption = created.configOptions?.find((o) => o.id === 'model') as { currentValue?: string } | undefined;
    assert.equal(modelOption?.currentValue, model2);
    await a.close();
  });

  test("each client's own model settings and keys apply to what it does, whoever started the daemon", { timeout: 120_000 }, async () => {
    await world.stopDaemon();
    // The daemon starts with an environment whose model is unreachable...
    const first = await world.bridge([], { ACCORD_MODEL: 'openai-compatible:http://127.0.0.1:9/v1#nowhere' });
    const second = await world.bridge();
    const cwd = project();
    const sessionId = await newSession(second, cwd);
    model.server.script(reply.text('Reached with my own settings.'));
    const { stopReason } = await second.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    assert.equal(stopReason, 'end_turn', '...the second client reaches the model its own environment names');
    assert.equal(messageText(second, sessionId), 'Reached with my own settings.');
    await first.close();
    await second.close();
  });

  test('a bridge killed mid-turn does not stop it: the turn finishes in the daemon and a new bridge loads it finished', { timeout: 120_000 }, async () => {
    const cwd = project();
    const a = await world.bridge();
    const sessionId = await newSession(a, cwd);
    model.server.script({ type: 'stream', parts: Array.from({ length: 30 }, (_, i) => ({ text: `w${i} ` })), delayMs: 30 });
    void a.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'write a lot' }] }).catch(() => undefined);
    await waitFor('a few chunks', () => updatesOf(a, sessionId, 'agent_message_chunk').length >= 3);
    a.child.kill('SIGKILL');
    await waitFor('the turn to finish in the daemon', async () => {
      const s = await status();
      return s.sessions.every((x: any) => x.sessionId !== sessionId || !x.turnRunning);
    });
    const c = await world.bridge();
    await c.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    assert.equal(messageText(c, sessionId), Array.from({ length: 30 }, (_, i) => `w${i} `).join(''), 'the whole reply was produced and recorded');
    assert.ok(!c.updates.some((n) => JSON.stringify(n.update).includes('interrupted')), 'nothing was interrupted');
    await c.close();
  });

  test('session/close forgets the session for that client only; the turn goes on for the other', { timeout: 120_000 }, async () => {
    const cwd = project();
    const a = await world.bridge();
    const b = await world.bridge();
    const sessionId = await newSession(a, cwd);
    await b.connection.agent.request(methods.agent.session.resume, { sessionId, cwd, mcpServers: [] });
    model.server.script({ type: 'stream', parts: Array.from({ length: 20 }, (_, i) => ({ text: `p${i} ` })), delayMs: 30 });
    const prompt = b.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    await waitFor('A to see chunks', () => updatesOf(a, sessionId, 'agent_message_chunk').length >= 2);
    await a.connection.agent.request(methods.agent.session.close, { sessionId });
    const seenByA = updatesOf(a, sessionId, 'agent_message_chunk').length;
    assert.equal((await prompt).stopReason, 'end_turn');
    assert.equal(updatesOf(b, sessionId, 'agent_message_chunk').length, 20);
    assert.ok(updatesOf(a, sessionId, 'agent_message_chunk').length <= seenByA + 1, 'A stopped receiving after close');
    await a.close();
    await b.close();
  });

  test('an approval with no client attached waits and is asked of the next client that loads the session', { timeout: 120_000 }, async () => {
    const cwd = project();
    const a = await world.bridge();
    a.permissions.policy = neverAnswer;
    const sessionId = await newSession(a, cwd);
    model.server.script(reply.tool('w2', 'run_command', { argv: ['echo', 'done'] }), reply.text('Done.'));
    void a.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'edit' }] }).catch(() => undefined);
    await waitFor('A to be asked', () => a.permissionRequests.length === 1);
    a.child.kill('SIGKILL');
    await waitFor('the daemon to notice', async () => (await status()).clients === 0);
    const waiting = (await status()).sessions.find((x: any) => x.sessionId === sessionId);
    assert.equal(waiting.turnRunning, true);
    assert.equal(waiting.pendingPermissions, 1);
    const c = await world.bridge();
    await c.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    await waitFor('C to be asked again', () => c.permissionRequests.length === 1);
    assert.equal(c.permissionRequests[0]!.toolCall.toolCallId, 'w2');
    await c.waitForUpdate((n) => n.update.sessionUpdate === 'agent_message_chunk' && (n.update as any).content.text === 'Done.');
    await c.close();
  });
});
