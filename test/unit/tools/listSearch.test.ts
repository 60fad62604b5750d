import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { listFiles, MAX_LISTED_FILES } from '../../../agent/tools/listFiles';
import { findRipgrep } from '../../../agent/tools/ripgrep';
import { createSearchTool } from '../../../agent/tools/search';
import { call, context, makeSandbox, type Sandbox } from './fixtures';

let box: Sandbox;

before(async () => {
  box = await makeSandbox();
  const files: Record<string, string> = {
    '.gitignore': 'build/\n*.log\n',
    'README.md': '# Demo\nTODO: write docs\n',
    'src/main.ts': 'export function load() {\n  return 1; // TODO tidy\n}\n',
    'src/util.ts': 'export const Load = 2;\n',
    'src/.hidden.ts': 'const todo = 3; // TODO hidden\n',
    'src/nested/.gitignore': 'secret.ts\n!keep.log\n',
    'src/nested/keep.log': 'TODO re-included by the nested gitignore\n',
    'src/nested/secret.ts': 'TODO ignored by nested gitignore\n',
    'src/nested/deep.ts': 'TODO deep\n',
    'build/out.js': 'TODO ignored build output\n',
    'debug.log': 'TODO ignored log\n',
    '.git/config': 'TODO inside .git\n',
    '.git/info/exclude': 'local-notes.txt\n',
    'local-notes.txt': 'TODO excluded by .git/info/exclude\n',
    'bin.dat': 'TODO\0binary',
  };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(box.root, name)), { recursive: true });
    await writeFile(path.join(box.root, name), text);
  }
  await writeFile(path.join(box.outside, 'leak.ts'), 'TODO outside the workspace\n');
  await symlink(box.outside, path.join(box.root, 'outlink'));
  await symlink(path.join(box.outside, 'leak.ts'), path.join(box.root, 'leaklink.ts'));
});
after(() => box.cleanup());

describe('list_files', () => {
  test('lists files sorted, leaving out .git, ignored files and symlinked directories', async () => {
    const { ctx } = context(box.root);
    const result = await call(listFiles, {}, ctx);
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.forModel.split('\n'), [
      '.gitignore', 'README.md', 'bin.dat', 'src/.hidden.ts', 'src/main.ts', 'src/nested/.gitignore', 'src/nested/deep.ts', 'src/nested/keep.log', 'src/util.ts',
    ]);
  });

  test('a glob without "/" matches names at any depth; with "/" it matches paths; path narrows', async () => {
    const { ctx } = context(box.root);
    assert.deepEqual((await call(listFiles, { pattern: '*.ts' }, ctx)).forModel.split('\n'), ['src/.hidden.ts', 'src/main.ts', 'src/nested/deep.ts', 'src/util.ts']);
    assert.deepEqual((await call(listFiles, { pattern: 'src/*.ts' }, ctx)).forModel.split('\n'), ['src/.hidden.ts', 'src/main.ts', 'src/util.ts']);
    assert.deepEqual((await call(listFiles, { path: 'src/nested' }, ctx)).forModel.split('\n'), ['src/nested/.gitignore', 'src/nested/deep.ts', 'src/nested/keep.log']);
    assert.match((await call(listFiles, { pattern: '*.py' }, ctx)).forModel, /No files match/);
  });

  test("attack: a glob that backtracks without bound (the model's, or one a prompt injection dictates) is refused, not run over the project's names", { timeout: 60_000 }, async () => {
    // '**/*(*a)*b' against this 30-letter name took 24 s of the daemon's event loop; '*-*-*-*' against 255 dashes 2.6 s each.
    await writeFile(path.join(box.root, 'a'.repeat(30)), 'TODO\n');
    await writeFile(path.join(box.root, '-'.repeat(250)), 'TODO\n');
    try {
      const { ctx } = context(box.root);
      for (const pattern of ['**/*(*a)*b', '+(a|aa)', '*-*-*-*']) {
        const result = await call(listFiles, { pattern }, ctx);
        assert.equal(result.isError, true, pattern);
        assert.match(result.forModel, /not supported/, pattern);
      }
      const search = await call(createSearchTool(), { pattern: 'TODO', glob: '**/*(*a)*b' }, ctx);
      assert.equal(search.isError, true);
      assert.match(search.forModel, /not supported/);
      // Two "*" in a segment are still fine (their cost is the name's length squared).
      assert.deepEqual((await call(listFiles, { pattern: '*-*' }, ctx)).forModel.split('\n'), ['-'.repeat(250)]);
    } finally {
      await rm(path.join(box.root, 'a'.repeat(30)));
      await rm(path.join(box.root, '-'.repeat(250)));
    }
  });

  test('refuses paths outside, missing directories and files', async () => {
    const { ctx } = context(box.root);
    assert.match((await call(listFiles, { path: '..' }, ctx)).forModel, /outside the workspace/);
    assert.match((await call(listFiles, { path: 'outlink' }, ctx)).forModel, /outside the workspace/);
    assert.match((await call(listFiles, { path: 'nope' }, ctx)).forModel, /does not exist/);
    assert.match((await call(listFiles, { path: 'README.md' }, ctx)).forModel, /is a file/);
  });

  test(`caps the listing at ${MAX_LISTED_FILES} and says so`, async () => {
    const many = await makeSandbox();
    try {
      await Promise.all(Array.from({ length: MAX_LISTED_FILES + 5 }, (_, i) => writeFile(path.join(many.root, `f${i}.txt`), '')));
      const { ctx } = context(many.root);
      const result = await call(listFiles, {}, ctx);
      const lines = result.forModel.split('\n');
      assert.equal(lines.length, MAX_LISTED_FILES + 1);
      assert.match(lines.at(-1)!, /showing the first 1000 matches; more exist/);
    } finally {
      await many.cleanup();
    }
  });
});

