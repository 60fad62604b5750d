// Review in the file itself: pending hunks written in, Keep and Undo, and
// where each hunk is found after the person edits around it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReviewStore } from '../../../extension/review/reviewStore';
import { MemoryTree } from './trees';
import { hunkState, type ProposedChange } from '../../../extension/review/fileReview';
import { placeHunks } from '../../../extension/review/inFilePlaces';
import { lineMapper } from '../../../extension/review/hunks';

const lines = (...l: string[]) => l.map((x) => `${x}\n`).join('');
const base = lines('a', 'b', 'c', 'd', 'e', 'f', 'g');
const proposed = lines('a', 'B', 'c', 'd', 'e', 'F1', 'F2', 'g');
const change: ProposedChange = { origin: 'isolated', sessionId: 's', turnId: '1', path: '/p/x.txt', base: new TextEncoder().encode(base), proposed: new TextEncoder().encode(proposed) };

describe('in-file review', () => {
  test('pending hunks are written in; Keep accepts one where it is, Undo takes the other out; the person edits around them', async () => {
    const tree = new MemoryTree();
    tree.files.set('/p/x.txt', base);
    const store = new ReviewStore(tree);
    const file = store.propose(change);
    await store.reviewInFile(file);
    assert.equal(tree.files.get('/p/x.txt'), proposed, 'both pending hunks are in the file');
    assert.deepEqual(file.hunks.map((_, i) => hunkState(file, i)), ['pending', 'pending']);
    assert.deepEqual(placeHunks([file], '/p/x.txt', proposed).map((p) => [p.index, p.start, p.lines]), [[0, 1, 1], [1, 5, 2]]);

    // The person adds a line at the top: the hunks are found where they moved.
    const edited = `top\n${proposed}`;
    tree.files.set('/p/x.txt', edited);
    assert.deepEqual(placeHunks([file], '/p/x.txt', edited).map((p) => [p.index, p.start]), [[0, 2], [1, 6]]);

    await store.decideHunk(file, 0, 'accepted');
    assert.equal(tree.files.get('/p/x.txt'), edited, 'Keep writes nothing');
    await store.decideHunk(file, 1, 'rejected');
    assert.equal(tree.files.get('/p/x.txt'), `top\n${lines('a', 'B', 'c', 'd', 'e', 'f', 'g')}`, 'Undo takes out exactly that hunk');
    assert.deepEqual(file.hunks.map((_, i) => hunkState(file, i)), ['accepted', 'rejected']);
    assert.deepEqual(placeHunks([file], '/p/x.txt', tree.files.get('/p/x.txt')!), [], 'nothing left to keep or undo');
  });

  test("an edited proposal: Keep keeps the person's version and the agent's next prompt says what it became", async () => {
    const tree = new MemoryTree();
    tree.files.set('/p/x.txt', base);
    const store = new ReviewStore(tree);
    const file = store.propose(change);
    await store.reviewInFile(file);
    const rewritten = proposed.replace('F2', 'mine');
    tree.files.set('/p/x.txt', rewritten);
    const placed = placeHunks([file], '/p/x.txt', rewritten);
    assert.deepEqual(placed.map((p) => [p.index, p.start, p.lines, p.edited]), [[0, 1, 1, undefined], [1, 5, 2, 'F1\nmine\n']]);
    const result = store.keepEdited(file, 1, placed[1]!.edited!);
    assert.equal(result.landed.length, 1);
    assert.equal(tree.files.get('/p/x.txt'), rewritten, 'nothing written: their version stays');
    assert.equal(hunkState(file, 1), 'accepted');
    assert.match(store.takeContextNote('s') ?? '', /accepted your change at line 6 \(at "F1"\) in \/p\/x\.txt after editing it; the person's version there reads:\n```\nF1\nmine\n```/);
    assert.match(store.keepEdited(file, 1, 'x').refused?.[0]?.why ?? '', /not pending/, 'a second Keep says why it does nothing');
  });

  test('a hunk that clashes with the person edit stays pending in the diff; the rest is written in', async () => {
    const tree = new MemoryTree();
    tree.files.set('/p/x.txt', base.replace('b\n', 'mine\n'));
    const store = new ReviewStore(tree);
    const file = store.propose(change);
    await store.reviewInFile(file);
    assert.equal(tree.files.get('/p/x.txt'), proposed.replace('B\n', 'mine\n'));
    assert.deepEqual(file.hunks.map((_, i) => hunkState(file, i)), ['pending', 'pending']);
    assert.deepEqual(placeHunks([file], '/p/x.txt', tree.files.get('/p/x.txt')!).map((p) => p.index), [1]);
  });

  test('a whole-file change (added file) is refused with a reason', async () => {
    const store = new ReviewStore(new MemoryTree());
    const file = store.propose({ ...change, path: '/p/new.txt', base: null });
    const result = await store.reviewInFile(file);
    assert.match(result.refused?.[0]?.why ?? '', /added file is reviewed as a whole/);
  });

  test('lineMapper follows unchanged lines and drops changed ones', () => {
    const map = lineMapper(lines('a', 'b', 'c'), lines('x', 'a', 'B', 'c'));
    assert.deepEqual([0, 1, 2].map(map), [1, undefined, 3]);
  });
});
