// The isolated workspace against real git: base capture, pinning, diffs,
// 3-way apply with conflicts, discard, shadow copies and in-place snapshots.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, open, readFile, readlink, realpath, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { createWorkspace, removeWorkspace, snapshot, WorkspaceError } from '../../../agent/session/isolated';
import { discard, listChanges, readBase, readCurrent } from '../../../agent/session/isolatedDiff';
import { changesAnswer, fileSides } from '../../../agent/session/changes';
import { REVIEW_LIMIT_BYTES } from '../../../agent/session/safeFs';
import { MAX_LINE_BYTES } from '../../../agent/acp/lineGuard';

const cleanups: string[] = [];
after(() => Promise.all(cleanups.map((d) => rm(d, { recursive: true, force: true }))));

function sh(cwd: string, ...args: string[]): string {
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' });
}

const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n') + '\n';

function editLine(text: string, line: number, replacement: string): string {
  const all = text.split('\n');
  all[line - 1] = replacement;
  return all.join('\n');
}

async function scratch(): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-ws-')));
  cleanups.push(dir);
  return dir;
}

/** A repository with committed, modified, deleted, untracked and ignored files. */
async function project(): Promise<{ repo: string; dataDir: string }> {
  const dir = await scratch();
  const repo = path.join(dir, 'repo');
  await mkdir(path.join(repo, 'src'), { recursive: true });
  await mkdir(path.join(repo, '.accord'), { recursive: true });
  sh(repo, 'init', '-q', '-b', 'main');
  await writeFile(path.join(repo, 'a.txt'), lines(20));
  await writeFile(path.join(repo, 'src/b.txt'), lines(5, 'bee'));
  await writeFile(path.join(repo, 'gone.txt'), 'to be deleted\n');
  await writeFile(path.join(repo, '.accord/policy.json'), '{"version":1}\n');
  await writeFile(path.join(repo, '.gitignore'), 'node_modules/\n*.log\n.env\n');
  sh(repo, 'add', '-A');
  sh(repo, 'commit', '-q', '-m', 'initial');
  await mkdir(path.join(repo, 'node_modules/pkg'), { recursive: true });
  await writeFile(path.join(repo, 'node_modules/pkg/index.js'), 'module.exports = 1;\n');
  await writeFile(path.join(repo, '.env'), 'SECRET=1\n');
  await writeFile(path.join(repo, 'build.log'), 'log\n');
  // Uncommitted work: a staged edit, an unstaged edit, a deletion, an untracked file.
  await writeFile(path.join(repo, 'src/b.txt'), editLine(lines(5, 'bee'), 1, 'bee staged'));
  sh(repo, 'add', 'src/b.txt');
  await writeFile(path.join(repo, 'a.txt'), editLine(lines(20), 1, 'person edit before session'));
  await unlink(path.join(repo, 'gone.txt'));
  await writeFile(path.join(repo, 'untracked.txt'), 'new and not ignored\n');
  return { repo, dataDir: path.join(dir, 'data') };
}

