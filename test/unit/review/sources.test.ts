// The three change sources against a real ReviewStore and a real directory on
// disk (a temp dir). The isolated source talks to a scripted stand-in for the
// agent's `_accord/workspace/*` methods, which the bundled agent serves for real.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReviewStore } from '../../../extension/review/reviewStore';
import { diskTree } from './trees';
import { DirectDiskSource } from '../../../extension/review/directSource';
import { StagedWriteSource } from '../../../extension/review/stagedSource';
import { IsolatedWorkspaceSource, WORKSPACE_METHODS } from '../../../extension/review/isolatedSource';
import { isPending, kindOf } from '../../../extension/review/fileReview';

let root = '';
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'accord-review-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

const text = (path: string) => readFile(path, 'utf8');

describe('DirectDiskSource', () => {
  test('a write straight to disk is reviewed against the turn-start snapshot, and Reject restores it', async () => {
    const file = join(root, 'direct.txt');
    await writeFile(file, 'a\nb\nc\n');
    const store = new ReviewStore(diskTree);
    const source = new DirectDiskSource(store, diskTree, { knownPaths: () => [file] });
    await source.beginTurn('s', 't1');
    await writeFile(file, 'a\nB\nc\n'); // the agent writes; the watcher reports it
    await source.fileChanged(file, 'changed');
    const [review] = store.all();
    assert.ok(review);
    assert.equal(review.hunks.length, 1);
    await store.decideFile(review, 'rejected');
    assert.equal(await text(file), 'a\nb\nc\n');
    // The watcher reports the review's own restore; it is not a new change.
    await source.fileChanged(file, 'changed');
    assert.equal(review.proposedText, 'a\nB\nc\n');
    assert.equal(isPending(review), false);
  });

  test("a tool call's locations are snapshotted before it runs; its completion collects the change", async () => {
    const file = join(root, 'tool.txt');
    await writeFile(file, 'old\n');
    const store = new ReviewStore(diskTree);
    const source = new DirectDiskSource(store, diskTree, { knownPaths: () => [] });
    await source.beginTurn('s', 't1');
    await source.toolCall('s', 't1', { toolCallId: 'c1', status: 'pending', locations: [{ path: file }] });
    await writeFile(file, 'new\n');
    await source.toolCall('s', 't1', { toolCallId: 'c1', status: 'completed' });
    assert.equal(store.all().length, 0, 'a completed update without locations names no file');
    await source.toolCall('s', 't1', { toolCallId: 'c1', status: 'completed', locations: [{ path: file }] });
    const [review] = store.all();
    assert.equal(review?.baseText, 'old\n');
    assert.equal(review?.proposedText, 'new\n');
  });

  test("a diff block's oldText is shown as the agent's claim when the call was first seen already finished; Reject leaves the file", async () => {
    const file = join(root, 'late.txt');
    await writeFile(file, 'after\n');
    const store = new ReviewStore(diskTree);
    const source = new DirectDiskSource(store, diskTree, { knownPaths: () => [] });
    await source.beginTurn('s', 't1');
    await source.toolCall('s', 't1', {
      toolCallId: 'c2',
      status: 'completed',
      content: [{ type: 'diff', path: file, oldText: 'before\n', newText: 'after\n' }],
    });
    const [review] = store.all();
    assert.equal(review?.baseText, 'before\n');
    assert.equal(review?.unverified?.shown, 'claimed');
    await store.decideFile(review!, 'rejected');
    assert.equal(await text(file), 'after\n', 'nobody saw the file before the call: Reject writes nothing');
    await store.restoreBase(review!, 'claimed');
    assert.equal(await text(file), 'before\n', "the agent's claimed old text, only when asked for");
  });

  test('a new file seen by the watcher is an addition; rejecting deletes it', async () => {
    const file = join(root, 'created.txt');
    const store = new ReviewStore(diskTree);
    const source = new DirectDiskSource(store, diskTree, { knownPaths: () => [] });
    await source.beginTurn('s', 't1');
    await writeFile(file, 'hello\n');
    await source.fileChanged(file, 'created');
    const [review] = store.all();
    assert.equal(review && kindOf(review), 'added');
    assert.equal(store.all().length, 1);
    await store.decideFile(review!, 'rejected');
    assert.equal(await diskTree.read(file), null);
  });

  test("a late watcher event for a file made before the turn is not taken for the agent's addition", async () => {
    const file = join(root, 'made-before.txt');
    await writeFile(file, 'mine\n');
    const madeAt = (await stat(file)).mtimeMs;
    const store = new ReviewStore(diskTree);
    const source = new DirectDiskSource(store, diskTree, { knownPaths: () => [], modifiedAt: async () => madeAt });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await source.beginTurn('s', 't1');
    await source.fileChanged(file, 'created');
    assert.equal(store.all().length, 0);
    await source.endTurn('s', 't1');
    assert.equal(await text(file), 'mine\n');
  });

  test('a file written in the very millisecond the turn began is the person\'s, not the agent\'s', async (t) => {
    const file = join(root, 'same-ms.txt');
    await writeFile(file, 'mine too\n');
    const store = new ReviewStore(diskTree);
    // Whole-millisecond clocks on both sides (VS Code's stat and Date.now()) meet when the person writes just before prompting.
    t.mock.method(Date, 'now', () => 1_796_000_000_000);
    const source = new DirectDiskSource(store, diskTree, { knownPaths: () => [], modifiedAt: async () => 1_796_000_000_000 });
    await source.beginTurn('s', 't1');
    await source.fileChanged(file, 'created');
    assert.equal(store.all().length, 0);
  });

  test('a change to a file with no snapshot has no known base and is not taken for an addition', async () => {
    const file = join(root, 'unknown.txt');
    await writeFile(file, 'was here before\n');
    const store = new ReviewStore(diskTree);
    const source = new DirectDiskSource(store, diskTree, { knownPaths: () => [] });
    await source.beginTurn('s', 't1');
    await writeFile(file, 'changed\n');
    await source.fileChanged(file, 'changed');
    assert.equal(store.all().length, 0);
  });
});

