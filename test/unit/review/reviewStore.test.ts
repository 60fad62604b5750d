import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReviewStore, type RealTree } from '../../../extension/review/reviewStore';
import { isPending, kindOf, type Content, type ProposedChange } from '../../../extension/review/fileReview';

/** An in-memory tree: the store's only contact with files. */
class MemoryTree implements RealTree {
  readonly files = new Map<string, Uint8Array>();
  writes = 0;
  async read(path: string): Promise<Content> {
    return this.files.get(path) ?? null;
  }
  async write(path: string, content: Content): Promise<void> {
    this.writes++;
    if (content === null) this.files.delete(path);
    else this.files.set(path, content);
  }
  set(path: string, text: string): void {
    this.files.set(path, bytes(text));
  }
  text(path: string): string | undefined {
    const content = this.files.get(path);
    return content && new TextDecoder().decode(content);
  }
}

const bytes = (text: string) => new TextEncoder().encode(text);
const lines = (...l: string[]) => l.map((x) => x + '\n').join('');
const base = lines('one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine');
const proposed = lines('one', 'TWO', 'three', 'four', 'five', 'six', 'SEVEN', 'eight', 'nine', 'ten');

function change(over: Partial<ProposedChange> & Pick<ProposedChange, 'origin'>): ProposedChange {
  return { sessionId: 's1', turnId: 't1', path: '/w/a.txt', base: bytes(base), proposed: bytes(proposed), ...over };
}

describe('review store, staged changes (nothing on disk until accepted)', () => {
  test('accepting one hunk of three writes exactly that hunk', async () => {
    const tree = new MemoryTree();
    tree.set('/w/a.txt', base);
    const store = new ReviewStore(tree);
    const file = store.propose(change({ origin: 'staged' }));
    assert.equal(file.hunks.length, 3);
    const result = await store.decideHunk(file, 1, 'accepted');
    assert.equal(result.landed.length, 1);
    assert.equal(tree.text('/w/a.txt'), base.replace('seven', 'SEVEN'));
    assert.equal(isPending(file), true);
  });

  test('reject a file: the tree is untouched and the agent gets a note', async () => {
    const tree = new MemoryTree();
    tree.set('/w/a.txt', base);
    const store = new ReviewStore(tree);
    const file = store.propose(change({ origin: 'staged' }));
    await store.decideFile(file, 'rejected');
    assert.equal(tree.text('/w/a.txt'), base);
    assert.equal(tree.writes, 0);
    assert.equal(isPending(file), false);
    assert.match(store.takeContextNote('s1') ?? '', /rejected 3 changes in \/w\/a\.txt \(not applied\): line 2 \(at "TWO"\)/);
    assert.equal(store.takeContextNote('s1'), undefined);
  });

  test('accept all for a turn, then undo the turn as a set', async () => {
    const tree = new MemoryTree();
    tree.set('/w/a.txt', base);
    tree.set('/w/b.txt', 'b\n');
    const store = new ReviewStore(tree);
    store.propose(change({ origin: 'staged' }));
    store.propose(change({ origin: 'staged', path: '/w/b.txt', base: bytes('b\n'), proposed: bytes('B\n') }));
    store.propose(change({ origin: 'staged', path: '/w/new.txt', base: null, proposed: bytes('fresh\n') }));
    store.propose(change({ origin: 'staged', turnId: 't2', path: '/w/c.txt', base: bytes('c\n'), proposed: bytes('c2\n') }));
    const accepted = await store.decideFiles(store.inTurn('s1', 't1'), 'accepted');
    assert.equal(accepted.landed.length, 3);
    assert.equal(tree.text('/w/a.txt'), proposed);
    assert.equal(tree.text('/w/b.txt'), 'B\n');
    assert.equal(tree.text('/w/new.txt'), 'fresh\n');
    assert.equal(store.pendingCount(), 1, 'turn t2 is still pending');

    const undone = await store.undoTurn('s1', 't1');
    assert.equal(undone.conflicts.length, 0);
    assert.equal(tree.text('/w/a.txt'), base);
    assert.equal(tree.text('/w/b.txt'), 'b\n');
    assert.equal(tree.files.has('/w/new.txt'), false);
    assert.match(store.takeContextNote('s1') ?? '', /undid turn t1/);
  });

  test("a conflict with the person's edit to the same line is reported and nothing is written", async () => {
    const tree = new MemoryTree();
    tree.set('/w/a.txt', base);
    const store = new ReviewStore(tree);
    const file = store.propose(change({ origin: 'staged' }));
    tree.set('/w/a.txt', base.replace('two', 'person two'));
    const result = await store.decideHunk(file, 0, 'accepted');
    assert.equal(result.conflicts.length, 1);
    assert.match(file.conflict ?? '', /same lines \(near line 2\)/);
    assert.equal(tree.text('/w/a.txt'), base.replace('two', 'person two'));
  });

  test("the person's edit elsewhere in the file is kept when a hunk lands", async () => {
    const tree = new MemoryTree();
    tree.set('/w/a.txt', base);
    const store = new ReviewStore(tree);
    const file = store.propose(change({ origin: 'staged' }));
    tree.set('/w/a.txt', base.replace('four', 'person four'));
    await store.decideHunk(file, 0, 'accepted');
    assert.equal(tree.text('/w/a.txt'), base.replace('four', 'person four').replace('two', 'TWO'));
  });

  test('an added file rejected is never created; a deleted file accepted is deleted', async () => {
    const tree = new MemoryTree();
    tree.set('/w/gone.txt', 'bye\n');
    const store = new ReviewStore(tree);
    const added = store.propose(change({ origin: 'staged', path: '/w/new.txt', base: null, proposed: bytes('x\n') }));
    assert.equal(kindOf(added), 'added');
    await store.decideFile(added, 'rejected');
    assert.equal(tree.files.has('/w/new.txt'), false);
    const deleted = store.propose(change({ origin: 'staged', path: '/w/gone.txt', base: bytes('bye\n'), proposed: null }));
    assert.equal(kindOf(deleted), 'deleted');
    await store.decideFile(deleted, 'accepted');
    assert.equal(tree.files.has('/w/gone.txt'), false);
  });

  test('a moved file moves when accepted, with its content hunks', async () => {
    const tree = new MemoryTree();
    tree.set('/w/old.txt', 'a\nb\n');
    const store = new ReviewStore(tree);
    const moved = store.propose(
      change({ origin: 'staged', path: '/w/new.txt', movedFrom: '/w/old.txt', base: bytes('a\nb\n'), proposed: bytes('a\nB\n') }),
    );
    assert.equal(kindOf(moved), 'moved');
    await store.decideFile(moved, 'accepted');
    assert.equal(tree.files.has('/w/old.txt'), false);
    assert.equal(tree.text('/w/new.txt'), 'a\nB\n');
  });

  test('a binary file is decided as a whole and never diffed', async () => {
    const tree = new MemoryTree();
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
    const store = new ReviewStore(tree);
    const file = store.propose(change({ origin: 'staged', path: '/w/logo.png', base: null, proposed: png }));
    assert.equal(file.binary, true);
    assert.equal(file.hunks.length, 0);
    assert.equal(isPending(file), true);
    await store.decideFile(file, 'accepted');
    assert.deepEqual(tree.files.get('/w/logo.png'), png);
  });

  test('a newer proposal keeps decisions on unchanged hunks', async () => {
    const tree = new MemoryTree();
    tree.set('/w/a.txt', base);
    const store = new ReviewStore(tree);
    const file = store.propose(change({ origin: 'staged' }));
    await store.decideHunk(file, 0, 'accepted');
    store.propose(change({ origin: 'staged', proposed: bytes(proposed.replace('ten', 'TEN')) }));
    assert.equal(file.hunks.length, 3);
    await store.decideHunk(file, 2, 'accepted');
    assert.equal(tree.text('/w/a.txt'), base.replace('two', 'TWO') + 'TEN\n');
  });
});