describe('isolated workspace for a git project', { timeout: 300_000 }, () => {
  test('the base carries uncommitted and untracked work, not ignored files, and the person\'s repo is untouched', async () => {
    const { repo, dataDir } = await project();
    const statusBefore = sh(repo, 'status', '--porcelain');
    const headBefore = sh(repo, 'rev-parse', 'HEAD');
    const ws = await createWorkspace({ sessionId: 's1', source: repo, dataDir });
    assert.equal(ws.mode, 'git-clone');
    assert.equal(await readFile(path.join(ws.root, 'a.txt'), 'utf8'), editLine(lines(20), 1, 'person edit before session'));
    assert.equal(await readFile(path.join(ws.root, 'src/b.txt'), 'utf8'), editLine(lines(5, 'bee'), 1, 'bee staged'));
    assert.equal(await readFile(path.join(ws.root, 'untracked.txt'), 'utf8'), 'new and not ignored\n');
    assert.ok(!existsSync(path.join(ws.root, 'gone.txt')), 'a deleted file came back');
    assert.ok(!existsSync(path.join(ws.root, '.env')), 'an ignored secret was copied');
    assert.ok(!existsSync(path.join(ws.root, 'build.log')), 'an ignored file was copied');
    // Ignored build inputs: a read-only link to the real folder, invisible to git.
    assert.ok((await lstat(path.join(ws.root, 'node_modules'))).isSymbolicLink());
    assert.equal(await readlink(path.join(ws.root, 'node_modules')), path.join(repo, 'node_modules'));
    assert.equal(await readFile(path.join(ws.root, 'node_modules/pkg/index.js'), 'utf8'), 'module.exports = 1;\n');
    assert.deepEqual(ws.linkedReadOnly, ['node_modules']);
    assert.deepEqual(await listChanges(ws), []);
    assert.equal(sh(ws.root, 'status', '--porcelain'), '');
    // The person's repository: same status, same HEAD, same index; base pinned by a ref.
    assert.equal(sh(repo, 'status', '--porcelain'), statusBefore);
    assert.equal(sh(repo, 'rev-parse', 'HEAD'), headBefore);
    assert.equal(sh(repo, 'rev-parse', 'refs/accord/sessions/s1').trim(), ws.base);
    // gc in the person's repo cannot prune what the clone borrows.
    sh(repo, 'gc', '--quiet', '--prune=now');
    sh(ws.root, 'cat-file', '-e', `${ws.base}^{tree}`);
    assert.equal(sh(ws.root, 'status', '--porcelain'), '');
    assert.equal(sh(ws.root, 'remote'), '', 'the clone must not point back at the person\'s repo');
    await removeWorkspace(ws, dataDir);
    assert.ok(!existsSync(ws.workTree));
    assert.throws(() => sh(repo, 'rev-parse', '--verify', '-q', 'refs/accord/sessions/s1'));
  });

  test('changes are listed with status and counts, committed or not; base/current text per file', async () => {
    const { repo, dataDir } = await project();
    const ws = await createWorkspace({ sessionId: 's2', source: repo, dataDir });
    await writeFile(path.join(ws.root, 'a.txt'), editLine(await readFile(path.join(ws.root, 'a.txt'), 'utf8'), 15, 'agent line 15'));
    await writeFile(path.join(ws.root, 'c.txt'), 'created\nby agent\n');
    await unlink(path.join(ws.root, 'untracked.txt'));
    await rename(path.join(ws.root, 'src/b.txt'), path.join(ws.root, 'src/moved.txt'));
    sh(ws.root, 'add', 'c.txt');
    sh(ws.root, 'commit', '-q', '-m', 'agent commit');
    const changes = await listChanges(ws);
    const byPath = Object.fromEntries(changes.map((c) => [c.path, c]));
    assert.deepEqual(Object.keys(byPath).sort(), ['a.txt', 'c.txt', 'src/moved.txt', 'untracked.txt']);
    assert.deepEqual(byPath['a.txt'], { path: 'a.txt', status: 'modified', additions: 1, deletions: 1, binary: false });
    assert.equal(byPath['c.txt']!.status, 'added');
    assert.equal(byPath['c.txt']!.additions, 2);
    assert.equal(byPath['untracked.txt']!.status, 'deleted');
    assert.equal(byPath['src/moved.txt']!.status, 'renamed');
    assert.equal(byPath['src/moved.txt']!.oldPath, 'src/b.txt');
    assert.equal((await readBase(ws, 'a.txt'))!.toString(), editLine(lines(20), 1, 'person edit before session'));
    assert.match((await readCurrent(ws, 'a.txt'))!.toString(), /agent line 15/);
    assert.equal(await readBase(ws, 'c.txt'), null);
    assert.equal(await readCurrent(ws, 'untracked.txt'), null);
  });

  test("discard restores the base, protected files included; the person's tree is untouched", async () => {
    const { repo, dataDir } = await project();
    const ws = await createWorkspace({ sessionId: 's4', source: repo, dataDir });
    const baseText = await readFile(path.join(ws.root, 'a.txt'), 'utf8');
    const agentText = editLine(editLine(baseText, 3, 'agent line 3'), 18, 'agent line 18');
    await writeFile(path.join(ws.root, 'a.txt'), agentText);
    await writeFile(path.join(ws.root, '.accord/policy.json'), '{"version":1,"rules":[{"decision":"allow","tool":"*"}]}\n');
    assert.equal(await readFile(path.join(repo, 'a.txt'), 'utf8'), baseText);
    assert.equal(await readFile(path.join(repo, '.accord/policy.json'), 'utf8'), '{"version":1}\n');
    assert.deepEqual((await discard(ws)).sort(), ['.accord/policy.json', 'a.txt']);
    assert.deepEqual(await listChanges(ws), []);
  });

  test('a session started in a subfolder works in the matching subfolder of the clone', async () => {
    const { repo, dataDir } = await project();
    const ws = await createWorkspace({ sessionId: 's6', source: path.join(repo, 'src'), dataDir });
    assert.equal(ws.root, path.join(ws.workTree, 'src'));
    assert.equal(ws.applyTo, repo);
    assert.ok(existsSync(path.join(ws.root, 'b.txt')));
  });

  test('a same-size edit made in the second the clone was checked out is still listed later (racy git)', async () => {
    const { repo, dataDir } = await project();
    // Start on a fresh second, so the clone's checkout and the edit most likely share one;
    // list a second later, when a copy of the index made now would look newer than both.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
    const ws = await createWorkspace({ sessionId: 'racy', source: repo, dataDir });
    const file = path.join(ws.workTree, 'src/b.txt');
    await writeFile(file, (await readFile(file, 'utf8')).replace('bee 2', 'BEE 2'));
    await new Promise((resolve) => setTimeout(resolve, 1200));
    assert.deepEqual((await listChanges(ws)).map((c) => c.path), ['src/b.txt']);
    await removeWorkspace(ws, dataDir);
  });

  test('a repository in the middle of a conflicted merge is a clear error', async () => {
    const { repo, dataDir } = await project();
    sh(repo, 'stash', '-u', '-q');
    sh(repo, 'checkout', '-q', '-b', 'other');
    await writeFile(path.join(repo, 'a.txt'), 'other\n');
    sh(repo, 'commit', '-q', '-am', 'other');
    sh(repo, 'checkout', '-q', 'main');
    await writeFile(path.join(repo, 'a.txt'), 'main\n');
    sh(repo, 'commit', '-q', '-am', 'main');
    assert.throws(() => sh(repo, 'merge', '-q', 'other'));
    await assert.rejects(createWorkspace({ sessionId: 'm1', source: repo, dataDir }), (error: Error) => error instanceof WorkspaceError && /merge conflicts/.test(error.message));
  });

  test('time to create an isolated workspace for a 5,000-file repository', async (t) => {
    const dir = await scratch();
    const repo = path.join(dir, 'big');
    for (let d = 0; d < 50; d++) {
      await mkdir(path.join(repo, `dir${d}`), { recursive: true });
      await Promise.all(Array.from({ length: 100 }, (_, f) => writeFile(path.join(repo, `dir${d}`, `file${f}.ts`), `export const v${f} = ${d * 100 + f};\n`.repeat(20))));
    }
    sh(repo, 'init', '-q');
    sh(repo, 'add', '-A');
    sh(repo, 'commit', '-q', '-m', 'big');
    await writeFile(path.join(repo, 'dir0/file0.ts'), 'changed\n');
    const started = process.hrtime.bigint();
    const ws = await createWorkspace({ sessionId: 'big', source: repo, dataDir: path.join(dir, 'data') });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    t.diagnostic(`created an isolated workspace for 5,000 files in ${ms.toFixed(0)} ms`);
    console.log(`[measure] isolated workspace, 5,000-file repository: ${ms.toFixed(0)} ms`);
    assert.equal(await readFile(path.join(ws.root, 'dir0/file0.ts'), 'utf8'), 'changed\n');
    assert.ok(existsSync(path.join(ws.root, 'dir49/file99.ts')));
  });
});

