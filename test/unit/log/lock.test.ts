import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { LogError, LogLockedError, SessionStore } from '../../../agent/log';
import { startChild } from './child/spawnChild';
import { chunk, newSession, tempDataDir } from './fixtures';

const isLocked = (pid: number) => (error: unknown) =>
  error instanceof LogLockedError && error.code === 'locked' && error.holderPid === pid && error.message.includes(`pid ${pid}`);

describe('one writer per log', () => {
  test('a second process is refused with the holder pid; after kill -9 the stale lock is taken over', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      await (await store.create({ ...newSession(), id: 'shared' })).close();
      const holder = startChild('hold', dir, 'shared');
      try {
        await holder.waitFor((line) => line.startsWith('ready'));
        const pid = holder.process.pid!;
        await assert.rejects(store.open('shared'), isLocked(pid));
        await assert.rejects(store.remove('shared'), isLocked(pid), 'remove is refused while in use');

        // The refusal holds across processes both ways: a third process is refused too.
        const third = startChild('open', dir, 'shared');
        const outcome = JSON.parse(await third.waitFor((line) => line.startsWith('{'))) as { ok: boolean; code: string; holder: number };
        assert.deepEqual([outcome.ok, outcome.code, outcome.holder], [false, 'locked', pid]);
      } finally {
        await holder.kill9();
      }
      const lock = JSON.parse(await readFile(`${store.pathOf('shared')}.lock`, 'utf8')) as { pid: number };
      assert.equal(lock.pid, holder.process.pid, 'kill -9 left the lock behind');

      const log = await store.open('shared');
      assert.equal((JSON.parse(await readFile(`${store.pathOf('shared')}.lock`, 'utf8')) as { pid: number }).pid, process.pid);
      log.append(chunk('after the takeover'));
      // While this process holds it, a child is refused with this pid.
      const child = startChild('open', dir, 'shared');
      const outcome = JSON.parse(await child.waitFor((line) => line.startsWith('{'))) as { ok: boolean; holder: number };
      assert.deepEqual([outcome.ok, outcome.holder], [false, process.pid]);
      await log.close();
      const after = startChild('open', dir, 'shared');
      assert.deepEqual(JSON.parse(await after.waitFor((line) => line.startsWith('{'))), { ok: true });
    } finally {
      await cleanup();
    }
  });

  test('opening twice in one process is refused; close releases; a damaged lock file is stale', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'twice' });
      await assert.rejects(store.open('twice'), (e: unknown) => isLocked(process.pid)(e) && (e as Error).message.includes('this process'));
      await log.close();
      const again = await store.open('twice');
      await again.close();

      await writeFile(`${store.pathOf('twice')}.lock`, 'half a lo');
      const overDamaged = await store.open('twice');
      await overDamaged.close();
      await assert.rejects(readFile(`${store.pathOf('twice')}.lock`), /ENOENT/, 'close removes the lock file');
    } finally {
      await cleanup();
    }
  });

  test('a lock naming a live pid on this host is honoured even if it is not an Accord process', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      await (await store.create({ ...newSession(), id: 'foreign' })).close();
      // pid 1 is alive in every container and is not us.
      const { hostname } = await import('node:os');
      await writeFile(`${store.pathOf('foreign')}.lock`, JSON.stringify({ pid: 1, host: hostname(), acquiredAt: new Date().toISOString() }));
      await assert.rejects(store.open('foreign'), isLocked(1));
      await writeFile(`${store.pathOf('foreign')}.lock`, JSON.stringify({ pid: 1, host: 'another-machine', acquiredAt: '' }));
      await assert.rejects(store.open('foreign'), (e: unknown) => e instanceof LogError && e.message.includes('another-machine'));
    } finally {
      await cleanup();
    }
  });
});