describe('review store, direct-to-disk changes (already on disk, base is a snapshot)', () => {
  test('rejecting a file restores the snapshot', async () => {
    const tree = new MemoryTree();
    tree.set('/w/a.txt', proposed);
    const store = new ReviewStore(tree);
    const file = store.propose(change({ origin: 'direct' }));
    await store.decideFile(file, 'rejected');
    assert.equal(tree.text('/w/a.txt'), base);
  });

  test('rejecting one hunk of three takes out only that hunk; accepting writes nothing', async () => {
    const tree = new MemoryTree();
    tree.set('/w/a.txt', proposed);
    const store = new ReviewStore(tree);
    const file = store.propose(change({ origin: 'direct' }));
    await store.decideHunk(file, 0, 'accepted');
    assert.equal(tree.writes, 0);
    await store.decideHunk(file, 1, 'rejected');
    assert.equal(tree.text('/w/a.txt'), proposed.replace('SEVEN', 'seven'));
  });

  test('a file the agent created directly is deleted when rejected', async () => {
    const tree = new MemoryTree();
    tree.set('/w/new.txt', 'x\n');
    const store = new ReviewStore(tree);
    const file = store.propose(change({ origin: 'direct', path: '/w/new.txt', base: null, proposed: bytes('x\n') }));
    await store.decideFile(file, 'rejected');
    assert.equal(tree.files.has('/w/new.txt'), false);
  });
});

describe('review store, a file changed again in a later turn', () => {
  test("the later turn's review holds only its own hunks, against the agent's text after the earlier turn", async () => {
    const tree = new MemoryTree();
    tree.set('/w/a.txt', base);
    const store = new ReviewStore(tree);
    const first = store.propose(change({ origin: 'staged' }));
    await store.decideHunk(first, 0, 'accepted');
    const second = store.propose(change({ origin: 'staged', turnId: 't2', base: bytes(base), proposed: bytes(proposed.replace('ten', 'eleven')) }));
    assert.notEqual(first, second);
    assert.equal(second.baseText, proposed, "the base is the agent's text after turn t1");
    assert.equal(second.hunks.length, 1, 'only the change turn t2 made');
    assert.equal(isPending(first), true, 'turn t1 keeps its own open hunks');
    await store.decideFiles(store.inTurn('s1', 't2'), 'accepted');
    assert.equal(tree.text('/w/a.txt'), base.replace('two', 'TWO'), "turn t2 rewrote turn t1's pending 'ten': it cannot land before that lands");
    assert.match(second.conflict ?? '', /builds on a change from an earlier turn/);
    await store.decideFiles(store.inTurn('s1', 't1'), 'accepted');
    await store.decideFiles(store.inTurn('s1', 't2'), 'accepted');
    assert.equal(tree.text('/w/a.txt'), proposed.replace('ten', 'eleven'));
    const undone = await store.undoTurn('s1', 't2');
    assert.equal(undone.conflicts.length, 0);
    assert.equal(tree.text('/w/a.txt'), proposed, 'undoing turn t2 leaves turn t1 in place');
  });

  test('a proposal identical to the earlier turn is nothing new', () => {
    const store = new ReviewStore(new MemoryTree());
    const first = store.propose(change({ origin: 'isolated' }));
    const again = store.propose(change({ origin: 'isolated', turnId: 't2' }));
    assert.equal(again, first);
    assert.deepEqual(store.turnIds('s1'), ['t1']);
  });
});