async function engines(): Promise<[string, string | false][]> {
  const rg = await findRipgrep();
  return rg ? [['ripgrep', rg], ['JS fallback', false]] : [['JS fallback', false]];
}

describe('search', async () => {
  for (const [label, ripgrep] of await engines()) {
    describe(label, () => {
      const search = createSearchTool({ ripgrep });

      test('finds matches with file:line, honouring .gitignore at every level, skipping .git, binaries and symlinks out', async () => {
        const { ctx } = context(box.root);
        const result = await call(search, { pattern: 'TODO' }, ctx);
        assert.equal(result.isError, undefined);
        assert.deepEqual(result.forModel.split('\n').sort(), [
          'README.md:2: TODO: write docs',
          'src/.hidden.ts:1: const todo = 3; // TODO hidden',
          'src/main.ts:2:   return 1; // TODO tidy',
          'src/nested/deep.ts:1: TODO deep',
          'src/nested/keep.log:1: TODO re-included by the nested gitignore',
        ]);
      });

      test('regex, case option, glob and path filters', async () => {
        const { ctx } = context(box.root);
        assert.deepEqual((await call(search, { pattern: 'function\\s+lo+ad' }, ctx)).forModel, 'src/main.ts:1: export function load() {');
        assert.deepEqual((await call(search, { pattern: 'load', case_insensitive: true, glob: '*.ts' }, ctx)).forModel.split('\n').sort(), [
          'src/main.ts:1: export function load() {',
          'src/util.ts:1: export const Load = 2;',
        ]);
        assert.equal((await call(search, { pattern: 'TODO deep', path: 'src/nested' }, ctx)).forModel, 'src/nested/deep.ts:1: TODO deep');
        assert.equal((await call(search, { pattern: 'TODO', path: 'README.md' }, ctx)).forModel, 'README.md:2: TODO: write docs');
        assert.match((await call(search, { pattern: 'no such text anywhere' }, ctx)).forModel, /No matches/);
      });

      test('caps matches and says so', async () => {
        const { ctx } = context(box.root);
        const result = await call(search, { pattern: 'TODO', max_results: 2 }, ctx);
        const lines = result.forModel.split('\n');
        assert.equal(lines.length, 3);
        assert.match(lines[2]!, /showing the first 2 matches; more exist/);
      });

      test('an invalid regex and a path outside fail clearly', async () => {
        const { ctx } = context(box.root);
        const bad = await call(search, { pattern: '(unclosed' }, ctx);
        assert.equal(bad.isError, true);
        assert.match(bad.forModel, /search failed/);
        assert.match((await call(search, { pattern: 'TODO', path: 'outlink' }, ctx)).forModel, /outside the workspace/);
        assert.match((await call(search, { pattern: 'TODO', path: '../outside' }, ctx)).forModel, /outside the workspace/);
      });
    });
  }

  // Lookahead is JavaScript-only (ripgrep's default engine rejects it), so the
  // answer shows which engine ran.
  test('ACCORD_SEARCH_NO_RIPGREP=1 forces the JS fallback', async () => {
    const previous = process.env.ACCORD_SEARCH_NO_RIPGREP;
    process.env.ACCORD_SEARCH_NO_RIPGREP = '1';
    try {
      const { ctx } = context(box.root);
      const result = await call(createSearchTool(), { pattern: 'TODO(?= deep)' }, ctx);
      assert.equal(result.forModel, 'src/nested/deep.ts:1: TODO deep');
    } finally {
      if (previous === undefined) delete process.env.ACCORD_SEARCH_NO_RIPGREP;
      else process.env.ACCORD_SEARCH_NO_RIPGREP = previous;
    }
  });

  test('with ripgrep, a lookahead fails with ripgrep\'s own message', { skip: !(await findRipgrep()) && 'rg not on PATH' }, async () => {
    const { ctx } = context(box.root);
    const result = await call(createSearchTool({ ripgrep: (await findRipgrep())! }), { pattern: 'TODO(?= deep)' }, ctx);
    assert.equal(result.isError, true);
    assert.match(result.forModel, /search failed: .*look-around/s);
  });
});
