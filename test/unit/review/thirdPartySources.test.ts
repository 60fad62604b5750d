// The review sources against what real third-party agents do (issue 20): an
// agent that writes the file itself and then sends fs/write_text_file without
// waiting (opencode), one that names a folder as a location, a symbolic link
// planted where a file was, and two sessions side by side. A real ReviewStore
// over a temp dir; a fast-check model for "the earliest before wins".
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ReviewStore, type RealTree } from '../../../extension/review/reviewStore';
import { diskTree } from './trees';
import { sameContent } from '../../../extension/review/contentMerge';
import { DirectDiskSource } from '../../../extension/review/directSource';
import { StagedWriteSource } from '../../../extension/review/stagedSource';
import { isPending, kindOf } from '../../../extension/review/fileReview';

let root = '';
let counter = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'accord-third-party-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh folder per test, so tests never see each other's files. */
async function scratch(): Promise<string> {
  const dir = join(root, `case-${++counter}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** The wiring SessionReviews does: the staged source asks the direct one for an earlier snapshot. */
function sources(project?: string) {
  const store = new ReviewStore(diskTree);
  const failures: { sessionId: string; path: string; why: string }[] = [];
  const direct = new DirectDiskSource(store, diskTree, {
    knownPaths: () => [],
    handledElsewhere: (sessionId, path, now) => store.inSession(sessionId).some((f) => f.path === path && f.origin !== 'direct' && sameContent(f.landed.get(path) ?? null, now)),
    projectRoot: () => project,
    failed: (sessionId, failure) => failures.push({ sessionId, ...failure }),
  });
  const staged = new StagedWriteSource(store, diskTree, {
    snapshotOf: (sessionId, path) => direct.snapshotOf(sessionId, path),
    keep: (sessionId, path, content) => direct.keep(sessionId, path, content),
    projectFolder: () => root,
  });
  return { store, direct, staged, failures };
}

const text = (path: string) => readFile(path, 'utf8');
const FOUR = 'one\ntwo\nthree\nfour\n';

describe('an agent that writes the file itself, then sends fs/write_text_file without waiting (opencode)', () => {
  test('the review keeps the snapshot taken before the call ran; Reject restores exactly those bytes', async () => {
    const dir = await scratch();
    const file = join(dir, 'notes.md');
    const original = Buffer.from('one\r\ntwo\r\n\u00e9t\u00e9\r\nfour'); // CRLF, no final newline, non-ASCII: bytes, not lines
    await writeFile(file, original);
    const { store, direct, staged } = sources();
    await direct.beginTurn('s', '1');
    await direct.toolCall('s', '1', { toolCallId: 'c', status: 'pending', kind: 'edit', locations: [{ path: file }] });
    assert.deepEqual(await direct.prepare('s', '1', { toolCallId: 'c', kind: 'edit', locations: [{ path: file }] }), []);
    await writeFile(file, 'replaced\n'); // the agent writes first…
    await staged.stage('s', '1', file, 'replaced\n'); // …then tells the client
    const [review] = store.all();
    assert.ok(review);
    assert.equal(review.origin, 'direct', 'the disk already holds it: a change made, not one held back');
    assert.deepEqual(Buffer.from(review.base!), original, 'the base is the snapshot, not the disk after the write');
    assert.ok(review.hunks.length > 0, 'not +0 −0');
    await store.decideFile(review, 'rejected');
    assert.deepEqual(await readFile(file), original);
    // The watcher then reports the restore; it is not a new change.
    await direct.fileChanged(file, 'changed');
    await direct.endTurn('s', '1');
    assert.equal(store.all().length, 1);
    assert.equal(isPending(review), false);
  });

  test('undoing the turn restores the snapshot too, and the watcher seeing the write first changes nothing', async () => {
    const dir = await scratch();
    const file = join(dir, 'notes.md');
    await writeFile(file, FOUR);
    const { store, direct, staged } = sources();
    await direct.beginTurn('s', '1');
    await direct.toolCall('s', '1', { toolCallId: 'c', status: 'pending', locations: [{ path: file }] });
    await writeFile(file, 'x\n');
    await direct.fileChanged(file, 'changed'); // the watcher was quicker than the fs/write_text_file
    await staged.stage('s', '1', file, 'x\n');
    await direct.endTurn('s', '1');
    const reviews = store.all();
    assert.equal(reviews.length, 1, 'one review of the file');
    assert.equal(reviews[0]!.baseText, FOUR);
    await store.undoTurn('s', '1');
    assert.equal(await text(file), FOUR);
  });

  test('a write held back as usual (the agent did not write the disk) stays staged', async () => {
    const dir = await scratch();
    const file = join(dir, 'held.md');
    await writeFile(file, FOUR);
    const { store, direct, staged } = sources();
    await direct.beginTurn('s', '1');
    await staged.stage('s', '1', file, 'held\n');
    assert.equal(store.all()[0]?.origin, 'staged');
    assert.equal(await text(file), FOUR);
  });
});

describe('the review\'s own restore seen by the watcher', () => {
  test('a watcher event that arrives before the store records the restore is not a new change (the card stays rejected)', async () => {
    const dir = await scratch();
    const file = join(dir, 'race.txt');
    await writeFile(file, FOUR);
    let direct: DirectDiskSource | undefined;
    // The watcher reports the write while the review's write call has not returned yet.
    const racingTree: RealTree = {
      read: diskTree.read,
      async write(path, content) {
        await diskTree.write(path, content);
        await direct!.fileChanged(path, 'changed');
      },
    };
    const store = new ReviewStore(racingTree);
    direct = new DirectDiskSource(store, racingTree, { knownPaths: () => [file] });
    await direct.beginTurn('s', '1');
    await writeFile(file, 'agent\n');
    await direct.fileChanged(file, 'changed');
    const [review] = store.all();
    assert.ok(review);
    await store.decideFile(review, 'rejected');
    assert.equal(await text(file), FOUR);
    assert.equal(review.proposedText, 'agent\n', 'still the agent\'s change');
    assert.equal(isPending(review), false, 'still rejected');
  });
});

describe('fs/write_text_file through a planted link (attack)', () => {
  test('a write to a symbolic link, or under a linked folder, is refused with the reason and nothing is held', async () => {
    const dir = await scratch();
    const outside = await mkdtemp(join(tmpdir(), 'accord-outside-'));
    try {
      await writeFile(join(outside, 'bashrc'), 'safe\n');
      await symlink(join(outside, 'bashrc'), join(dir, 'notes.md'));
      await symlink(outside, join(dir, 'linked-dir'));
      const { store, staged } = sources();
      await assert.rejects(staged.stage('s', '1', join(dir, 'notes.md'), 'evil\n'), /symbolic link/);
      await assert.rejects(staged.stage('s', '1', join(dir, 'linked-dir', 'bashrc'), 'evil\n'), /linked-dir on its way is a symbolic link/);
      await assert.rejects(staged.stage('s', '1', join(dir, 'linked-dir', 'new', 'x.txt'), 'evil\n'), /linked-dir on its way is a symbolic link/);
      assert.equal(store.all().length, 0);
      assert.equal(await text(join(outside, 'bashrc')), 'safe\n');
      await staged.stage('s', '1', join(dir, 'plain', 'new.txt'), 'fine\n'); // a plain path that does not exist yet is fine
      assert.equal(store.all().length, 1);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test("attack: a write into git's folder, the editor's settings, Accord's policy or a shell startup file is refused, in any spelling, and nothing is held", async () => {
    // "Accept all" would otherwise land a git hook, a folder-open task or a widened policy.
    const dir = await scratch();
    const { store, staged } = sources();
    for (const target of ['.git/hooks/pre-commit', '.GIT/config', '.vscode/tasks.json', '.VSCode/settings.json', '.accord/policy.json', '.Accord./policy.json', 'sub/.git/hooks/post-checkout', '.envrc', 'x/.bashrc']) {
      await assert.rejects(staged.stage('s', '1', join(dir, target), 'evil\n'), /protected|never lands|not let/i, target);
    }
    assert.equal(store.all().length, 0);
    await staged.stage('s', '1', join(dir, 'src', '.github', 'workflow.yml'), 'fine\n'); // a name merely like them is fine
    assert.equal(store.all().length, 1);
  });
});

describe('a folder as a location', () => {
  test('is handled, not an error: its files are kept, a change and an addition under it are reviewed and undone', async () => {
    const dir = await scratch();
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'a.ts'), 'a\n');
    await mkdir(join(dir, 'node_modules', 'x'), { recursive: true });
    await writeFile(join(dir, 'node_modules', 'x', 'i.js'), 'ignored\n');
    const { store, direct, failures } = sources();
    await direct.beginTurn('s', '1');
    const call = { toolCallId: 'sh', status: 'pending', kind: 'execute', rawInput: { command: 'make' }, locations: [{ path: dir }] };
    assert.deepEqual(await direct.prepare('s', '1', call), []);
    await direct.toolCall('s', '1', call);
    assert.deepEqual(failures, []);
    await writeFile(join(dir, 'src', 'a.ts'), 'A\n');
    await writeFile(join(dir, 'src', 'new.ts'), 'new\n');
    await direct.fileChanged(join(dir, 'src', 'new.ts'), 'created');
    await direct.toolCall('s', '1', { ...call, status: 'completed' });
    await direct.endTurn('s', '1');
    const byPath = new Map(store.all().map((f) => [f.path, f]));
    assert.equal(byPath.get(join(dir, 'src', 'a.ts'))?.baseText, 'a\n');
    assert.equal(kindOf(byPath.get(join(dir, 'src', 'new.ts'))!), 'added');
    assert.equal(byPath.size, 2, `only those two: ${[...byPath.keys()].join(', ')}`);
    await store.undoTurn('s', '1');
    assert.equal(await text(join(dir, 'src', 'a.ts')), 'a\n');
    assert.equal(await diskTree.read(join(dir, 'src', 'new.ts')), null);
  });

  test("another session's next turn is not touched by it: its own write is still reviewable (the two-agent case)", async () => {
    const dir = await scratch();
    const file = join(dir, 'b.txt');
    await writeFile(file, 'b\n');
    const { store, direct, failures } = sources();
    // Session A (opencode) names the project folder in a shell call.
    await direct.beginTurn('A', '1');
    await direct.toolCall('A', '1', { toolCallId: 'sh', status: 'pending', kind: 'execute', locations: [{ path: dir }] });
    await direct.toolCall('A', '1', { toolCallId: 'sh', status: 'completed', kind: 'execute', locations: [{ path: dir }] });
    await direct.endTurn('A', '1');
    // A's next turn starts too: the folder it touched is not read as a file.
    await direct.beginTurn('A', '2');
    await direct.endTurn('A', '2');
    // Session B (claude) writes a file in the same folder.
    await direct.beginTurn('B', '1');
    await direct.toolCall('B', '1', { toolCallId: 'w', status: 'pending', kind: 'edit', locations: [{ path: file }] });
    await writeFile(file, 'B\n');
    await direct.toolCall('B', '1', { toolCallId: 'w', status: 'completed', kind: 'edit', locations: [{ path: file }] });
    await direct.endTurn('B', '1');
    assert.deepEqual(failures, [], 'no snapshot failed');
    const review = store.inSession('B').find((f) => f.path === file);
    assert.ok(review && isPending(review), "B's write is under review");
    assert.equal(store.inSession('A').length, 0, "A's turn changed nothing");
    await store.decideFile(review, 'rejected');
    assert.equal(await text(file), 'b\n');
  });
});

describe("what an agent makes that is not a file, reported 'created' during its turn (codex-acp makes .codex and .agents)", () => {
  test('a new folder is no addition and no error', async () => {
    const dir = await scratch();
    const { store, direct, failures } = sources();
    await direct.beginTurn('s', '1');
    await mkdir(join(dir, '.codex'));
    await direct.fileChanged(join(dir, '.codex'), 'created'); // rejected with "File is a directory" before
    await direct.endTurn('s', '1');
    assert.deepEqual(store.all(), []);
    assert.deepEqual(failures, []);
  });

  test('a new file beside it still is an addition', async () => {
    const dir = await scratch();
    const { store, direct } = sources();
    await direct.beginTurn('s', '1');
    await mkdir(join(dir, '.agents'));
    await direct.fileChanged(join(dir, '.agents'), 'created');
    await writeFile(join(dir, 'made.txt'), 'made\n');
    await direct.fileChanged(join(dir, 'made.txt'), 'created');
    await direct.endTurn('s', '1');
    assert.deepEqual(store.all().map((f) => [f.path, kindOf(f)]), [[join(dir, 'made.txt'), 'added']]);
  });

  test('attack: a link the agent planted to a file outside is not read through and not offered as its addition', async () => {
    const dir = await scratch();
    const outside = join(await scratch(), 'secret.txt');
    await writeFile(outside, 'secret\n');
    const { store, direct, failures } = sources();
    await direct.beginTurn('s', '1');
    await symlink(outside, join(dir, 'innocent.txt'));
    await direct.fileChanged(join(dir, 'innocent.txt'), 'created');
    await direct.endTurn('s', '1');
    assert.deepEqual(store.all(), [], 'nothing under review holds the outside file\'s text');
    assert.deepEqual(failures, []);
    assert.equal(await text(outside), 'secret\n');
  });
});

describe('a snapshot that cannot be taken', () => {
  test('says which file and why, and blocks nothing else in the call', async () => {
    const dir = await scratch();
    const good = join(dir, 'good.txt');
    const link = join(dir, 'link.txt');
    const outside = join(dir, 'outside-target.txt');
    await writeFile(good, 'good\n');
    await writeFile(outside, 'secret\n');
    await symlink(outside, link);
    const { store, direct } = sources();
    await direct.beginTurn('s', '1');
    const failures = await direct.prepare('s', '1', { toolCallId: 'c', kind: 'edit', locations: [{ path: link }, { path: good }] });
    assert.equal(failures.length, 1);
    assert.equal(failures[0]!.path, link);
    assert.match(failures[0]!.why, /symbolic link/);
    assert.equal(direct.failureOf('s', link), failures[0]!.why);
    await writeFile(good, 'GOOD\n');
    await direct.toolCall('s', '1', { toolCallId: 'c', status: 'completed', locations: [{ path: link }, { path: good }] });
    assert.equal(store.all().find((f) => f.path === good)?.baseText, 'good\n', 'the other file is still reviewed');
    assert.equal(store.all().find((f) => f.path === link), undefined, 'the link is never restored through');
  });

  test("a link already in a kept folder is not taken for the agent's new file (rejecting it would delete the person's link)", async () => {
    const dir = await scratch();
    await writeFile(join(dir, 'target.txt'), 'target\n');
    await symlink(join(dir, 'target.txt'), join(dir, 'mine-link.txt'));
    const { store, direct } = sources();
    await direct.beginTurn('s', '1');
    assert.deepEqual(await direct.prepare('s', '1', { toolCallId: 'c', kind: 'execute', locations: [{ path: dir }] }), []);
    await direct.fileChanged(join(dir, 'mine-link.txt'), 'changed');
    await direct.endTurn('s', '1');
    assert.equal(store.all().length, 0);
  });

  test('a request outside any turn is said to be unreviewable', async () => {
    const { direct } = sources();
    const failures = await direct.prepare('s', '9', { toolCallId: 'c', kind: 'edit', locations: [{ path: '/nowhere' }] });
    assert.equal(failures.length, 1);
    assert.match(failures[0]!.why, /no turn/);
  });

  test('a command with no folder and no project open is said to be unreviewable', async () => {
    const { direct } = sources(undefined);
    await direct.beginTurn('s', '1');
    const failures = await direct.prepare('s', '1', { toolCallId: 'c', kind: 'execute', rawInput: { command: 'rm -rf x' } });
    assert.equal(failures.length, 1);
    assert.match(failures[0]!.why, /no folder/);
  });
});

/** A promise with its resolver, so a test decides when an awaited step finishes. */
function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

// claude's Write sends oldText: null whatever is on disk. The file watcher can report the person's own
// earlier write of that file late (VS Code batches and delays events under load) as 'created'; whether
// it is new is decided by its mtime, read after an await. If the agent writes in between, that mtime is
// the agent's, and taking the file as new would make Reject delete the person's file.
describe("a late 'created' watcher event racing the call's snapshot (claude Write with oldText: null)", () => {
  const write = (file: string, status: 'pending' | 'completed') => ({
    toolCallId: 'w', kind: 'edit' as const, status, locations: [{ path: file }],
    content: [{ type: 'diff', path: file, oldText: null, newText: 'just one\n' }],
  });

  test('the snapshot taken while the event was being looked at stays the base: reviewed as a change, Reject restores', async (t) => {
    const dir = await scratch();
    const file = join(dir, 'claude-notes.md');
    await writeFile(file, FOUR); // the person's file, written before the turn
    const turnStart = 1_796_000_000_000;
    t.mock.method(Date, 'now', () => turnStart);
    const asked = gate();
    const mtime = gate<number>();
    const store = new ReviewStore(diskTree);
    const direct = new DirectDiskSource(store, diskTree, {
      knownPaths: () => [],
      modifiedAt: async () => {
        asked.open();
        return mtime.promise;
      },
    });
    await direct.beginTurn('s', '1');
    const late = direct.fileChanged(file, 'created'); // the person's write, reported late
    await asked.promise; // the event is waiting for the file's mtime
    await direct.toolCall('s', '1', write(file, 'pending'));
    assert.deepEqual(await direct.prepare('s', '1', write(file, 'pending')), [], 'reviewable: the base is kept');
    await writeFile(file, 'just one\n'); // allowed: the agent writes
    mtime.open(turnStart + 50); // so the mtime read is the agent's
    await late;
    await direct.toolCall('s', '1', write(file, 'completed'));
    await direct.endTurn('s', '1');
    const reviews = store.all().filter((f) => f.path === file);
    assert.equal(reviews.length, 1);
    const [review] = reviews;
    assert.equal(kindOf(review!), 'modified');
    assert.equal(review!.baseText, FOUR);
    await store.decideFile(review!, 'rejected');
    assert.equal(await text(file), FOUR, 'Reject puts the four lines back, never deletes the file');
  });

  test('an event that arrives while the snapshot is still being read does not take the file as new', async (t) => {
    const dir = await scratch();
    const file = join(dir, 'claude-slow.md');
    await writeFile(file, FOUR);
    const turnStart = 1_796_000_000_000;
    t.mock.method(Date, 'now', () => turnStart);
    const reading = gate();
    const release = gate();
    let hold = false;
    // The call's snapshot read is held until the test lets it finish.
    const slowTree: RealTree = {
      async read(path) {
        const content = await diskTree.read(path);
        if (hold && path === file) {
          hold = false;
          reading.open();
          await release.promise;
        }
        return content;
      },
      write: diskTree.write,
    };
    const store = new ReviewStore(slowTree);
    const direct = new DirectDiskSource(store, slowTree, { knownPaths: () => [], modifiedAt: async () => turnStart + 50 });
    await direct.beginTurn('s', '1');
    hold = true;
    const prepared = direct.prepare('s', '1', write(file, 'pending'));
    await reading.promise; // the snapshot has read the four lines but not kept them yet
    await direct.fileChanged(file, 'created');
    release.open();
    assert.deepEqual(await prepared, []);
    await writeFile(file, 'just one\n');
    await direct.toolCall('s', '1', write(file, 'completed'));
    await direct.endTurn('s', '1');
    const reviews = store.all().filter((f) => f.path === file);
    assert.equal(reviews.length, 1);
    assert.equal(kindOf(reviews[0]!), 'modified');
    assert.equal(reviews[0]!.baseText, FOUR);
    await store.decideFile(reviews[0]!, 'rejected');
    assert.equal(await text(file), FOUR);
  });
});

describe("a snapshot that fails is never taken for an absent file (claude's oldText: null)", () => {
  const write = (file: string, status: 'pending' | 'completed') => ({
    toolCallId: 'w', kind: 'edit' as const, status, locations: [{ path: file }],
    content: [{ type: 'diff', path: file, oldText: null, newText: 'just one\n' }],
  });

  test('the dialog hears it is unreviewable; neither the completion nor a late watcher event makes it an addition', async () => {
    const dir = await scratch();
    const file = join(dir, 'unreadable.md');
    await writeFile(file, FOUR);
    const store = new ReviewStore(diskTree);
    const denied = Object.assign(new Error(`EACCES: permission denied, lstat '${file}'`), { code: 'EACCES' });
    const direct = new DirectDiskSource(store, diskTree, {
      knownPaths: () => [],
      pathKind: async (path) => {
        if (path === file) throw denied;
        return 'file';
      },
    });
    await direct.beginTurn('s', '1');
    const failures = await direct.prepare('s', '1', write(file, 'pending'));
    assert.deepEqual(failures.map((f) => f.path), [file]);
    assert.match(failures[0]!.why, /permission denied/);
    await writeFile(file, 'just one\n'); // allowed anyway
    await direct.fileChanged(file, 'created');
    await direct.toolCall('s', '1', write(file, 'completed'));
    await direct.endTurn('s', '1');
    assert.equal(store.all().length, 0, 'no review whose Reject would delete the file');
    assert.equal(await text(file), 'just one\n');
  });

  test('a call whose preparation throws is unreviewable as a whole, not silently reviewable', async () => {
    const dir = await scratch();
    const file = join(dir, 'run.sh');
    await writeFile(file, FOUR);
    const store = new ReviewStore(diskTree);
    const direct = new DirectDiskSource(store, diskTree, {
      knownPaths: () => [],
      projectRoot: () => {
        throw new Error('the workspace folders could not be read');
      },
    });
    await direct.beginTurn('s', '1');
    // A command naming a file but no folder: its working folder is the project, which cannot be found.
    const failures = await direct.prepare('s', '1', { toolCallId: 'x', kind: 'execute', locations: [{ path: file }], rawInput: { command: 'make' } });
    assert.equal(failures.length, 1);
    assert.match(failures[0]!.why, /workspace folders could not be read/);
  });
});

describe('the earliest "before" wins (property)', () => {
  // Model: each file starts with its initial text. A file is protected once a
  // call names it (or a staged write arrives) before anything wrote it; the
  // first such moment fixes its "before". After the turn, rejecting
  // everything must leave each protected file exactly as it was then, and
  // leave unprotected ones as the agent left them.
  type Op =
    | { op: 'announce'; file: number }
    | { op: 'diskWrite'; file: number; text: string }
    | { op: 'writeThenStage'; file: number; text: string }
    | { op: 'stageOnly'; file: number; text: string };
  const file = fc.integer({ min: 0, max: 2 });
  const body = fc.constantFrom('x\n', 'y\ny\n', '', 'z');
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ op: fc.constant('announce' as const), file }),
    fc.record({ op: fc.constant('diskWrite' as const), file, text: body }),
    fc.record({ op: fc.constant('writeThenStage' as const), file, text: body }),
    fc.record({ op: fc.constant('stageOnly' as const), file, text: body }),
  );

  test('reject everything → each file is back to its earliest snapshot', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
        const dir = await scratch();
        const paths = [0, 1, 2].map((i) => join(dir, `f${i}.txt`));
        const initial = ['a\nb\n', 'c\n', 'only\n'];
        for (const [i, p] of paths.entries()) await writeFile(p, initial[i]!);
        const { store, direct, staged } = sources();
        await direct.beginTurn('s', '1');
        const disk = [...initial];
        const protectedAt = new Map<number, string>();
        const stagedOnly = new Set<number>();
        let call = 0;
        for (const step of ops) {
          const path = paths[step.file]!;
          if (step.op === 'announce') {
            if (!protectedAt.has(step.file)) protectedAt.set(step.file, disk[step.file]!);
            await direct.toolCall('s', '1', { toolCallId: `c${++call}`, status: 'pending', locations: [{ path }] });
          } else if (step.op === 'diskWrite') {
            disk[step.file] = step.text;
            await writeFile(path, step.text);
            await direct.fileChanged(path, 'changed');
          } else if (step.op === 'writeThenStage') {
            disk[step.file] = step.text;
            await writeFile(path, step.text);
            if (!protectedAt.has(step.file)) protectedAt.set(step.file, disk[step.file]!); // staged after the write: that is its before
            await staged.stage('s', '1', path, step.text);
          } else {
            if (!protectedAt.has(step.file)) protectedAt.set(step.file, disk[step.file]!);
            stagedOnly.add(step.file);
            await staged.stage('s', '1', path, step.text);
          }
        }
        await direct.endTurn('s', '1');
        await store.decideFiles(store.all(), 'rejected');
        for (const [i, p] of paths.entries()) {
          const expected = protectedAt.get(i) ?? disk[i]!;
          assert.equal(await text(p), expected, `f${i} after ${JSON.stringify(ops)}`);
        }
      }),
      { numRuns: 60 },
    );
  });
});
