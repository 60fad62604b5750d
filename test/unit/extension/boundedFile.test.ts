// fs/read_text_file's disk side: ordinary files read whole; what a hostile
// agent can name (a FIFO, a device, a huge or growing file, text that would
// not fit one message) is a clear error, never a hang or the host's memory.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { checkAnswerFits, readTextFileBounded, UnreadableFileError } from '../../../extension/client/boundedFile';

const dir = mkdtempSync(join(tmpdir(), 'accord-bounded-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('an ordinary file is read whole, as UTF-8; a missing one is undefined', async () => {
  const file = join(dir, 'a.txt');
  writeFileSync(file, 'één\ntwo\n');
  assert.equal(await readTextFileBounded(file), 'één\ntwo\n');
  assert.equal(await readTextFileBounded(join(dir, 'missing.txt')), undefined);
  writeFileSync(join(dir, 'empty.txt'), '');
  assert.equal(await readTextFileBounded(join(dir, 'empty.txt')), '');
});

test('a file at the bound is read; one byte over is refused', async () => {
  const file = join(dir, 'edge.txt');
  writeFileSync(file, 'x'.repeat(1000));
  assert.equal((await readTextFileBounded(file, 1000))?.length, 1000);
  await assert.rejects(readTextFileBounded(file, 999), (error: Error) => error instanceof UnreadableFileError && /too large/.test(error.message));
});

test('attack: a 1 TB sparse file is refused from its size, without reading it', async () => {
  const file = join(dir, 'huge.bin');
  writeFileSync(file, '');
  truncateSync(file, 1024 ** 4);
  await assert.rejects(readTextFileBounded(file), /too large to read \(over 1048576\.0 MB; at most 64\.0 MB\)/);
});

test('attack: a FIFO with no writer is refused at once instead of waiting for one', { skip: process.platform === 'win32' }, async () => {
  const fifo = join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  await assert.rejects(readTextFileBounded(fifo), /is not a regular file/);
});

test('attack: a device that never ends, a directory, and a link to a device are refused', { skip: process.platform === 'win32' }, async () => {
  await assert.rejects(readTextFileBounded('/dev/zero'), /is not a regular file/);
  mkdirSync(join(dir, 'folder'));
  await assert.rejects(readTextFileBounded(join(dir, 'folder')), UnreadableFileError);
  symlinkSync('/dev/zero', join(dir, 'zero-link'));
  await assert.rejects(readTextFileBounded(join(dir, 'zero-link')), /is not a regular file/);
});

test('the answer must fit one message as JSON: control characters count six bytes each', () => {
  checkAnswerFits('/p', 'a'.repeat(1000), 1002);
  assert.throws(() => checkAnswerFits('/p', 'a'.repeat(1001), 1002), /ask for fewer lines/);
  // 200 control characters are 1,200 bytes as JSON, far past their 200 as text.
  assert.throws(() => checkAnswerFits('/p', '\u0001'.repeat(200), 1000), UnreadableFileError);
  checkAnswerFits('/p', '\u0001'.repeat(166), 1000);
});
