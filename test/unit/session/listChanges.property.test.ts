// listChanges keeps a private index between calls and skips `git add` when
// git's stat and racy checks see nothing changed since. Whatever the agent
// does between two lists (same-size edits in the same second included), the
// list must equal one made from a fresh index.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { mkdir, rm, truncate, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { createWorkspace } from '../../../agent/session/isolated';
import { listChanges } from '../../../agent/session/isolatedDiff';
import { REVIEW_LIMIT_BYTES } from '../../../agent/session/safeFs';

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'accord-listprop-')));
after(() => rm(dir, { recursive: true, force: true }));

const NAMES = ['a.txt', 'b.txt', 'd/c.txt', 'd/e.txt', 'big.bin'];
const step = fc.oneof(
  fc.record({ op: fc.constant('write' as const), name: fc.constantFrom(...NAMES), text: fc.constantFrom('one\n', 'two\n', 'ONE\n', 'three 3\n') }),
  fc.record({ op: fc.constant('remove' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ op: fc.constant('huge' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ op: fc.constant('list' as const) }),
);

let runs = 0;
test('after any steps, the incremental list equals a list from a fresh index', { timeout: 600_000 }, async () => {
  const repo = path.join(dir, 'repo');
  await mkdir(path.join(repo, 'd'), { recursive: true });
  for (const name of ['a.txt', 'd/c.txt']) await writeFile(path.join(repo, name), 'one\n');
  execFileSync('git', ['init', '-q'], { cwd: repo });
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base'], { cwd: repo });
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
      const ws = await createWorkspace({ sessionId: `p${++runs}`, source: repo, dataDir: path.join(dir, 'data') });
      const sorted = (list: Awaited<ReturnType<typeof listChanges>>) => list.map((c) => JSON.stringify(c)).sort();
      for (const s of [...steps, { op: 'list' as const }]) {
        const file = 'name' in s ? path.join(ws.workTree, s.name) : '';
        if (s.op === 'write') await mkdir(path.dirname(file), { recursive: true }).then(() => writeFile(file, s.text));
        if (s.op === 'remove') await unlink(file).catch(() => undefined);
        if (s.op === 'huge') await mkdir(path.dirname(file), { recursive: true }).then(() => writeFile(file, '')).then(() => truncate(file, REVIEW_LIMIT_BYTES + 1));
        if (s.op !== 'list') continue;
        const incremental = await listChanges(ws);
        await rm(path.join(ws.privateDir, 'index'), { force: true });
        assert.deepEqual(sorted(incremental), sorted(await listChanges(ws)));
      }
      await rm(path.join(dir, 'data', 'sessions', `p${runs}`), { recursive: true, force: true });
    }),
    { numRuns: 25 },
  );
});

/** Resolves at the start of the next wall-clock second: git compares file times in whole seconds. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));

// Found by the property above: an oversized file makes listChanges write the
// private index with update-index, which (run outside the work tree) could not
// mark racily clean entries. In a later second the rewritten index looked newer
// than a same-size edit made in the second of the checkout, and the edit was lost.
test('a same-size edit in the second of the checkout is listed after an oversized file made the index be rewritten in a later second', async () => {
  const repo = path.join(dir, 'racy');
  await mkdir(repo, { recursive: true });
  await writeFile(path.join(repo, 'a.txt'), 'one\n');
  execFileSync('git', ['init', '-q'], { cwd: repo });
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base'], { cwd: repo });
  for (let attempt = 0; attempt < 3; attempt++) {
    await nextSecond();
    const ws = await createWorkspace({ sessionId: `racy${attempt}`, source: repo, dataDir: path.join(dir, 'data') });
    const huge = path.join(ws.workTree, 'huge.bin');
    await writeFile(huge, '');
    await truncate(huge, REVIEW_LIMIT_BYTES + 1);
    await writeFile(path.join(ws.workTree, 'a.txt'), 'ONE\n');
    await nextSecond();
    const listed = (await listChanges(ws)).map((c) => `${c.status} ${c.path}`).sort();
    assert.deepEqual(listed, ['added huge.bin', 'modified a.txt']);
  }
});