describe('the root is reported before git runs when no repository can be above the project', { timeout: 120_000 }, () => {
  /** A `git` first on PATH that notes each run, then runs the real one. */
  async function countingGit(): Promise<{ runs: () => Promise<number>; restore: () => void }> {
    const bin = path.join(await scratch(), 'bin');
    await mkdir(bin);
    const log = path.join(bin, 'runs.log');
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    await writeFile(path.join(bin, 'git'), `#!/bin/sh\necho run >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    const before = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${before ?? ''}`;
    return {
      runs: async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).length,
      restore: () => void (process.env.PATH = before),
    };
  }

  test('a repository at the project folder: the root (the clone\'s) is reported before any git run', async () => {
    const { repo, dataDir } = await project();
    const git = await countingGit();
    try {
      let reported: { root: string; gitRuns: number } | undefined;
      const ws = await createWorkspace({ sessionId: 'early1', source: repo, dataDir }, async (root) => void (reported = { root, gitRuns: await git.runs() }));
      assert.equal(reported?.gitRuns, 0, 'no git before the root is known');
      assert.equal(reported?.root, ws.root);
      assert.equal(ws.mode, 'git-clone');
      assert.ok((await git.runs()) > 0, 'git made the copy afterwards');
    } finally {
      git.restore();
    }
  });

  test('a folder that is no repository: the shadow copy\'s root, also before git', async () => {
    const folder = path.join(await scratch(), 'plain');
    await mkdir(folder);
    await writeFile(path.join(folder, 'x.txt'), 'x\n');
    const git = await countingGit();
    try {
      let reported: { root: string; gitRuns: number } | undefined;
      const ws = await createWorkspace({ sessionId: 'early2', source: folder, dataDir: path.join(path.dirname(folder), 'data') }, async (root) => void (reported = { root, gitRuns: await git.runs() }));
      assert.equal(reported?.gitRuns, 0);
      assert.equal(reported?.root, ws.root);
      assert.equal(ws.mode, 'shadow-copy');
    } finally {
      git.restore();
    }
  });

  test('a subfolder of a repository: git is asked first, and the root is the clone\'s subfolder', async () => {
    const { repo, dataDir } = await project();
    const git = await countingGit();
    try {
      let reported: { root: string; gitRuns: number } | undefined;
      const ws = await createWorkspace({ sessionId: 'early3', source: path.join(repo, 'src'), dataDir }, async (root) => void (reported = { root, gitRuns: await git.runs() }));
      assert.ok(reported!.gitRuns > 0, 'a .git above the folder: git decides the root');
      assert.equal(reported?.root, path.join(ws.workTree, 'src'));
      assert.equal(ws.root, reported?.root);
    } finally {
      git.restore();
    }
  });

  test('attack: a bare repository above the project names a work tree around it; the copy fails clearly instead of working in another root', async () => {
    const dir = await scratch();
    const outer = path.join(dir, 'outer');
    sh(dir, 'init', '-q', '--bare', outer);
    const project = path.join(outer, 'sub', 'project');
    await mkdir(project, { recursive: true });
    await writeFile(path.join(project, 'x.txt'), 'x\n');
    sh(dir, `--git-dir=${outer}`, 'config', 'core.bare', 'false');
    sh(dir, `--git-dir=${outer}`, 'config', 'core.worktree', path.join(outer, 'sub'));
    const dataDir = path.join(dir, 'data');
    const reported: string[] = [];
    await assert.rejects(
      createWorkspace({ sessionId: 'bare1', source: project, dataDir }, (root) => void reported.push(root)),
      (error: Error) => error instanceof WorkspaceError && error.message.includes(path.join(outer, 'sub')),
    );
    assert.equal(reported.length, 1, 'the root was reported before git ran');
    assert.equal(existsSync(path.join(dataDir, 'sessions', 'bare1')), false, 'nothing of the copy is left');
  });
});

