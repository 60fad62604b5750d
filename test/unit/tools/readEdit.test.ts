import { describe, test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { link, mkdir, readFile as readDisk, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { editFile } from '../../../agent/tools/editFile';
import { readFile } from '../../../agent/tools/readFile';
import { call, context, makeSandbox, type Sandbox } from './fixtures';

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(() => box.cleanup());

describe('read_file', () => {
  test('returns numbered lines and describes the location', async () => {
    await writeFile(path.join(box.root, 'a.txt'), 'one\ntwo\nthree\n');
    const { ctx } = context(box.root);
    const result = await call(readFile, { path: 'a.txt' }, ctx);
    assert.equal(result.isError, undefined);
    assert.equal(result.forModel, '     1\tone\n     2\ttwo\n     3\tthree');
    const described = readFile.describe({ path: 'a.txt', offset: 2 }, ctx);
    assert.deepEqual(described.locations, [{ path: path.join(box.root, 'a.txt'), line: 2 }]);
  });

  test('offset and limit page through a file and say where to continue', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n');
    await writeFile(path.join(box.root, 'long.txt'), lines);
    const { ctx } = context(box.root);
    const result = await call(readFile, { path: 'long.txt', offset: 10, limit: 3 }, ctx);
    assert.match(result.forModel, /^ {4}10\tline 10\n {4}11\tline 11\n {4}12\tline 12\n\[lines 10-12; more follow: continue with offset=13\]$/);
    const end = await call(readFile, { path: 'long.txt', offset: 49 }, ctx);
    assert.match(end.forModel, /\[lines 49-50 of 50\]$/);
    const past = await call(readFile, { path: 'long.txt', offset: 99 }, ctx);
    assert.match(past.forModel, /past the end/);
  });

  test('refuses a file over the whole-read cap unless a range is given', async () => {
    const big = 'x'.repeat(99) + '\n';
    await writeFile(path.join(box.root, 'big.txt'), big.repeat(22_000)); // 2.2 MB
    const { ctx } = context(box.root);
    const whole = await call(readFile, { path: 'big.txt' }, ctx);
    assert.equal(whole.isError, true);
    assert.match(whole.forModel, /too large to read whole.*offset and limit/);
    const part = await call(readFile, { path: 'big.txt', offset: 21_999, limit: 5 }, ctx);
    assert.equal(part.isError, undefined);
    assert.match(part.forModel, /21999\tx{99}\n\s+22000\tx{99}\n\[lines 21999-22000 of 22000\]/);
  });

  test('caps long lines and total output, and says so', async () => {
    await writeFile(path.join(box.root, 'wide.txt'), ('y'.repeat(5000) + '\n').repeat(100));
    const { ctx } = context(box.root);
    const result = await call(readFile, { path: 'wide.txt' }, ctx);
    assert.match(result.forModel, /… \[line cut: 5000 characters\]/);
    assert.match(result.forModel, /output capped at 100000 characters; continue with offset=\d+\]$/);
    assert.ok(result.forModel.length < 110_000);
  });

  test('refuses binary files, directories, missing files and paths outside', async () => {
    await writeFile(path.join(box.root, 'img.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    await mkdir(path.join(box.root, 'dir'));
    await writeFile(path.join(box.outside, 'secret'), 'top secret');
    await symlink(path.join(box.outside, 'secret'), path.join(box.root, 'link'));
    const { ctx } = context(box.root);
    const cases: [string, RegExp][] = [
      ['img.bin', /binary file/],
      ['dir', /is a directory.*list_files/],
      ['nope.txt', /does not exist.*list_files or search/],
      ['../outside/secret', /outside the workspace/],
      ['link', /outside the workspace/],
      [path.join(box.outside, 'secret'), /outside the workspace/],
    ];
    for (const [requested, pattern] of cases) {
      const result = await call(readFile, { path: requested }, ctx);
      assert.equal(result.isError, true, requested);
      assert.match(result.forModel, pattern);
      assert.doesNotMatch(result.forModel, /top secret/);
    }
  });

  // 3 + 65,532 bytes puts the second line's CR at the end of the first 64 KiB chunk.
  test('CRLF endings are not shown; a 5 MB one-line file is read clipped, by range', async () => {
    await writeFile(path.join(box.root, 'crlf.txt'), 'a\r\n' + 'b'.repeat(65_532) + '\r\nc');
    await writeFile(path.join(box.root, 'min.js'), 'z'.repeat(5 * 1024 * 1024));
    const { ctx } = context(box.root);
    const crlf = await call(readFile, { path: 'crlf.txt' }, ctx);
    assert.doesNotMatch(crlf.forModel, /\r/);
    assert.match(crlf.forModel, /^ {5}1\ta\n {5}2\tb{2000}… \[line cut: 65532 characters\]\n {5}3\tc$/);
    const minified = await call(readFile, { path: 'min.js', offset: 1, limit: 1 }, ctx);
    assert.match(minified.forModel, /^ {5}1\tz{2000}… \[line cut: 5242880 characters\]/);
  });

  test('an empty file says so', async () => {
    await writeFile(path.join(box.root, 'empty'), '');
    const { ctx } = context(box.root);
    assert.equal((await call(readFile, { path: 'empty' }, ctx)).forModel, '(empty file)');
  });
});

describe('edit_file', () => {
  test('replaces exactly one occurrence; the effect carries the whole old and new text', async () => {
    const file = path.join(box.root, 'src.ts');
    await writeFile(file, 'const a = 1;\nconst b = 2;\n');
    const { ctx } = context(box.root);
    const input = editFile.input.parse({ path: 'src.ts', old_string: 'b = 2', new_string: 'b = $& 3' });
    const effect = await editFile.effect(input, ctx);
    assert.deepEqual(effect, {
      type: 'files',
      changes: [{ path: file, oldText: 'const a = 1;\nconst b = 2;\n', newText: 'const a = 1;\nconst b = $& 3;\n' }],
    });
    const result = await editFile.run(input, ctx, effect);
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.forUser, [{ type: 'diff', path: file, oldText: 'const a = 1;\nconst b = 2;\n', newText: 'const a = 1;\nconst b = $& 3;\n' }]);
    assert.equal(await readDisk(file, 'utf8'), 'const a = 1;\nconst b = $& 3;\n');
  });

  test('missing and ambiguous old text fail clearly; replace_all changes every match', async () => {
    const file = path.join(box.root, 'x.txt');
    await writeFile(file, 'foo foo foo');
    const { ctx } = context(box.root);
    const missing = await call(editFile, { path: 'x.txt', old_string: 'bar', new_string: 'baz' }, ctx);
    assert.equal(missing.isError, true);
    assert.match(missing.forModel, /not found in x\.txt.*exact text/);
    const ambiguous = await call(editFile, { path: 'x.txt', old_string: 'foo', new_string: 'baz' }, ctx);
    assert.match(ambiguous.forModel, /occurs 3 times in x\.txt.*replace_all/);
    assert.equal(await readDisk(file, 'utf8'), 'foo foo foo');
    const all = await call(editFile, { path: 'x.txt', old_string: 'foo', new_string: 'bar', replace_all: true }, ctx);
    assert.equal(all.isError, undefined);
    assert.equal(await readDisk(file, 'utf8'), 'bar bar bar');
  });

  test('an LF old_string edits a CRLF file in its own line endings', async () => {
    const file = path.join(box.root, 'win.txt');
    await writeFile(file, 'one\r\ntwo\r\nthree\r\n');
    const { ctx } = context(box.root);
    const result = await call(editFile, { path: 'win.txt', old_string: 'one\ntwo', new_string: 'one\n2' }, ctx);
    assert.equal(result.isError, undefined);
    assert.equal(await readDisk(file, 'utf8'), 'one\r\n2\r\nthree\r\n');
  });

  test('refuses empty or identical strings and missing files', async () => {
    await writeFile(path.join(box.root, 'x.txt'), 'abc');
    const { ctx } = context(box.root);
    assert.match((await call(editFile, { path: 'x.txt', old_string: '', new_string: 'z' }, ctx)).forModel, /empty.*write_file/);
    assert.match((await call(editFile, { path: 'x.txt', old_string: 'a', new_string: 'a' }, ctx)).forModel, /identical/);
    assert.match((await call(editFile, { path: 'no.txt', old_string: 'a', new_string: 'b' }, ctx)).forModel, /does not exist.*write_file/);
  });

  test('writes nothing when the file changed after the effect was computed', async () => {
    const file = path.join(box.root, 'race.txt');
    await writeFile(file, 'alpha beta');
    const { ctx } = context(box.root);
    const input = editFile.input.parse({ path: 'race.txt', old_string: 'beta', new_string: 'gamma' });
    const effect = await editFile.effect(input, ctx);
    await writeFile(file, 'alpha beta (edited by the person)');
    const result = await editFile.run(input, ctx, effect);
    assert.equal(result.isError, true);
    assert.match(result.forModel, /changed after this change was proposed.*Read the file again/);
    assert.equal(await readDisk(file, 'utf8'), 'alpha beta (edited by the person)');
  });

  test('writes exactly the approved newText, whatever the input says', async () => {
    const file = path.join(box.root, 'a.txt');
    await writeFile(file, 'old');
    const { ctx } = context(box.root);
    const input = editFile.input.parse({ path: 'a.txt', old_string: 'old', new_string: 'input text' });
    await editFile.run(input, ctx, { type: 'files', changes: [{ path: file, oldText: 'old', newText: 'approved text' }] });
    assert.equal(await readDisk(file, 'utf8'), 'approved text');
  });

  test('refuses hard links, symlinks out, non-UTF-8 and protected paths; nothing outside changes', async () => {
    const secret = path.join(box.outside, 'secret');
    await writeFile(secret, 'secret text');
    await link(secret, path.join(box.root, 'hl'));
    await symlink(box.outside, path.join(box.root, 'out'));
    await writeFile(path.join(box.root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await mkdir(path.join(box.root, '.git', 'hooks'), { recursive: true });
    await writeFile(path.join(box.root, '.git', 'hooks', 'pre-commit'), 'exit 0');
    await mkdir(path.join(box.root, '.accord'));
    await writeFile(path.join(box.root, '.accord', 'policy.json'), '{"rules":[]}');
    const { ctx } = context(box.root);
    const cases: [string, string, RegExp][] = [
      ['hl', 'secret', /2 hard links/],
      ['out/secret', 'secret', /outside the workspace/],
      ['../outside/secret', 'secret', /outside the workspace/],
      ['latin1.txt', 'caf', /not valid UTF-8/],
      ['.git/hooks/pre-commit', 'exit 0', /may never change/],
      ['.GIT/hooks/pre-commit', 'exit 0', /may never change/],
      ['.accord/policy.json', '[]', /may never change/],
    ];
    for (const [requested, old, pattern] of cases) {
      const result = await call(editFile, { path: requested, old_string: old, new_string: 'PWNED' }, ctx);
      assert.equal(result.isError, true, requested);
      assert.match(result.forModel, pattern, requested);
    }
    assert.equal(await readDisk(secret, 'utf8'), 'secret text');
    assert.equal(await readDisk(path.join(box.root, '.accord', 'policy.json'), 'utf8'), '{"rules":[]}');
    assert.equal(await readDisk(path.join(box.root, '.git', 'hooks', 'pre-commit'), 'utf8'), 'exit 0');
  });

  test('a hard link made after approval is caught at write time', async () => {
    const file = path.join(box.root, 'f.txt');
    await writeFile(file, 'v1');
    const { ctx } = context(box.root);
    const input = editFile.input.parse({ path: 'f.txt', old_string: 'v1', new_string: 'v2' });
    const effect = await editFile.effect(input, ctx);
    await link(file, path.join(box.outside, 'alias'));
    const result = await editFile.run(input, ctx, effect);
    assert.match(result.forModel, /2 hard links/);
    assert.equal(await readDisk(path.join(box.outside, 'alias'), 'utf8'), 'v1');
  });

  test('run re-checks containment: an approved effect naming a path outside writes nothing', async () => {
    const secret = path.join(box.outside, 'secret');
    await writeFile(secret, 'secret text');
    const { ctx } = context(box.root);
    const input = editFile.input.parse({ path: 'x', old_string: 'a', new_string: 'b' });
    const result = await editFile.run(input, ctx, { type: 'files', changes: [{ path: secret, oldText: 'secret text', newText: 'PWNED' }] });
    assert.equal(result.isError, true);
    assert.equal(await readDisk(secret, 'utf8'), 'secret text');
  });

  test('an error effect is reported by run without writing', async () => {
    const { ctx } = context(box.root);
    const input = editFile.input.parse({ path: 'x', old_string: 'a', new_string: 'b' });
    const result = await editFile.run(input, ctx, { type: 'error', message: 'old_string was not found' });
    assert.deepEqual(result, { forModel: 'old_string was not found', forUser: [{ type: 'text', text: 'old_string was not found' }], isError: true });
  });
});
