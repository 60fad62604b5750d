// What the panel hears of the review: per-file state and the per-turn list.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReviewStore, type RealTree } from '../../../extension/review/reviewStore';
import { reviewForPath, reviewState, summarize } from '../../../extension/review/reviewSummary';
import type { Content } from '../../../extension/review/fileReview';

const enc = (s: string) => new TextEncoder().encode(s);
function memoryTree(files: Record<string, string>): RealTree {
  return {
    async read(path: string): Promise<Content> {
      return path in files ? enc(files[path]!) : null;
    },
    async write(path: string, content: Content): Promise<void> {
      if (content === null) delete files[path];
      else files[path] = new TextDecoder().decode(content);
    },
  };
}

describe('review summary', () => {
  test("states follow the hunks' decisions, and each turn lists its own changes", async () => {
    const files = { '/p/a.txt': 'a\nb\nc\nd\ne\nf\ng\n' };
    const store = new ReviewStore(memoryTree(files));
    const first = store.propose({ origin: 'staged', sessionId: 's', turnId: '1', path: '/p/a.txt', base: enc(files['/p/a.txt']), proposed: enc('A\nb\nc\nd\ne\nf\nG\n') });
    assert.equal(reviewState(first), 'pending');
    await store.decideHunk(first, 0, 'accepted');
    assert.equal(reviewState(first), 'pending');
    await store.decideHunk(first, 1, 'rejected');
    assert.equal(reviewState(first), 'partial');
    assert.equal(files['/p/a.txt'], 'A\nb\nc\nd\ne\nf\ng\n');
    const second = store.propose({ origin: 'staged', sessionId: 's', turnId: '2', path: '/p/new.txt', base: null, proposed: enc('n\n') });
    const summary = summarize(store.inSession('s'));
    assert.equal(summary.pending, 1);
    assert.deepEqual(summary.turns.map((t) => [t.turnId, t.files.map((f) => [f.path, f.kind, f.added, f.removed, f.state])]), [
      ['1', [['/p/a.txt', 'modified', 2, 2, 'partial']]],
      ['2', [['/p/new.txt', 'added', 1, 0, 'pending']]],
    ]);
    await store.decideFiles([second], 'rejected');
    assert.equal(reviewState(second), 'rejected');
    const again = store.propose({ origin: 'staged', sessionId: 's', turnId: '3', path: '/p/a.txt', base: enc('a\nb\nc\nd\ne\nf\ng\n'), proposed: enc('A\nb\nc\nd\ne\nf\nGG\n') });
    assert.equal(reviewForPath(store.inSession('s'), '/p/a.txt'), again, 'without a turn, the latest review of a path');
    assert.equal(reviewForPath(store.inSession('s'), '/p/a.txt', '1'), first, "a tool card of turn 1 shows turn 1's review");
    const turns = summarize(store.inSession('s')).turns;
    assert.deepEqual(turns.map((t) => [t.turnId, t.files.map((f) => [f.path, f.added, f.removed, f.state])]), [
      ['1', [['/p/a.txt', 2, 2, 'partial']]],
      ['2', [['/p/new.txt', 1, 0, 'rejected']]],
      ['3', [['/p/a.txt', 1, 1, 'pending']]],
    ], "each turn lists its own counts: turn 3 changed only G's line again");
  });
});
