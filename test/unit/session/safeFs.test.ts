// safeFs against a small reference model, over every combination of what can
// sit on the way to a file (folder, link inside, link outside, file, nothing)
// and at the file (file, links, fifo, folder, nothing, a huge sparse file):
// no read ever returns bytes from outside the root, no write ever lands there.
// Plus git's pinned environment: nothing of the agent's reaches git.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readNoFollow, removeNoFollow, UnsafePathError, writeNoFollow } from '../../../agent/session/safeFs';
import { git, gitEnvironment } from '../../../agent/session/isolatedGit';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'accord-safefs-')));
after(() => rmSync(base, { recursive: true, force: true }));

const parents = ['dir', 'link-in', 'link-out', 'file', 'missing'] as const;
const leaves = ['file', 'link-in', 'link-out', 'fifo', 'dir', 'missing', 'big'] as const;
type Parent = (typeof parents)[number];
type Leaf = (typeof leaves)[number];
const LIMIT = 1024;

let counter = 0;
/** root/p/x laid out as asked; `outside` holds the same names with OUTSIDE content. */
function layout(parent: Parent, leaf: Leaf) {
  const dir = join(base, `case-${++counter}`);
  const root = join(dir, 'root');
  const outside = join(dir, 'outside');
  mkdirSync(join(root, 'real'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'x'), 'OUTSIDE\n');
  writeFileSync(join(root, 'real', 'x'), 'INSIDE-OTHER\n');
  const p = join(root, 'p');
  if (parent === 'dir') mkdirSync(p);
  if (parent === 'link-in') symlinkSync(join(root, 'real'), p);
  if (parent === 'link-out') symlinkSync(outside, p);
  if (parent === 'file') writeFileSync(p, 'a file\n');
  if (parent === 'dir') {
    const x = join(p, 'x');
    if (leaf === 'file') writeFileSync(x, 'INSIDE\n');
    if (leaf === 'link-in') symlinkSync(join(root, 'real', 'x'), x);
    if (leaf === 'link-out') symlinkSync(join(outside, 'x'), x);
    if (leaf === 'fifo') execFileSync('mkfifo', [x]);
    if (leaf === 'dir') mkdirSync(x);
    if (leaf === 'big') {
      writeFileSync(x, '');
      truncateSync(x, 4 * 1024 * 1024 * 1024);
    }
  }
  const outsideState = () => JSON.stringify(readdirSync(outside).map((n) => [n, readFileSync(join(outside, n), 'utf8')]));
  return { root, outside, outsideState, before: outsideState() };
}

/** What readNoFollow must answer, from the layout alone. */
function expectedRead(parent: Parent, leaf: Leaf): string {
  if (parent === 'link-in' || parent === 'link-out') return 'refused';
  if (parent !== 'dir') return 'missing';
  return { file: 'file:INSIDE\n', 'link-in': 'link', 'link-out': 'link', fifo: 'refused', dir: 'missing', missing: 'missing', big: 'tooLarge' }[leaf];
}

