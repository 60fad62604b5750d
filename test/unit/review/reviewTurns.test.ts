// Review across turns: the bugs the property test (reviewStore.property.test.ts)
// found in the old store, kept as named regressions — each the shrunk sequence
// fast-check reported, run against the reference model — and the issue's own
// scenarios spelled out with their exact texts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReviewStore } from '../../../extension/review/reviewStore';
import { MemoryTree } from './trees';
import { hunkConflict, hunkState, isPending, type ProposedChange } from '../../../extension/review/fileReview';
import { reviewState, summarize } from '../../../extension/review/reviewSummary';
import { pendingHunks, sideText } from '../../../extension/review/reviewSides';
import { runSequence, type Step } from './reviewModel';

const turn = (...edits: [number, number][]): Step => ({ kind: 'turn', edits: edits.map(([file, slot]) => ({ file, slot })) });

describe('review regressions found by the property test (shrunk sequences)', () => {
  const cases: [string, Step[]][] = [
    ['a second turn on the same line showed the first turn as continued and its hunks twice', [turn([0, 0]), turn([0, 0])]],
    ["a later turn's counts and hunks covered every turn since the session began", [turn([0, 0]), turn([0, 1])]],
    ['undo turn 2 reverted the turn-1 hunk the person had accepted', [turn([0, 0]), { kind: 'acceptTurn', pick: 0 }, turn([0, 1]), { kind: 'undoTurn', pick: 1 }]],
    [
      'accept all in turn 2 landed a hunk rejected in turn 1',
      [turn([0, 0], [0, 2]), { kind: 'hunk', pick: 0, accept: false }, { kind: 'hunk', pick: 0, accept: true }, turn([0, 3]), { kind: 'acceptTurn', pick: 0 }],
    ],
    ['a hunk refused for a conflict was drawn as accepted', [turn([0, 0], [0, 2]), { kind: 'personEdit', file: 0, slot: 0 }, { kind: 'hunk', pick: 0, accept: true }]],
    ['a clean hunk landed nothing because another hunk in its file conflicted', [turn([0, 0], [0, 2]), { kind: 'personEdit', file: 0, slot: 0 }, { kind: 'acceptTurn', pick: 0 }]],
    [
      'after the person removed their conflicting edit, accept all did nothing',
      [turn([0, 0]), { kind: 'personEdit', file: 0, slot: 0 }, { kind: 'acceptTurn', pick: 0 }, { kind: 'personUndo', pick: 0 }, { kind: 'acceptTurn', pick: 0 }],
    ],
    ["an agent restart offered the agent's whole copy again under turn 'earlier'", [turn([0, 0]), { kind: 'restart' }]],
    ['rejecting a hunk in turn 2 reset the agent copy and lost turn 1', [turn([0, 0]), turn([0, 0]), { kind: 'hunk', pick: 0, accept: false }]],
    ['a conflict left by accept-all was never reported to the agent when its turn was undone', [turn([0, 0]), turn([0, 0]), { kind: 'acceptTurn', pick: 3 }, { kind: 'undoTurn', pick: 3 }, turn([0, 0])]],
  ];
  for (const [name, steps] of cases) test(name, () => runSequence(steps));
});

const lines = (...l: string[]) => l.map((x) => `${x}\n`).join('');
const v0 = lines('const a = 1;', '', 'function f() {', '  return a;', '}', '', 'export { f };');
const v1 = v0.replace('const a = 1;', 'const a = 2;');
const v2 = v1.replace('export { f };', 'export { f, a };');
const enc = (s: string) => new TextEncoder().encode(s);
const proposal = (turnId: string, proposed: string): ProposedChange => ({ origin: 'isolated', sessionId: 's', turnId, path: '/p/a.js', base: enc(v0), proposed: enc(proposed) });

