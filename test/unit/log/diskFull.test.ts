import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogWriteError, SessionStore } from '../../../agent/log';
import { LogWriter } from '../../../agent/log/writer';
import { chunk, newSession } from './fixtures';

/** A 64 KiB tmpfs, when this process may mount one (root, not in a locked-down container). */
async function tinyDisk(): Promise<{ dir: string; unmount: () => Promise<void> } | undefined> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'accord-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    await rmdir(dir);
    return undefined;
  }
  return {
    dir,
    unmount: async () => {
      execFileSync('umount', [dir]);
      await rmdir(dir);
    },
  };
}

const isFull = (error: unknown) => error instanceof LogWriteError && error.code === 'write_failed' && error.errno === 'ENOSPC' && /disk or quota is full/.test(error.message);

describe('write errors surface', () => {
  test('a full disk (real 64 KiB tmpfs) breaks the log loudly, keeps every committed record, and recovers after space is freed', async (t) => {
    const disk = await tinyDisk();
    if (!disk) {
      t.skip('cannot mount a tmpfs here (needs root on Linux); the /dev/full test below covers ENOSPC');
      return;
    }
    try {
      await writeFile(join(disk.dir, 'ballast'), Buffer.alloc(16 * 1024));
      const store = new SessionStore(disk.dir);
      const log = await store.create({ ...newSession(), id: 'full' });
      const failures: LogWriteError[] = [];
      log.onFailure((error) => failures.push(error));
      const committed: number[] = [];
      let thrown: unknown;
      for (let i = 0; i < 10_000 && !thrown; i++) {
        try {
          const at = log.append(chunk(`chunk ${i} `.padEnd(200, '.')), { durable: i % 10 === 0 });
          at.committed.then(() => committed.push(at.seq), () => undefined);
          if (i % 10 === 0) await at.committed;
        } catch (error) {
          thrown = error;
        }
      }
      assert.ok(isFull(thrown), `expected ENOSPC, got ${String(thrown)}`);
      assert.equal(failures.length, 1, 'listeners hear it once');
      assert.equal(log.failure, thrown);
      assert.throws(() => log.append(chunk('more')), isFull, 'every later append throws');
      await assert.rejects(log.sync(), isFull);
      await assert.rejects(log.close(), isFull);

      const seqs: number[] = [];
      for await (const entry of store.read('full', { onPartialTail: () => assert.fail('the failed batch was cut back') })) seqs.push(entry.record.seq);
      assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1));
      for (const seq of committed) assert.ok(seqs.includes(seq), `committed record ${seq} is on disk`);

      await rm(join(disk.dir, 'ballast'));
      const reopened = await store.open('full');
      reopened.append(chunk('after freeing space'), { durable: true });
      await reopened.close();
      const replay = await store.replay('full');
      assert.equal((replay.updates.at(-1)!.update.content as { text: string }).text, 'after freeing space');
    } finally {
      await disk.unmount();
    }
  });

  test('ENOSPC from the kernel (/dev/full) rejects committed, breaks the writer, and later appends throw', { skip: process.platform !== 'linux' }, async () => {
    const writer = await LogWriter.open('/dev/full', { size: 0, nextSeq: 1 });
    const first = writer.append(chunk('lost'));
    const second = writer.append(chunk('also lost'), { durable: true });
    await assert.rejects(first.committed, isFull);
    await assert.rejects(second.committed, isFull);
    assert.ok(isFull(writer.failure));
    assert.throws(() => writer.append(chunk('refused')), isFull);
    await assert.rejects(writer.close(), isFull);
  });
});