describe('safeFs never follows a link or reads past its bound (every layout)', () => {
  for (const parent of parents) {
    for (const leaf of leaves) {
      if (parent !== 'dir' && leaf !== 'missing') continue; // the leaf only exists under a real folder
      test(`read: parent ${parent}, leaf ${leaf}`, async () => {
        const scene = layout(parent, leaf);
        const got = await readNoFollow(scene.root, 'p/x', LIMIT).then(
          (r) => (r.kind === 'file' ? `file:${r.data.toString()}` : r.kind),
          (error) => {
            assert.ok(error instanceof UnsafePathError, String(error));
            return 'refused';
          },
        );
        assert.equal(got, expectedRead(parent, leaf));
        assert.ok(!got.includes('OUTSIDE'));
      });

      test(`write and remove: parent ${parent}, leaf ${leaf}`, async () => {
        const scene = layout(parent, leaf);
        const written = await writeNoFollow(scene.root, 'p/x', Buffer.from('NEW\n')).then(() => true, () => false);
        assert.equal(scene.outsideState(), scene.before, 'a write landed outside the root');
        if (written) {
          assert.ok(lstatSync(join(scene.root, 'p')).isDirectory() && !lstatSync(join(scene.root, 'p')).isSymbolicLink());
          assert.equal(readFileSync(join(scene.root, 'p', 'x'), 'utf8'), 'NEW\n');
        } else {
          assert.ok(parent === 'link-in' || parent === 'link-out' || parent === 'file' || leaf === 'dir', `refused without a reason: ${parent}/${leaf}`);
        }
        await removeNoFollow(scene.root, 'p/x').catch(() => undefined);
        assert.equal(scene.outsideState(), scene.before, 'a remove reached outside the root');
        assert.ok(existsSync(join(scene.root, 'real', 'x')), 'a remove followed a link inside the root');
      });
    }
  }

  test('discard-style writes replace a linked folder with a real one instead of writing through it', async () => {
    const scene = layout('link-out', 'missing');
    await writeNoFollow(scene.root, 'p/x', Buffer.from('BASE\n'), 0o644, { replaceParents: true });
    assert.equal(scene.outsideState(), scene.before);
    assert.ok(!lstatSync(join(scene.root, 'p')).isSymbolicLink());
    assert.equal(readFileSync(join(scene.root, 'p', 'x'), 'utf8'), 'BASE\n');
  });

  test('paths that could leave the root are refused before any I/O', async () => {
    for (const bad of ['../x', '/etc/passwd', 'a/../../x', 'a//b', '', 'a\0b', './a', 'a\\b']) {
      await assert.rejects(readNoFollow(base, bad), UnsafePathError, bad);
      await assert.rejects(writeNoFollow(base, bad, Buffer.from('x')), UnsafePathError, bad);
    }
  });
});

describe("git's pinned environment", () => {
  test('nothing of the agent reaches git: keys, GIT_* redirections and config injections are dropped', () => {
    const env = gitEnvironment({ PATH: '/bin', HOME: '/h', ANTHROPIC_API_KEY: 'k', GIT_DIR: '/evil', GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='x'", GIT_CONFIG_COUNT: '1', GIT_EXTERNAL_DIFF: 'x', GIT_SSH_COMMAND: 'x', LD_PRELOAD: '/x.so', SSH_ASKPASS: 'x' });
    assert.deepEqual(Object.keys(env).filter((k) => !k.startsWith('GIT_')).sort(), ['HOME', 'PATH']);
    for (const name of ['GIT_DIR', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_EXTERNAL_DIFF', 'GIT_SSH_COMMAND']) assert.equal(env[name], undefined, name);
    assert.equal(env.GIT_CONFIG_NOSYSTEM, '1');
    assert.equal(env.GIT_CONFIG_GLOBAL, '/dev/null');
  });

  test("the person's global config is not loaded and the hardening wins over any repository config", async () => {
    const home = join(base, 'home');
    const repo = join(base, 'repo');
    mkdirSync(home);
    writeFileSync(join(home, '.gitconfig'), '[core]\n\tpager = touch PWNED\n[user]\n\tname = From Global\n');
    execFileSync('git', ['init', '-q', '--bare', repo], { env: { PATH: process.env.PATH!, HOME: home } });
    writeFileSync(join(repo, 'config'), '[core]\n\tbare = true\n\tfsmonitor = touch PWNED\n\thooksPath = hooks\n');
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const list = await git(['config', '--list', '--show-origin'], { cwd: repo, gitDir: repo });
      assert.doesNotMatch(list, /From Global/, 'global config was read');
      assert.equal(await git(['config', 'core.fsmonitor'], { cwd: repo, gitDir: repo }), 'false');
      assert.equal(await git(['config', 'core.hooksPath'], { cwd: repo, gitDir: repo }), '/dev/null');
    } finally {
      process.env.HOME = saved;
    }
  });
});
