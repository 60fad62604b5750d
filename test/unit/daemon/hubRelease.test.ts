// A session leaves the daemon's memory when its last client goes, and its log
// and workspace are released after that, asynchronously. A load arriving in
// between must wait for the release: it would otherwise open a log the daemon
// still holds ("already open in this process").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionHub, type HubDeps } from '../../../agent/daemon/hub';
import type { Session } from '../../../agent/core/session';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function hubWith(releaseLog: () => Promise<void>) {
  const order: string[] = [];
  const deps = {
    live: { remove: (id: string) => order.push(`live.remove ${id}`), get: () => undefined },
    isolation: { isPreparing: () => false, release: async (id: string) => void order.push(`workspace ${id}`), get: () => undefined },
    persistence: { release: async (id: string) => { order.push(`log ${id} start`); await releaseLog(); order.push(`log ${id} done`); } },
    logs: {},
    approvalTimeoutMs: 1000,
    onMaybeIdle: () => undefined,
  } as unknown as HubDeps;
  const hub = new SessionHub(deps);
  const session = { id: 's1', cwd: '/p', turnRunning: false, waitingPrompts: 0, pendingPermissions: new Map() } as unknown as Session;
  hub.ensure(session, {});
  return { hub, order };
}

test('a load waits until a session that left memory has released its log', async () => {
  const log = deferred();
  const { hub, order } = hubWith(() => log.promise);
  const leaving = hub.maybeRelease('s1');
  assert.equal(hub.sessions.has('s1'), false, 'the session left memory at once');
  let released = false;
  const waiting = hub.connect({ flags: {} }).released('s1').then(() => (released = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(released, false, 'the log is still held: the load waits');
  log.resolve();
  await waiting;
  await leaving;
  assert.deepEqual(order, ['live.remove s1', 'workspace s1', 'log s1 start', 'log s1 done']);
  assert.equal(released, true);
});

test('a release that fails does not fail the load waiting for it; nothing is waited for afterwards', async () => {
  const log = deferred();
  const { hub } = hubWith(() => log.promise);
  const leaving = hub.maybeRelease('s1').catch((error: Error) => error);
  const waiting = hub.released('s1');
  log.reject(new Error('disk gone'));
  await waiting;
  assert.equal(((await leaving) as Error).message, 'disk gone', 'the release reports its own failure');
  await hub.released('s1');
  await hub.released('never-seen');
});
