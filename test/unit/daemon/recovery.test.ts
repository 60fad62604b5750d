// kill -9 of the daemon mid-turn: the bridge reports it and ends, the next
// bridge starts a new daemon, the log marks the interrupted turn, a load
// gives back at least every chunk the client saw, and the replay ends the
// turn with a visible message saying when it stopped.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { reply } from '../../fakeModelServer/index';
import { SessionStore } from '../../../agent/log';
import { fakeModelFor, type Harness } from '../agent/harness';
import { daemonWorld, ensureBuilt, pidAlive, waitFor } from './fixtures';

before(() => ensureBuilt());

describe('daemon killed with -9 mid-turn', () => {
  const model = fakeModelFor('accord-recovery-config-');
  const world = daemonWorld('accord-recovery-', () => model.env());
  after(() => world.cleanup());
  const texts = (h: Harness, sessionId: string) =>
    h.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk').map((n) => (n.update as any).content.text as string);

  test('what a client saw, the log has; the next bridge starts a new daemon; the replay says the turn was interrupted', { timeout: 180_000 }, async () => {
    const cwd = join(world.root, 'project');
    mkdirSync(cwd);
    const a = await world.bridge();
    const { sessionId } = await a.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    model.server.script({ type: 'stream', parts: Array.from({ length: 200 }, (_, i) => ({ text: `c${i} ` })), delayMs: 15 });
    void a.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'stream a lot' }] }).catch(() => undefined);
    await waitFor('chunks to flow', () => texts(a, sessionId).length >= 30);
    const first = world.daemonPid()!;
    process.kill(first, 'SIGKILL');
    const code = await new Promise<number | null>((resolve) => (a.child.exitCode !== null ? resolve(a.child.exitCode) : a.child.on('exit', (c) => resolve(c))));
    assert.equal(code, 1, 'the bridge ends when its daemon dies (the editor restarts it)');
    assert.match(a.stderr.join(''), /the daemon closed the connection/);
    const seen = texts(a, sessionId);
    assert.equal(pidAlive(first), false);

    const b = await world.bridge();
    const second = world.daemonPid()!;
    assert.notEqual(second, first, 'a new daemon serves');
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    const replayed = texts(b, sessionId);
    const notice = replayed.at(-1)!;
    const chunks = replayed.slice(0, -1);
    assert.ok(chunks.length >= seen.length, `the load gave back ${chunks.length} chunks; the client had seen ${seen.length}`);
    assert.deepEqual(chunks.slice(0, seen.length), seen, 'the same chunks, in order');
    assert.match(notice, /This turn was interrupted: the agent stopped \(crashed or was killed\) at \d{4}-\d\d-\d\dT[\d:.]+Z/);
    const last = b.updates.at(-1)!.update as any;
    assert.ok(last._meta['accord/interrupted'].stoppedAt);

    const types: string[] = [];
    for await (const { record } of new SessionStore(world.home).read(sessionId)) types.push(record.type);
    assert.ok(types.includes('interrupted'), 'the log marks the interrupted turn');

    model.server.script(reply.text('Picking up again.'));
    const next = await b.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'continue' }] });
    assert.equal(next.stopReason, 'end_turn');
    await b.close();
  });
});
