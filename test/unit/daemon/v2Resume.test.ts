// Clients of both versions on one daemon session, over real bridges: a v2
// client that drops mid-turn (its process killed) at offset N resumes with
// `after: N` and gets exactly the events after N, the rest of the turn live,
// and the idle state when it ends; a v1 client watching the same session
// meanwhile gets the same updates with the same offsets. A v2 prompt's id is
// the same for its client, the others watching, and a replay.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor } from '../agent/harness';
import { childV2, type V2Harness } from '../agent/v2Harness';
import { daemonWorld, ensureBuilt, waitFor } from './fixtures';

before(() => ensureBuilt());

const offsetOf = (update: unknown) => ((update as { _meta?: Record<string, unknown> })._meta ?? {})['accord/logOffset'] as number | undefined;
const decode = (data: string) => Buffer.from(data, 'base64').toString('utf8');

describe('v2 resume through the daemon', () => {
  const model = fakeModelFor('accord-v2d-config-');
  const world = daemonWorld('accord-v2d-', () => model.env());
  const clients: V2Harness[] = [];
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await world.cleanup();
  });
  const v2Client = async () => {
    const c = childV2(world.env, [], { bridge: true });
    clients.push(c);
    assert.equal((await c.initialize(2)).protocolVersion, 2);
    return c;
  };
  const ofSession = (c: V2Harness, sessionId: string, from = 0) => c.updates.slice(from).filter((n) => n.sessionId === sessionId).map((n) => n.update as any);

  test('a v2 client killed mid-turn at offset N resumes after N and gets exactly what followed; a v1 client sees the same offsets', { timeout: 180_000 }, async () => {
    const project = join(world.root, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'notes.txt'), 'draft\n');
    const gate = join(world.root, 'release');
    // The command prints, then waits for the test to release it: the turn is mid-command while the client drops.
    const waitingCommand = `console.log("waiting"); const t = setInterval(() => { if (require("fs").existsSync(${JSON.stringify(gate)})) { console.log("released"); clearInterval(t); } }, 50);`;

    const a = await v2Client();
    const { sessionId } = await a.connection.agent.request(v2.methods.agent.session.new, { cwd: project });
    model.server.script(reply.tool('c1', 'run_command', { argv: [process.execPath, '-e', waitingCommand] }), reply.text('The command finished.'));
    await a.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'run it' }] });
    await a.waitForUpdate((n) => n.update.sessionUpdate === 'terminal_output_chunk' && decode((n.update as any).data).includes('waiting'));
    const seen = ofSession(a, sessionId).map(offsetOf).filter((o): o is number => o !== undefined);
    const cut = Math.max(...seen);
    a.child.kill('SIGKILL'); // the network is gone mid-turn

    // A v1 client watches the session meanwhile (load: the replay, then live).
    const c1 = await world.bridge();
    await c1.connection.agent.request(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });

    const b = await v2Client();
    await b.connection.agent.request(v2.methods.agent.session.resume, { sessionId, cwd: project, replayFrom: { type: '_accord_offset', after: cut } as never });
    // (Sent before the response; over stdio the SDK client may hand the notification over just after it.)
    await b.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'state_update');
    const resumed = ofSession(b, sessionId);
    assert.deepEqual(resumed.at(-1), { sessionUpdate: 'state_update', state: 'running' }, 'the turn still runs');
    assert.ok(resumed.every((u) => offsetOf(u) === undefined || offsetOf(u)! > cut), 'nothing at or before the offset is sent again');

    writeFileSync(gate, '');
    await b.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'state_update' && (n.update as any).state === 'idle');
    const afterCut = ofSession(b, sessionId).filter((u) => u.sessionUpdate !== 'state_update');
    assert.ok(afterCut.some((u) => u.sessionUpdate === 'terminal_update' && u.exitStatus?.exitCode === 0), 'the command ends in the resumed view');
    assert.ok(afterCut.some((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.text === 'The command finished.'));

    // The reference: a client resuming from the start after the turn, cut at N.
    const d = await v2Client();
    await d.connection.agent.request(v2.methods.agent.session.resume, { sessionId, cwd: project, replayFrom: { type: 'start' } });
    await d.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'state_update'); // the replay's last word
    const reference = ofSession(d, sessionId).filter((u) => u.sessionUpdate !== 'state_update' && offsetOf(u) !== undefined && offsetOf(u)! > cut);
    const recorded = afterCut.filter((u) => offsetOf(u) !== undefined);

    assert.deepEqual(recorded, reference, 'exactly the events after N, with the ids and output the full replay gives');
    const output = reference.filter((u) => u.sessionUpdate === 'terminal_output_chunk' || u.output).map((u) => decode(u.data ?? u.output.data)).join('');
    assert.match(output, /released/);
    assert.doesNotMatch(output, /waiting/, 'the output the client had before it dropped is not sent again');

    // The v1 client got the same updates, each with its offset: v1 and v2 agree on where every event is.
    await waitFor('the v1 client to see the turn end', () => c1.updates.some((n) => n.update.sessionUpdate === 'agent_message_chunk' && (n.update as any).content.text === 'The command finished.'));
    const v1Offsets = new Set(c1.updates.filter((n) => n.sessionId === sessionId).map((n) => offsetOf(n.update)).filter((o) => o !== undefined));
    for (const u of reference) assert.ok(v1Offsets.has(offsetOf(u)!), `the v1 client has offset ${offsetOf(u)} (${u.sessionUpdate}) too`);
  });
  test('a v2 prompt has one id everywhere: the response, the other clients of the session (v2 and v1), and a later replay', { timeout: 180_000 }, async () => {
    const project = join(world.root, 'project-ids');
    mkdirSync(project);
    const a = await v2Client();
    const { sessionId } = await a.connection.agent.request(v2.methods.agent.session.new, { cwd: project });
    const b = await v2Client();
    await b.connection.agent.request(v2.methods.agent.session.resume, { sessionId, cwd: project, replayFrom: { type: 'start' } });
    const c1 = await world.bridge();
    await c1.connection.agent.request(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });

    model.server.script(reply.text('Shared answer.'));
    const from = a.updates.length;
    const { messageId } = await a.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'one id' }] });
    assert.match(messageId, /^user-\d+$/);
    await a.idleAfter(sessionId, from);
    const mine = ofSession(a, sessionId, from).filter((u) => u.sessionUpdate === 'user_message');
    assert.deepEqual(mine.map((u) => u.messageId), [messageId]);

    const watched = await b.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'user_message_chunk' && (n.update as any).content.text === 'one id');
    assert.equal((watched.update as any).messageId, messageId, 'the other v2 client shows the prompt under the same id');
    await waitFor('the v1 client to see the prompt', () => c1.updates.some((n) => n.update.sessionUpdate === 'user_message_chunk'));
    const v1Prompt = c1.updates.find((n) => n.update.sessionUpdate === 'user_message_chunk')!;
    assert.equal(`user-${offsetOf(v1Prompt.update)}`, messageId, 'the v1 client has the prompt at the offset the id names');

    const d = await v2Client();
    const replayFrom = d.updates.length;
    await d.connection.agent.request(v2.methods.agent.session.resume, { sessionId, cwd: project, replayFrom: { type: 'start' } });
    await d.waitForUpdate((n) => d.updates.indexOf(n) >= replayFrom && n.update.sessionUpdate === 'state_update');
    assert.deepEqual(ofSession(d, sessionId, replayFrom).filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => u.messageId), [messageId]);
  });
});
