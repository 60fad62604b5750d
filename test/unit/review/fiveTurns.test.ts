// The five-turn scenario through the real pieces: the bundled agent
// (logged, with isolated workspaces) over an in-memory ACP connection and the
// fake model server, its `_accord/changes/*` read by the real
// IsolatedWorkspaceSource, decisions landed by the ReviewStore in real files —
// in a git project (git-clone copy) and in a plain folder (shadow copy).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReviewStore, type RealTree } from '../../../extension/review/reviewStore';
import { hunkState, type Content, type FileReview } from '../../../extension/review/fileReview';
import { IsolatedWorkspaceSource } from '../../../extension/review/isolatedSource';
import { summarize } from '../../../extension/review/reviewSummary';
import { fakeModelFor, tempDir } from '../agent/harness';
import { gitProject, isolatedAgent, lines } from '../agent/isolationFixtures';
import { reply } from '../../fakeModelServer/index';

const diskTree: RealTree = {
  async read(path: string): Promise<Content> {
    try {
      return new Uint8Array(readFileSync(path));
    } catch {
      return null;
    }
  },
  async write(path: string, content: Content): Promise<void> {
    if (content === null) rmSync(path, { force: true });
    else writeFileSync(path, content);
  },
};

function plainProject(files: Record<string, string>) {
  const dir = tempDir('accord-plain-');
  const project = join(dir.path, 'project');
  mkdirSync(project);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(project, name), text);
  return { project, data: join(dir.path, 'data'), remove: dir.remove };
}

const edit = (id: string, path: string, from: string, to: string) => ({ toolCall: { id, name: 'edit_file', args: { path, old_string: `${from}\n`, new_string: `${to}\n` } } });