describe('shadow copy of a folder that is not a git repository', () => {
  test('copies, records a base, lists changes; the folder itself is untouched', async () => {
    const dir = await scratch();
    const folder = path.join(dir, 'plain');
    await mkdir(path.join(folder, 'sub'), { recursive: true });
    await writeFile(path.join(folder, 'x.txt'), lines(10));
    await writeFile(path.join(folder, 'sub/y.txt'), 'y\n');
    const ws = await createWorkspace({ sessionId: 'p1', source: folder, dataDir: path.join(dir, 'data') });
    assert.equal(ws.mode, 'shadow-copy');
    assert.deepEqual(await listChanges(ws), []);
    await writeFile(path.join(ws.root, 'x.txt'), editLine(lines(10), 2, 'agent'));
    await writeFile(path.join(ws.root, 'z.txt'), 'new\n');
    assert.deepEqual((await listChanges(ws)).map((c) => `${c.status} ${c.path}`).sort(), ['added z.txt', 'modified x.txt']);
    assert.equal(await readFile(path.join(folder, 'x.txt'), 'utf8'), lines(10));
    assert.ok(!existsSync(path.join(folder, 'z.txt')));
    assert.ok(!existsSync(path.join(folder, '.git')), 'the private repository leaked into the folder');
  });

  test('a folder over the size cap is a clear error and leaves nothing behind', async () => {
    const dir = await scratch();
    const folder = path.join(dir, 'plain');
    await mkdir(folder);
    await writeFile(path.join(folder, 'big.bin'), Buffer.alloc(64 * 1024));
    await assert.rejects(
      createWorkspace({ sessionId: 'p2', source: folder, dataDir: path.join(dir, 'data'), maxCopyBytes: 1024 }),
      (error: Error) => error instanceof WorkspaceError && /larger than/.test(error.message) && /git init/.test(error.message),
    );
    assert.ok(!existsSync(path.join(dir, 'data/sessions/p2')));
  });
});

