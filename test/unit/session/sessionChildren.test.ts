// How many children making a session's copy starts, counted by a `git` shim
// first on PATH that logs each run into a temp dir (no timing): every child
// costs the agent's event loop a fork while the first turn streams. Also what
// the cheaper making must keep: the agent's repository behaves as a clone,
// a symlinked global config still names the excludes, and a link planted
// where a git dir file is written is never written through.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createWorkspace, removeWorkspace } from '../../../agent/session/isolated';
import { fillGitDir } from '../../../agent/session/sharedGitDir';
import { listChanges } from '../../../agent/session/isolatedDiff';
import { execShim, type ExecShim } from '../../support/execShim';

const cleanups: string[] = [];
after(() => Promise.all(cleanups.map((d) => rm(d, { recursive: true, force: true }))));

async function scratch(): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-children-')));
  cleanups.push(dir);
  return dir;
}

function sh(cwd: string, ...args: string[]): string {
  const env = { PATH: process.env.PATH!, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' });
}

/** The git subcommand of a logged argv: the first word that is neither an option nor a `-c` value. */
function subcommand(words: string[]): string {
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '-c') i++;
    else if (!words[i]!.startsWith('-')) return words[i]!;
  }
  return '?';
}

describe('children started to make a session copy', { timeout: 300_000 }, () => {
  let git: ExecShim;
  let home: string;
  const saved = { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };

  before(async () => {
    const dir = await scratch();
    git = await execShim(dir, 'git');
    home = path.join(dir, 'home');
    await mkdir(home);
    process.env.PATH = `${git.bin}${path.delimiter}${saved.PATH}`;
    process.env.HOME = home;
    delete process.env.XDG_CONFIG_HOME;
  });

  after(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  const runs = async (): Promise<string[]> => (await git.runs()).map(subcommand);

  async function project(): Promise<{ repo: string; dataDir: string }> {
    const dir = await scratch();
    const repo = path.join(dir, 'repo');
    await mkdir(path.join(repo, 'node_modules', 'pkg'), { recursive: true });
    sh(dir, 'init', '-q', '-b', 'main', repo);
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    await writeFile(path.join(repo, '.gitignore'), 'node_modules/\n');
    sh(repo, 'add', '-A');
    sh(repo, 'commit', '-q', '-m', 'initial');
    sh(repo, 'branch', 'feature');
    sh(repo, 'tag', '-a', '-m', 'release', 'v1');
    await writeFile(path.join(repo, 'a.txt'), 'one, edited\n');
    await writeFile(path.join(repo, 'new.txt'), 'untracked\n');
    return { repo, dataDir: path.join(dir, 'data') };
  }

  test('a git project: 14 git runs to make the copy (no clone, no config, no remote), 2 to remove it', async () => {
    const { repo, dataDir } = await project();
    await runs();
    const ws = await createWorkspace({ sessionId: 'count1', source: repo, dataDir });
    assert.deepEqual(await runs(), [
      'rev-parse', // the repository, its git dir and common dir
      'rev-parse', // HEAD
      'stash', // uncommitted work (unmerged paths are looked for only if it fails)
      'ls-files', // untracked
      'read-tree', // a scratch index, for the untracked files
      'update-index',
      'write-tree',
      'commit-tree',
      'update-ref', // the pin
      'for-each-ref', // branches and tags for the copy
      'init', // the session git dir
      'checkout',
      'ls-files', // ignored build inputs
      'init', // the agent's repository
    ]);
    await removeWorkspace(ws, dataDir);
    assert.deepEqual(await runs(), ['rev-parse', 'update-ref']);
  });

  test('no untracked files: the base is the stash\'s tree as it is, without a scratch index (11 git runs)', async () => {
    const { repo, dataDir } = await project();
    await rm(path.join(repo, 'new.txt'));
    await runs();
    const ws = await createWorkspace({ sessionId: 'count2', source: repo, dataDir });
    assert.deepEqual(await runs(), ['rev-parse', 'rev-parse', 'stash', 'ls-files', 'commit-tree', 'update-ref', 'for-each-ref', 'init', 'checkout', 'ls-files', 'init']);
    assert.equal(await readFile(path.join(ws.root, 'a.txt'), 'utf8'), 'one, edited\n', 'the uncommitted edit is in the base');
    assert.equal(sh(repo, 'rev-parse', `${ws.base}^`).trim(), sh(repo, 'rev-parse', 'HEAD').trim(), 'the base sits on HEAD');
    assert.equal(sh(repo, 'status', '--porcelain').trim(), 'M a.txt', "the person's tree and index are untouched");
    assert.deepEqual(await listChanges(ws), []);
    // A clean tree: HEAD's own tree.
    sh(repo, 'checkout', '-q', '--', 'a.txt');
    const clean = await createWorkspace({ sessionId: 'count3', source: repo, dataDir });
    assert.equal(sh(repo, 'rev-parse', `${clean.base}^{tree}`).trim(), sh(repo, 'rev-parse', 'HEAD^{tree}').trim());
    await runs();
  });

  test("the agent's repository behaves as a clone: the person's branches and tags, on the session branch, clean, and it can commit", async () => {
    const { repo, dataDir } = await project();
    const ws = await createWorkspace({ sessionId: 'clone1', source: repo, dataDir });
    const inWs = (...args: string[]) => sh(ws.workTree, ...args).trim();
    assert.equal(inWs('symbolic-ref', 'HEAD'), 'refs/heads/accord/clone1');
    assert.equal(inWs('for-each-ref', '--format=%(refname)'), ['refs/heads/accord/clone1', 'refs/heads/feature', 'refs/heads/main', 'refs/tags/v1'].join('\n'));
    assert.equal(inWs('rev-parse', 'v1^{commit}'), sh(repo, 'rev-parse', 'HEAD').trim());
    assert.equal(inWs('status', '--porcelain'), '');
    assert.equal(inWs('remote'), '');
    assert.equal(inWs('rev-parse', 'HEAD'), ws.base);
    // The session git dir (host-side) holds the same and has its work tree set.
    const gitDirConfig = await readFile(path.join(ws.gitDir, 'config'), 'utf8');
    assert.match(gitDirConfig, /bare = false/);
    assert.match(gitDirConfig, new RegExp(`worktree = ${ws.workTree.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.doesNotMatch(gitDirConfig, /remote/);
    assert.equal(await readFile(path.join(ws.gitDir, 'objects/info/alternates'), 'utf8'), `${path.join(repo, '.git', 'objects')}\n`);
    await writeFile(path.join(ws.root, 'b.txt'), 'agent\n');
    inWs('add', 'b.txt');
    inWs('commit', '-q', '-m', 'agent work');
    assert.equal(inWs('log', '--format=%s', '-1'), 'agent work');
    assert.deepEqual((await listChanges(ws)).map((c) => [c.path, c.status]), [['b.txt', 'added']]);
    // The person's repository got only the pin.
    assert.equal(sh(repo, 'for-each-ref', '--format=%(refname)', 'refs/accord').trim(), 'refs/accord/sessions/clone1');
    await runs();
  });

  test("a linked worktree (git worktree add) and a shallow clone: objects are borrowed from where they are, history stops where the person's does", async () => {
    const { repo, dataDir } = await project();
    const linked = path.join(path.dirname(repo), 'linked');
    sh(repo, 'worktree', 'add', '-q', linked, 'feature');
    await writeFile(path.join(linked, 'w.txt'), 'in the worktree\n');
    const ws = await createWorkspace({ sessionId: 'wt1', source: linked, dataDir });
    assert.equal(await readFile(path.join(ws.gitDir, 'objects/info/alternates'), 'utf8'), `${path.join(repo, '.git', 'objects')}\n`);
    assert.equal(sh(ws.workTree, 'status', '--porcelain').trim(), '');
    assert.equal(await readFile(path.join(ws.root, 'w.txt'), 'utf8'), 'in the worktree\n');
    assert.deepEqual((await listChanges(ws)).map((c) => c.path), []);

    const shallow = path.join(path.dirname(repo), 'shallow');
    sh(repo, 'commit', '-q', '-a', '-m', 'second');
    sh(path.dirname(repo), 'clone', '-q', '--depth', '1', `file://${repo}`, shallow);
    const copy = await createWorkspace({ sessionId: 'sh1', source: shallow, dataDir });
    assert.equal(sh(copy.workTree, 'log', '--format=%s').trim(), ['Accord session sh1: base (HEAD + uncommitted + untracked)', 'second'].join('\n'));
    assert.equal(sh(copy.workTree, 'status', '--porcelain').trim(), '');
    await runs();
  });

  test('a sha256 repository: both git dirs are made in its object format', async (t) => {
    const dir = await scratch();
    const repo = path.join(dir, 'repo');
    try {
      sh(dir, 'init', '-q', '--object-format=sha256', '-b', 'main', repo);
    } catch {
      return t.skip('this git cannot make sha256 repositories');
    }
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    sh(repo, 'add', '-A');
    sh(repo, 'commit', '-q', '-m', 'initial');
    const ws = await createWorkspace({ sessionId: 'sha1', source: repo, dataDir: path.join(dir, 'data') });
    assert.equal(ws.base.length, 64);
    assert.equal(sh(ws.workTree, 'rev-parse', '--show-object-format').trim(), 'sha256');
    assert.equal(sh(ws.workTree, 'status', '--porcelain').trim(), '');
    await writeFile(path.join(ws.root, 'a.txt'), 'two\n');
    assert.deepEqual((await listChanges(ws)).map((c) => [c.path, c.status]), [['a.txt', 'modified']]);
    await runs();
  });

  test('a symlinked ~/.gitconfig naming core.excludesFile is still read: globally ignored files stay out of the copy', async () => {
    const { repo, dataDir } = await project();
    const elsewhere = await scratch();
    await writeFile(path.join(elsewhere, 'ignore'), '*.secret\n');
    await writeFile(path.join(elsewhere, 'gitconfig'), `[core]\n\texcludesFile = ${path.join(elsewhere, 'ignore')}\n`);
    await symlink(path.join(elsewhere, 'gitconfig'), path.join(home, '.gitconfig'));
    await writeFile(path.join(repo, 'key.secret'), 'SECRET\n');
    try {
      await runs();
      const ws = await createWorkspace({ sessionId: 'excl1', source: repo, dataDir });
      assert.ok(!existsSync(path.join(ws.root, 'key.secret')), 'a globally ignored file was copied');
      assert.ok(existsSync(path.join(ws.root, 'new.txt')));
      // Only the file that is there is read; ~/.config/git/config is absent.
      assert.equal((await runs()).filter((c) => c === 'config').length, 1);
    } finally {
      await rm(path.join(home, '.gitconfig'));
    }
  });
});

describe('files written into a git dir never go through a planted link', () => {
  const files = (objects: string) => ({ objects, refs: [{ sha: 'a'.repeat(40), name: 'refs/heads/main' }], head: 'ref: refs/heads/main\n', index: Buffer.from('index') });

  test('a link where packed-refs, HEAD or index go is replaced, and what it pointed to is untouched', async () => {
    const root = await scratch();
    const outside = await scratch();
    await mkdir(path.join(root, '.git', 'objects', 'info'), { recursive: true });
    for (const name of ['packed-refs', 'HEAD', 'index', 'objects/info/alternates']) {
      await writeFile(path.join(outside, name.replace(/\//g, '_')), 'victim\n');
      await symlink(path.join(outside, name.replace(/\//g, '_')), path.join(root, '.git', name));
    }
    await fillGitDir(root, '.git', files('/somewhere/objects'));
    for (const name of ['packed-refs', 'HEAD', 'index', 'objects/info/alternates']) {
      assert.equal(await readFile(path.join(outside, name.replace(/\//g, '_')), 'utf8'), 'victim\n', `${name} was written through a link`);
    }
    assert.equal(await readFile(path.join(root, '.git', 'packed-refs'), 'utf8'), `${'a'.repeat(40)} refs/heads/main\n`);
    assert.equal(await readFile(path.join(root, '.git', 'objects/info/alternates'), 'utf8'), '/somewhere/objects\n');
  });

  test('a link among the folders (objects/info, or .git itself) is refused and nothing is written where it points', async () => {
    for (const linked of ['.git/objects/info', '.git']) {
      const root = await scratch();
      const outside = await scratch();
      await mkdir(path.join(root, path.dirname(linked)), { recursive: true });
      await mkdir(path.join(root, '.git', 'objects'), { recursive: true }).catch(() => undefined);
      if (linked === '.git') await rm(path.join(root, '.git'), { recursive: true });
      await symlink(outside, path.join(root, linked));
      await assert.rejects(fillGitDir(root, '.git', files('/somewhere/objects')), /symbolic link/);
      assert.deepEqual(execFileSync('ls', ['-A', outside], { encoding: 'utf8' }), '', `something was written through ${linked}`);
    }
  });

  test('an objects path that is not a plain absolute path is refused', async () => {
    const root = await scratch();
    await assert.rejects(fillGitDir(root, '.git', files('relative/objects')), /plain absolute path/);
    await assert.rejects(fillGitDir(root, '.git', files('/a\n/b')), /plain absolute path/);
  });
});