describe('review across turns, as the issue describes it', () => {
  test('undo turn 2 reverts only turn 2 and tells the agent exactly that', async () => {
    const tree = new MemoryTree();
    tree.files.set('/p/a.js', v0);
    const store = new ReviewStore(tree);
    store.propose(proposal('1', v1));
    await store.decideFiles(store.inTurn('s', '1'), 'accepted');
    store.propose(proposal('2', v2));
    await store.decideFiles(store.inTurn('s', '2'), 'accepted');
    assert.equal(tree.files.get('/p/a.js'), v2);
    await store.undoTurn('s', '2');
    assert.equal(tree.files.get('/p/a.js'), v1, 'the turn-1 change the person accepted stays');
    const note = store.takeContextNote('s') ?? '';
    assert.match(note, /undid turn 2 \(only that turn's changes; changes from other turns are kept\)/);
    assert.match(note, /\/p\/a\.js: 1 change reverted/);
    assert.doesNotMatch(note, /state before that turn/);
  });

  test('a conflict stays a conflict in every view, a clean hunk beside it lands, and both ways out work', async () => {
    const tree = new MemoryTree();
    tree.files.set('/p/a.js', v0);
    const store = new ReviewStore(tree);
    const file = store.propose(proposal('1', v2));
    const mine = v0.replace('const a = 1;', 'const a = 10; // mine');
    tree.files.set('/p/a.js', mine);
    const result = await store.decideFiles([file], 'accepted');
    assert.deepEqual([result.landed.length, result.conflicts.length], [0, 1]);
    assert.equal(tree.files.get('/p/a.js'), mine.replace('export { f };', 'export { f, a };'), 'the clean hunk landed');
    assert.deepEqual(file.hunks.map((_, i) => hunkState(file, i)), ['conflict', 'accepted']);
    assert.match(hunkConflict(file, 0) ?? '', /your own edits touch the same lines \(near line 1\)/);
    assert.match(file.conflict ?? '', /1 other change landed/);
    assert.equal(reviewState(file), 'pending', 'the card is not "Accepted" while a hunk is a conflict');
    assert.equal(isPending(file), true);
    assert.match(sideText(file, 'base'), /^const a = 1;/, 'the diff does not draw the conflict as accepted');
    assert.deepEqual(pendingHunks(file, 'proposed').map((h) => [h.index, h.state]), [[0, 'conflict']], 'the conflict keeps its lenses');
    assert.equal(summarize(store.inSession('s')).turns[0]?.files[0]?.conflict !== undefined, true);

    // The person takes their edit back: accepting again lands it.
    tree.files.set('/p/a.js', v0.replace('export { f };', 'export { f, a };'));
    const again = await store.decideFiles([file], 'accepted');
    assert.deepEqual([again.landed.length, again.conflicts.length], [1, 0]);
    assert.equal(tree.files.get('/p/a.js'), v2);
    assert.equal(reviewState(file), 'accepted');
    const refused = await store.decideFiles([file], 'accepted');
    assert.match(refused.refused?.[0]?.why ?? '', /already decided/, 'a refused action says why');
  });

  test('giving up on a conflict (reject) always works and leaves the person text alone', async () => {
    const tree = new MemoryTree();
    tree.files.set('/p/a.js', v0);
    const store = new ReviewStore(tree);
    const file = store.propose(proposal('1', v1));
    const mine = v0.replace('const a = 1;', 'const a = 10;');
    tree.files.set('/p/a.js', mine);
    await store.decideHunk(file, 0, 'accepted');
    assert.equal(hunkState(file, 0), 'conflict');
    const out = await store.decideHunk(file, 0, 'rejected');
    assert.deepEqual([out.landed.length, out.conflicts.length], [1, 0]);
    assert.equal(hunkState(file, 0), 'rejected');
    assert.equal(tree.files.get('/p/a.js'), mine);
    assert.match(store.takeContextNote('s') ?? '', /rejected 1 change in \/p\/a\.js \(not applied\): line 1 \(at "const a = 2;"\)/);
  });

  test('a turn whose hunks were all rejected is labelled rejected, one with some of each partly accepted', async () => {
    const tree = new MemoryTree();
    tree.files.set('/p/a.js', v0);
    const store = new ReviewStore(tree);
    const file = store.propose(proposal('1', v2));
    await store.decideHunk(file, 0, 'rejected');
    await store.decideHunk(file, 1, 'rejected');
    assert.equal(reviewState(file), 'rejected');
    const other = store.propose({ ...proposal('1', v2), path: '/p/b.js' });
    tree.files.set('/p/b.js', v0);
    await store.decideHunk(other, 0, 'accepted');
    await store.decideHunk(other, 1, 'rejected');
    assert.equal(reviewState(other), 'partial');
  });
});

describe('finishing a conflict between conflict markers in the file', () => {
  async function conflicted() {
    const tree = new MemoryTree();
    tree.files.set('/p/a.js', v0);
    const store = new ReviewStore(tree);
    const file = store.propose(proposal('1', v2));
    tree.files.set('/p/a.js', v0.replace('const a = 1;', 'const a = 10;'));
    await store.decideFiles([file], 'accepted');
    assert.deepEqual(file.hunks.map((_, i) => hunkState(file, i)), ['conflict', 'accepted']);
    const outcome = await store.resolveInFile(file, 0);
    assert.equal(outcome.written, true, outcome.why);
    const text = tree.files.get('/p/a.js')!;
    assert.equal(
      text,
      ['<<<<<<< Your version', 'const a = 10;', '=======', 'const a = 2;', ">>>>>>> Agent's change (turn 1)", '', 'function f() {', '  return a;', '}', '', 'export { f, a };', ''].join('\n'),
      "the person's lines, then the agent's, between the usual markers; the clean hunk stays landed",
    );
    assert.equal(hunkState(file, 0), 'conflict', 'still a conflict until a side is picked');
    assert.deepEqual(store.resolvingPaths(), new Set(['/p/a.js']));
    const again = await store.resolveInFile(file, 0);
    assert.match(again.why ?? '', /already in the file/, 'a refused action says why');
    return { tree, store, file, text };
  }

  test('picking the incoming (agent) side decides the hunk accepted', async () => {
    const { store, file, text } = await conflicted();
    store.settleResolutions('/p/a.js', text.replace('<<<<<<< Your version\nconst a = 10;\n=======\n', '').replace(">>>>>>> Agent's change (turn 1)\n", ''));
    assert.deepEqual(file.hunks.map((_, i) => hunkState(file, i)), ['accepted', 'accepted']);
    assert.equal(reviewState(file), 'accepted');
    assert.equal(file.conflict, undefined);
    assert.match(store.takeContextNote('s') ?? '', /finished a conflict in \/p\/a\.js by hand: your change at line 1 \(at "const a = 2;"\) was kept/);
  });

  test('keeping the current (person) side decides the hunk rejected, and half-edited markers decide nothing', async () => {
    const { store, file, text } = await conflicted();
    store.settleResolutions('/p/a.js', text.replace('=======', 'x'));
    assert.equal(hunkState(file, 0), 'conflict', 'markers still there');
    store.settleResolutions('/p/a.js', text.replace(/=======\nconst a = 2;\n>>>>>>> .*\n/, '').replace('<<<<<<< Your version\n', ''));
    assert.deepEqual(file.hunks.map((_, i) => hunkState(file, i)), ['rejected', 'accepted']);
    assert.equal(reviewState(file), 'partial');
    assert.match(store.takeContextNote('s') ?? '', /was not kept \(the person kept their own lines\)/);
  });

  test('a hunk that merges cleanly by now simply lands instead', async () => {
    const tree = new MemoryTree();
    tree.files.set('/p/a.js', v0);
    const store = new ReviewStore(tree);
    const file = store.propose(proposal('1', v1));
    tree.files.set('/p/a.js', v0.replace('const a = 1;', 'const a = 10;'));
    await store.decideHunk(file, 0, 'accepted');
    tree.files.set('/p/a.js', v0);
    assert.equal((await store.resolveInFile(file, 0)).written, true);
    assert.equal(tree.files.get('/p/a.js'), v1);
    assert.equal(hunkState(file, 0), 'accepted');
  });
});

describe("a later turn's diff context", () => {
  test('names the earlier changes it shows as context that are not in the person file', async () => {
    const tree = new MemoryTree();
    tree.files.set('/p/a.js', v0);
    const store = new ReviewStore(tree);
    const first = store.propose(proposal('1', v1));
    await store.decideHunk(first, 0, 'rejected');
    const second = store.propose(proposal('2', v2));
    assert.equal(second.builtOn, first.id);
    assert.deepEqual(store.contextNotInFile(second), [{ turnId: '1', count: 1 }]);
    const third = store.propose(proposal('3', v2.replace('return a;', 'return a + 1;')));
    await store.decideFiles([second], 'accepted');
    assert.deepEqual(store.contextNotInFile(third), [{ turnId: '1', count: 1 }], 'turn 2 is in the file, turn 1 is not');
  });
});