describe('in-place sessions', () => {
  test('snapshots record a base; changes are listed and discard restores the real files', async () => {
    const { repo, dataDir } = await project();
    const ws = await createWorkspace({ sessionId: 'i1', source: repo, dataDir, inPlace: true });
    assert.equal(ws.mode, 'in-place');
    assert.equal(ws.root, repo);
    const before = await readFile(path.join(repo, 'a.txt'), 'utf8');
    await snapshot(ws, 'before edit_file a.txt');
    await writeFile(path.join(repo, 'a.txt'), editLine(before, 10, 'agent in place'));
    const changes = await listChanges(ws);
    assert.deepEqual(changes.map((c) => `${c.status} ${c.path}`), ['modified a.txt']);
    await discard(ws, ['a.txt']);
    assert.equal(await readFile(path.join(repo, 'a.txt'), 'utf8'), before);
    assert.ok(!existsSync(path.join(repo, '.git/refs/accord')), 'in-place snapshots must not touch the project repository');
  });
});

describe('attack: files past the review limit in the copy', { timeout: 300_000 }, () => {
  test('a 1 TB sparse file and a grown 17 MB file are listed as too large without git hashing them; the other changes list, read and discard', async () => {
    const { repo, dataDir } = await project();
    const ws = await createWorkspace({ sessionId: 'big1', source: repo, dataDir });
    // Hashing a terabyte of zeros takes git hours (about 100 MB/s here) and would write its deflated blob to the host's git dir.
    const huge = await open(path.join(ws.workTree, 'huge.bin'), 'w');
    await huge.truncate(2 ** 40);
    await huge.close();
    // A tracked file grown past the limit, with content git would store if it read it.
    const grown = Buffer.alloc(REVIEW_LIMIT_BYTES + 1, 'grown past the limit\n');
    await writeFile(path.join(ws.workTree, 'a.txt'), grown);
    await writeFile(path.join(ws.workTree, 'c.txt'), 'created\nby agent\n');

    const changes = await listChanges(ws);
    const byPath = Object.fromEntries(changes.map((c) => [c.path, c]));
    assert.deepEqual(Object.keys(byPath).sort(), ['a.txt', 'c.txt', 'huge.bin']);
    assert.deepEqual(byPath['huge.bin'], { path: 'huge.bin', status: 'added', additions: 0, deletions: 0, binary: true });
    assert.deepEqual(byPath['a.txt'], { path: 'a.txt', status: 'modified', additions: 0, deletions: 0, binary: true });
    assert.equal(byPath['c.txt']!.additions, 2);
    const grownId = execFileSync('git', ['hash-object', '--stdin'], { input: grown, encoding: 'utf8' }).trim();
    assert.throws(() => sh(ws.gitDir, '--git-dir', ws.gitDir, 'cat-file', '-e', grownId), 'git stored the oversized content in the host-side git dir');
    assert.equal((await fileSides(ws, byPath['huge.bin']!)).tooLarge, 'too large (1048576 MB)');
    assert.equal((await fileSides(ws, byPath['a.txt']!)).tooLarge, 'too large (16 MB)');

    // Shrunk below the limit, the file is hashed and reviewed as text again.
    await writeFile(path.join(ws.workTree, 'huge.bin'), 'small now\n');
    const again = Object.fromEntries((await listChanges(ws)).map((c) => [c.path, c]));
    assert.deepEqual(again['huge.bin'], { path: 'huge.bin', status: 'added', additions: 1, deletions: 0, binary: false });
    assert.equal((await fileSides(ws, again['huge.bin']!)).currentText, 'small now\n');
    assert.deepEqual((await discard(ws, ['a.txt'])).sort(), ['a.txt']);
    assert.deepEqual((await listChanges(ws)).map((c) => c.path).sort(), ['c.txt', 'huge.bin']);
  });

  test('a folder swapped for a link to a big file elsewhere: its file is listed as deleted, sized through no link', async () => {
    const { repo, dataDir } = await project();
    const ws = await createWorkspace({ sessionId: 'big2', source: repo, dataDir });
    const elsewhere = path.join(path.dirname(repo), 'elsewhere');
    await mkdir(elsewhere);
    await writeFile(path.join(elsewhere, 'b.txt'), Buffer.alloc(REVIEW_LIMIT_BYTES + 1, 'e'));
    await rm(path.join(ws.workTree, 'src'), { recursive: true });
    await symlink(elsewhere, path.join(ws.workTree, 'src'));
    const byPath = Object.fromEntries((await listChanges(ws)).map((c) => [c.path, c]));
    assert.equal(byPath['src/b.txt']?.status, 'deleted', JSON.stringify(byPath));
    assert.equal(byPath['src']?.status, 'added');
    assert.equal((await fileSides(ws, byPath['src/b.txt']!)).currentText, null);
  });
});