describe('StagedWriteSource', () => {
  test('a staged write does not touch the file until accepted, and the agent reads its own text', async () => {
    const file = join(root, 'staged.txt');
    await writeFile(file, 'one\n');
    const store = new ReviewStore(diskTree);
    const source = new StagedWriteSource(store, diskTree);
    await source.stage('s', 't1', file, 'one\ntwo\n');
    assert.equal(await text(file), 'one\n');
    assert.equal(source.readStaged('s', file), 'one\ntwo\n');
    await source.stage('s', 't1', file, 'ONE\ntwo\n');
    const [review] = store.all();
    assert.equal(review?.baseText, 'one\n', 'the baseline is the file before the first write');
    await store.decideFiles(store.all(), 'accepted');
    assert.equal(await text(file), 'ONE\ntwo\n');
    assert.equal(source.readStaged('s', file), undefined, 'once decided, the file itself is the truth');
  });
});

describe('IsolatedWorkspaceSource', () => {
  /** A scripted stand-in for the agent's `_accord/...` methods (agent/session/README.md shapes). */
  function scriptedAgent(agentFiles: Record<string, { base: string | null; current: string | null }>, calls: string[]) {
    return async (method: string, params: Record<string, unknown>): Promise<unknown> => {
      calls.push(method);
      if (method === WORKSPACE_METHODS.status) return { mode: 'git-clone', root: '/agent/ws', applyTo: '/project', base: 'abc', sandbox: { state: 'unsandboxed', reason: 'test' }, linkedReadOnly: [] };
      if (method === WORKSPACE_METHODS.listChanges) {
        return {
          changes: [
            { path: 'src/a.txt', status: 'modified', additions: 1, deletions: 1, binary: false },
            { path: 'src/new.txt', status: 'added', additions: 1, deletions: 0, binary: false },
            { path: 'src/renamed.txt', oldPath: 'src/old.txt', status: 'renamed', additions: 0, deletions: 0, binary: false },
          ].filter((c) => agentFiles[c.path]),
        };
      }
      if (method === WORKSPACE_METHODS.readFile) {
        const entry = agentFiles[params.path as string];
        if (!entry) throw new Error('no change at that path');
        return { path: params.path, baseText: entry.base, currentText: entry.current, binary: false };
      }
      if (method === WORKSPACE_METHODS.discard) {
        const paths = params.paths as string[];
        for (const p of paths) delete agentFiles[p];
        return { discarded: paths };
      }
      throw new Error(`unexpected ${method}`);
    };
  }

  test("reads the agent's changed files through the workspace methods and proposes them", async () => {
    const calls: string[] = [];
    const agentFiles: Record<string, { base: string | null; current: string | null }> = {
      'src/a.txt': { base: 'x\n', current: 'y\n' },
      'src/new.txt': { base: null, current: 'n\n' },
      'src/renamed.txt': { base: 'o\n', current: 'o\n' },
    };
    const store = new ReviewStore(diskTree);
    const source = new IsolatedWorkspaceSource(store, scriptedAgent(agentFiles, calls), root);
    await source.toolCall('s', 't1', { toolCallId: 'c', status: 'in_progress' });
    assert.equal(calls.length, 0, 'nothing is read before a tool call finishes');
    await source.toolCall('s', 't1', { toolCallId: 'c', status: 'completed' });
    const reviews = store.all();
    assert.deepEqual(reviews.map((r) => [r.path, kindOf(r)]), [
      [join(root, 'src', 'a.txt'), 'modified'],
      [join(root, 'src', 'new.txt'), 'added'],
      [join(root, 'src', 'renamed.txt'), 'moved'],
    ]);
    assert.equal(reviews[2]?.movedFrom, join(root, 'src', 'old.txt'));
    assert.equal(reviews[2]?.baseText, 'o\n');
    await source.endTurn('s', 't1');
    await source.endTurn('s', 't2');
    assert.equal(store.all().length, 3, 'unchanged files are not proposed again, in this turn or the next');
    agentFiles['src/a.txt'] = { base: 'x\n', current: 'z\n' };
    await source.endTurn('s', 't2');
    assert.deepEqual(store.inTurn('s', 't2').map((r) => r.proposedText), ['z\n'], 'a file changed again joins the later turn');
  });

  test('a finished tool call reads only the files it names or whose line counts moved; the turn end reads all', async () => {
    const calls: string[] = [];
    const agentFiles: Record<string, { base: string | null; current: string | null }> = {
      'src/a.txt': { base: 'x\n', current: 'y\n' },
      'src/new.txt': { base: null, current: 'n\n' },
    };
    const agent = scriptedAgent(agentFiles, calls);
    const reads: string[] = [];
    const store = new ReviewStore(diskTree);
    const source = new IsolatedWorkspaceSource(store, async (method, params) => {
      if (method === WORKSPACE_METHODS.readFile) reads.push(params.path as string);
      return agent(method, params);
    }, root);
    await source.toolCall('s', 't1', { toolCallId: 'c1', status: 'completed', locations: [{ path: join(root, 'src', 'a.txt') }] });
    assert.deepEqual(reads.splice(0), ['src/a.txt', 'src/new.txt'], 'files never read are read');
    agentFiles['src/a.txt'] = { base: 'x\n', current: 'z\n' }; // same line counts
    agentFiles['src/new.txt'] = { base: null, current: 'N\n' };
    await source.toolCall('s', 't1', { toolCallId: 'c2', status: 'completed', locations: [{ path: join(root, 'src', 'new.txt') }] });
    assert.deepEqual(reads.splice(0), ['src/new.txt'], 'only the named file');
    await source.endTurn('s', 't1');
    assert.deepEqual(reads.splice(0), ['src/a.txt', 'src/new.txt']);
    assert.deepEqual(store.inTurn('s', 't1').map((r) => r.proposedText), ['z\n', 'N\n']);
  });

  test("maps the agent's own paths to the person's, and discards rejected files in the agent's copy", async () => {
    const calls: string[] = [];
    const agentFiles: Record<string, { base: string | null; current: string | null }> = { 'src/a.txt': { base: 'x\n', current: 'y\n' } };
    const source = new IsolatedWorkspaceSource(new ReviewStore(diskTree), scriptedAgent(agentFiles, calls), root);
    assert.equal(await source.projectPath('s', '/agent/ws/src/a.txt'), join(root, 'src', 'a.txt'));
    assert.equal(await source.projectPath('s', '/elsewhere/b.txt'), '/elsewhere/b.txt');
    assert.deepEqual(await source.discard('s', [join(root, 'src', 'a.txt')]), [join(root, 'src', 'a.txt')]);
    assert.equal(agentFiles['src/a.txt'], undefined);
    assert.deepEqual(await source.discard('s', [join(root, 'src', 'a.txt')]), [], 'a path the agent no longer changed is skipped, not an error');
    assert.equal(calls.filter((c) => c === WORKSPACE_METHODS.status).length, 1, 'the workspace status is asked once per session');
  });

  test("a binary change is read from the agent's copy, shown whole, and accepting it writes the bytes", async () => {
    const agentRoot = await mkdtemp(join(tmpdir(), 'accord-agent-ws-'));
    try {
      const bytes = new Uint8Array([0x89, 0x50, 0x00, 0xff, 0x0a]);
      await writeFile(join(agentRoot, 'logo.bin'), bytes);
      const agent = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
        if (method === WORKSPACE_METHODS.status) return { mode: 'shadow-copy', root: agentRoot, applyTo: '/project', base: 'abc', sandbox: { state: 'unsandboxed', reason: 'test' }, linkedReadOnly: [] };
        if (method === WORKSPACE_METHODS.listChanges) return { changes: [{ path: 'logo.bin', status: 'added', additions: 0, deletions: 0, binary: true }] };
        if (method === WORKSPACE_METHODS.readFile) return { path: params.path, baseText: null, currentText: null, binary: true };
        throw new Error(`unexpected ${method}`);
      };
      const store = new ReviewStore(diskTree);
      const source = new IsolatedWorkspaceSource(store, agent, root, { projectTop: async () => root, readProject: (p) => diskTree.read(p) });
      await source.endTurn('s', 't1');
      const [review] = store.all();
      assert.ok(review?.binary, 'shown as binary, not diffed');
      assert.equal(kindOf(review), 'added');
      await store.decideFile(review, 'accepted');
      assert.deepEqual(new Uint8Array(await readFile(join(root, 'logo.bin'))), bytes);
    } finally {
      await rm(agentRoot, { recursive: true, force: true });
    }
  });

  test("the agent's copy is hostile: a binary change that is a link, sits below a linked folder, or is too large is skipped, never read; a path leaving the project is refused", async () => {
    const agentRoot = await mkdtemp(join(tmpdir(), 'accord-agent-ws-'));
    const outside = await mkdtemp(join(tmpdir(), 'accord-outside-'));
    try {
      await writeFile(join(outside, 'id_rsa'), 'SECRET KEY\n');
      await symlink(join(outside, 'id_rsa'), join(agentRoot, 'key.bin'));
      await symlink(outside, join(agentRoot, 'linked'));
      await writeFile(join(agentRoot, 'huge.bin'), '');
      await truncate(join(agentRoot, 'huge.bin'), 64 * 1024 * 1024);
      const changes = [
        { path: 'key.bin', status: 'added', additions: 0, deletions: 0, binary: true },
        { path: 'linked/id_rsa', status: 'added', additions: 0, deletions: 0, binary: true },
        { path: 'huge.bin', status: 'added', additions: 0, deletions: 0, binary: true },
        { path: '../escape.bin', status: 'added', additions: 0, deletions: 0, binary: true },
      ];
      const agent = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
        if (method === WORKSPACE_METHODS.status) return { mode: 'shadow-copy', root: agentRoot, applyTo: '/project', base: 'abc', sandbox: { state: 'unsandboxed', reason: 'test' }, linkedReadOnly: [] };
        if (method === WORKSPACE_METHODS.listChanges) return { changes };
        if (method === WORKSPACE_METHODS.readFile) return { path: params.path, baseText: null, currentText: null, binary: true };
        throw new Error(`unexpected ${method}`);
      };
      const skipped: string[] = [];
      const store = new ReviewStore(diskTree);
      const source = new IsolatedWorkspaceSource(store, agent, root, { projectTop: async () => root, readProject: (p) => diskTree.read(p), skipped: (_s, p, why) => skipped.push(`${p}: ${why}`) });
      await source.endTurn('s', 't1');
      assert.deepEqual(store.all(), [], 'nothing was proposed');
      assert.deepEqual(skipped.sort(), [
        '../escape.bin: the agent named it with a path outside the project',
        'huge.bin: it is too large (64 MB)',
        'key.bin: the agent made it a symbolic link',
        'linked/id_rsa: linked/id_rsa goes through linked, which is a symbolic link; links are never followed',
      ]);
    } finally {
      await rm(agentRoot, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    }
  });

  test("attack: changes to .git/, .accord/, .vscode/ or a startup file in the agent's copy are never offered for landing; in place they are reviewed so Reject can undo them", async () => {
    const changes = [
      { path: '.vscode/tasks.json', status: 'added', additions: 1, deletions: 0, binary: false },
      { path: 'sub/.envrc', status: 'added', additions: 1, deletions: 0, binary: false },
      { path: '.bashrc', status: 'modified', additions: 1, deletions: 0, binary: false },
      { path: '.GIT/hooks/pre-commit', status: 'added', additions: 1, deletions: 0, binary: false },
      { path: 'notes.txt', oldPath: '.accord/policy.json', status: 'renamed', additions: 0, deletions: 0, binary: false },
      { path: 'src/ok.txt', status: 'added', additions: 1, deletions: 0, binary: false },
    ];
    const agentFor = (mode: 'shadow-copy' | 'in-place') => async (method: string, params: Record<string, unknown>): Promise<unknown> => {
      if (method === WORKSPACE_METHODS.status) return { mode, root: '/agent/ws', applyTo: root, base: 'abc', sandbox: { state: 'unsandboxed', reason: 'test' }, linkedReadOnly: [] };
      if (method === WORKSPACE_METHODS.listChanges) return { changes };
      if (method === WORKSPACE_METHODS.readFile) return { path: params.path, baseText: null, currentText: 'run me\n', binary: false };
      throw new Error(`unexpected ${method}`);
    };
    const skipped: string[] = [];
    const store = new ReviewStore(diskTree);
    const isolated = new IsolatedWorkspaceSource(store, agentFor('shadow-copy'), root, { projectTop: async () => root, skipped: (_s, p, why) => skipped.push(`${p}: ${why}`) });
    await isolated.endTurn('s', 't1');
    assert.deepEqual(store.all().map((r) => r.path), [join(root, 'src', 'ok.txt')], 'only the plain file is offered');
    assert.deepEqual(skipped.sort(), [
      ".GIT/hooks/pre-commit: it is inside .git/ (git history, config and hooks), which Accord never changes for an agent; copy it by hand if you want it",
      ".bashrc: .bashrc is a startup file that runs code on your behalf, which Accord never changes for an agent; copy it by hand if you want it",
      ".vscode/tasks.json: it is inside .vscode/ (the editor's workspace settings and tasks), which Accord never changes for an agent; copy it by hand if you want it",
      "notes.txt: it is inside .accord/ (Accord's project policy), which Accord never changes for an agent; copy it by hand if you want it",
      "sub/.envrc: .envrc is a startup file that runs code on your behalf, which Accord never changes for an agent; copy it by hand if you want it",
    ]);

    const inPlaceStore = new ReviewStore(diskTree);
    const inPlace = new IsolatedWorkspaceSource(inPlaceStore, agentFor('in-place'), root, { projectTop: async () => root });
    await inPlace.endTurn('s2', 't1');
    assert.equal(inPlaceStore.all().length, changes.length, 'in place every change is already on disk and is reviewed');
  });

  test("a reopened session's copy: only changes the person's tree lacks come back for review", async () => {
    await mkdir(join(root, 'src'), { recursive: true });
    await writeFile(join(root, 'src', 'a.txt'), 'y\n'); // accepted in an earlier window
    const agentFiles: Record<string, { base: string | null; current: string | null }> = {
      'src/a.txt': { base: 'x\n', current: 'y\n' },
      'src/new.txt': { base: null, current: 'n\n' },
    };
    const store = new ReviewStore(diskTree);
    const source = new IsolatedWorkspaceSource(store, scriptedAgent(agentFiles, []), root, { projectTop: async () => root, readProject: (p) => diskTree.read(p) });
    await source.recover('s', 'earlier');
    assert.deepEqual(store.all().map((r) => [r.turnId, r.path]), [['earlier', join(root, 'src', 'new.txt')]]);
  });

  test('an answer of the wrong shape is a clear error', async () => {
    const store = new ReviewStore(diskTree);
    const source = new IsolatedWorkspaceSource(store, async () => ({ nope: true }), root);
    await assert.rejects(source.refresh('s', 't1'), /not what Accord expects/);
  });
});