describe('five turns of review with the bundled agent', () => {
  const model = fakeModelFor('accord-five-turns-');

  for (const kind of ['git', 'plain'] as const) {
    test(`in a ${kind} folder: each turn its own hunks, rejected stays rejected, conflicts finish, undo takes back only its turn`, { timeout: 180_000 }, async () => {
      const files = { 'a.js': lines(20), 'b.js': lines(3) };
      const { project, data, remove } = kind === 'git' ? gitProject(files) : plainProject(files);
      const agent = isolatedAgent(model.env(), data);
      const store = new ReviewStore(diskTree);
      const source = new IsolatedWorkspaceSource(store, (method, params) => agent.ext(method, params), project, { projectTop: async () => project, readProject: (p) => diskTree.read(p) });
      const a = join(project, 'a.js');
      const b = join(project, 'b.js');
      const read = (p: string) => readFileSync(p, 'utf8');
      try {
        const { sessionId, meta } = await agent.newSession(project);
        assert.equal(meta['accord/workspace'].mode, kind === 'git' ? 'git-clone' : 'shadow-copy');
        let turnNo = 0;
        const turn = async (...parts: ReturnType<typeof edit>[]) => {
          const turnId = String(++turnNo);
          model.server.script({ type: 'stream', parts }, reply.text('Done.'));
          assert.equal(await agent.harness.prompt(sessionId, `turn ${turnId}`), 'end_turn');
          await source.endTurn(sessionId, turnId);
          return turnId;
        };
        const review = (turnId: string, path: string): FileReview => {
          const found = store.inTurn(sessionId, turnId).find((f) => f.path === path);
          assert.ok(found, `turn ${turnId} reviews ${path}`);
          return found;
        };
        const hunkAt = (file: FileReview, text: string) => {
          const index = file.hunks.findIndex((h) => h.proposedLines.join('') === `${text}\n`);
          assert.ok(index >= 0, `a hunk writing ${text}`);
          return index;
        };
        const counts = (turnId: string) => summarize(store.inSession(sessionId)).turns.find((t) => t.turnId === turnId)!.files.map((f) => [f.path, f.added, f.removed]);

        // Turn 1: two hunks; one accepted, one rejected.
        const t1 = await turn(edit('1a', 'a.js', 'line 2', 'LINE 2'), edit('1b', 'a.js', 'line 18', 'LINE 18'));
        const r1 = review(t1, a);
        assert.equal(r1.hunks.length, 2);
        await store.decideHunk(r1, hunkAt(r1, 'LINE 2'), 'accepted');
        await store.decideHunk(r1, hunkAt(r1, 'LINE 18'), 'rejected');
        assert.equal(read(a), lines(20, { 2: 'LINE 2' }));

        // Turn 2: its own hunk only; accepting all of it does not bring back turn 1's rejected hunk.
        const t2 = await turn(edit('2a', 'a.js', 'line 10', 'LINE 10'));
        assert.deepEqual(counts(t2), [[a, 1, 1]], "turn 2's counts are its own");
        await store.decideFiles(store.inTurn(sessionId, t2), 'accepted');
        assert.equal(read(a), lines(20, { 2: 'LINE 2', 10: 'LINE 10' }));

        // Turn 3: the person edited the same line: the clean file lands, the hunk is a conflict, and it finishes once they take their edit back.
        const t3 = await turn(edit('3a', 'a.js', 'line 5', 'LINE 5'), edit('3b', 'b.js', 'line 1', 'B 1'));
        writeFileSync(a, lines(20, { 2: 'LINE 2', 5: 'person 5', 10: 'LINE 10' }));
        const first = await store.decideFiles(store.inTurn(sessionId, t3), 'accepted');
        assert.deepEqual([first.landed.map((f) => f.path), first.conflicts.map((f) => f.path)], [[b], [a]]);
        assert.equal(read(b), lines(3, { 1: 'B 1' }));
        assert.equal(hunkState(review(t3, a), 0), 'conflict');
        writeFileSync(a, lines(20, { 2: 'LINE 2', 10: 'LINE 10' }));
        const again = await store.decideFiles(store.inTurn(sessionId, t3), 'accepted');
        assert.deepEqual(again.landed.map((f) => f.path), [a]);
        assert.equal(read(a), lines(20, { 2: 'LINE 2', 5: 'LINE 5', 10: 'LINE 10' }));

        // Turns 4 and 5 accepted, then undone one at a time: each takes back only its own line.
        const t4 = await turn(edit('4a', 'a.js', 'line 15', 'LINE 15'));
        await store.decideFiles(store.inTurn(sessionId, t4), 'accepted');
        const t5 = await turn(edit('5a', 'a.js', 'line 12', 'LINE 12'));
        assert.deepEqual(counts(t5), [[a, 1, 1]]);
        await store.decideFiles(store.inTurn(sessionId, t5), 'accepted');
        assert.equal(read(a), lines(20, { 2: 'LINE 2', 5: 'LINE 5', 10: 'LINE 10', 12: 'LINE 12', 15: 'LINE 15' }));
        store.takeContextNote(sessionId);
        await store.undoTurn(sessionId, t5);
        assert.equal(read(a), lines(20, { 2: 'LINE 2', 5: 'LINE 5', 10: 'LINE 10', 15: 'LINE 15' }), 'undoing turn 5 left turn 4');
        await store.undoTurn(sessionId, t4);
        assert.equal(read(a), lines(20, { 2: 'LINE 2', 5: 'LINE 5', 10: 'LINE 10' }), 'undoing turn 4 left turns 1–3');
        assert.equal(read(b), lines(3, { 1: 'B 1' }));
        const note = store.takeContextNote(sessionId) ?? '';
        assert.match(note, new RegExp(`undid turn 5 \\(only that turn's changes; changes from other turns are kept\\):\\n  - ${a.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: 1 change reverted`));
        assert.match(note, /undid turn 4/);

        // A restarted source (agent restart, window kept) offers nothing again.
        const before = store.all().length;
        const restarted = new IsolatedWorkspaceSource(store, (method, params) => agent.ext(method, params), project, { projectTop: async () => project, readProject: (p) => diskTree.read(p) });
        await restarted.recover(sessionId, 'earlier');
        assert.equal(store.all().length, before, 'nothing re-offered after a restart');
        restarted.dispose();
      } finally {
        source.dispose();
        await agent.close();
        remove();
      }
    });
  }
});