describe('attack: answers bigger than one JSON-RPC line a client accepts', { timeout: 300_000 }, () => {
  // The ACP SDK's reader (the extension's, the tests') ends the whole connection on a
  // line over 32 MiB (MAX_LINE_BYTES is that default): every session of the agent with it.
  const answerBytes = (result: unknown) => Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, result }));

  test('a file of control characters under the review limit (6 bytes each in JSON) is reported too large to send, not sent', async () => {
    const { repo, dataDir } = await project();
    const ws = await createWorkspace({ sessionId: 'wire1', source: repo, dataDir });
    // No NUL, so git counts it as text: 8 MiB of \x01 is 48 MiB as a JSON string.
    await writeFile(path.join(ws.workTree, 'ctl.txt'), Buffer.alloc(8 * 1024 * 1024, 1));
    const change = (await listChanges(ws)).find((c) => c.path === 'ctl.txt')!;
    assert.equal(change.binary, false, 'git calls it text');
    const sides = await fileSides(ws, change);
    assert.ok(answerBytes(sides) <= MAX_LINE_BYTES, `the answer is ${answerBytes(sides)} bytes`);
    assert.match(sides.tooLarge ?? '', /^too large \(\d+ MB as text\)$/);
    assert.equal(sides.currentText, null);
  });

  test('a 16 MB text file the agent edited: each side fits the review limit, both together (newlines escaped) not one line', async () => {
    const { repo, dataDir } = await project();
    const big = 'x'.repeat(99) + '\n';
    await writeFile(path.join(repo, 'big.txt'), big.repeat(167_000));
    sh(repo, 'add', 'big.txt');
    sh(repo, 'commit', '-q', '-m', 'big');
    const ws = await createWorkspace({ sessionId: 'wire2', source: repo, dataDir });
    await writeFile(path.join(ws.workTree, 'big.txt'), 'agent\n' + big.repeat(167_000));
    assert.ok(167_000 * 100 + 6 < REVIEW_LIMIT_BYTES, 'each side is under the review limit');
    const change = (await listChanges(ws)).find((c) => c.path === 'big.txt')!;
    const sides = await fileSides(ws, change);
    assert.ok(answerBytes(sides) <= MAX_LINE_BYTES, `the answer is ${answerBytes(sides)} bytes`);
    assert.ok(sides.tooLarge !== undefined);
    // An ordinary change still comes back as text.
    await writeFile(path.join(ws.workTree, 'small.txt'), 'ok "quoted"\n');
    const small = (await listChanges(ws)).find((c) => c.path === 'small.txt')!;
    assert.equal((await fileSides(ws, small)).currentText, 'ok "quoted"\n');
  });
});

describe('attack: a list of changes bigger than one JSON-RPC line', { timeout: 300_000 }, () => {
  test('8,500 files with 4 KB paths (35 MB as a list) fail the list with a clear message instead of an answer no client can read', async () => {
    const { repo, dataDir } = await project();
    const ws = await createWorkspace({ sessionId: 'wire3', source: repo, dataDir });
    const deep = path.join(ws.workTree, ...Array.from({ length: 16 }, (_, i) => `${i}`.padEnd(250, 'd')));
    await mkdir(deep, { recursive: true });
    for (let i = 0; i < 8_500; i++) await writeFile(path.join(deep, `f${i}`), '');
    await assert.rejects(changesAnswer(ws), (error: Error) => /8,50\d files/.test(error.message) && /too long/.test(error.message) && /discard/.test(error.message));
    // Fewer files: the answer is the list.
    await rm(path.join(ws.workTree, '0'.padEnd(250, 'd')), { recursive: true });
    await writeFile(path.join(ws.workTree, 'c.txt'), 'c\n');
    assert.deepEqual((await changesAnswer(ws)).changes.map((c) => c.path), ['c.txt']);
  });
});
