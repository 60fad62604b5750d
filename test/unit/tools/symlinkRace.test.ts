// Security matrix E.30(e): while a racer keeps swapping a workspace directory
// with a symlink to the outside, writes through it must never land outside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { writeExactly } from '../../../agent/tools/textFiles';
import { makeSandbox } from './fixtures';

const RACER = `
const fs = require('fs');
const [ws, outside] = process.argv.slice(1);
const dir = ws + '/dir', real = ws + '/dir_real', link = ws + '/dir_link';
fs.mkdirSync(real);
fs.symlinkSync(outside, link);
console.log('ready');
for (;;) {
  for (const [from, to] of [[real, dir], [dir, real], [link, dir], [dir, link]]) {
    try { fs.renameSync(from, to); } catch {}
  }
}`;

test('2,000 writes while a directory is swapped with a symlink to outside: nothing is written outside', { timeout: 300_000 }, async (t) => {
  const box = await makeSandbox();
  const racer = spawn(process.execPath, ['-e', RACER, box.root, box.outside], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve) => racer.stdout.once('data', () => resolve()));
    let written = 0;
    let refused = 0;
    for (let i = 0; i < 2000; i += 1) {
      try {
        await writeExactly(box.root, path.join(box.root, 'dir', `f${i}`), null, 'agent text');
        written += 1;
      } catch {
        refused += 1;
      }
    }
    racer.kill('SIGKILL');
    await new Promise((resolve) => racer.once('exit', resolve));
    t.diagnostic(`written inside ${written}, refused ${refused}`);
    assert.deepEqual(await readdir(box.outside), [], `written ${written}, refused ${refused}`);
    assert.ok(written + refused === 2000);
  } finally {
    racer.kill('SIGKILL');
    await box.cleanup();
  }
});
