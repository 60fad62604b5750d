// Replay cursors: the replayFrom shapes accepted and refused, and (property,
// against a reference model) which offsets a resume may name and which
// updates it folds instead of sending.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkCursor, folds, LogError, parseReplayFrom, type ReplayCursor } from '../../../agent/log';

describe('replay cursors', () => {
  test('replayFrom: omitted or null is no replay, start is everything, _accord_offset names an offset', () => {
    assert.deepEqual(parseReplayFrom(undefined), { kind: 'none' });
    assert.deepEqual(parseReplayFrom(null), { kind: 'none' });
    assert.deepEqual(parseReplayFrom({ type: 'start' }), { kind: 'start' });
    assert.deepEqual(parseReplayFrom({ type: '_accord_offset', after: 0 }), { kind: 'after', offset: 0 });
    assert.deepEqual(parseReplayFrom({ type: '_accord_offset', after: 4096 }), { kind: 'after', offset: 4096 });
  });

  for (const bad of [{ type: '_accord_offset' }, { type: '_accord_offset', after: -1 }, { type: '_accord_offset', after: 1.5 }, { type: '_accord_offset', after: '12' }, { type: '_accord_offset', after: 2 ** 60 }]) {
    test(`refused with a message naming the offset: ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseReplayFrom(bad), (e: unknown) => e instanceof LogError && e.code === 'bad_offset' && /offset/.test(e.message));
    });
  }

  for (const bad of [{ type: 'end' }, { type: '_other' }, 'start', 3, []]) {
    test(`an unknown cursor is refused, never read as start: ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseReplayFrom(bad), (e: unknown) => e instanceof LogError && e.code === 'bad_cursor' && /replayFrom must be/.test(e.message));
    });
  }

  test('an offset is accepted exactly when an update carried it; folding is "at or before it"', () => {
    // Reference model: a log's updates are records at ascending offsets, several updates per record allowed.
    const log = fc
      .array(fc.tuple(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 3 })), { minLength: 1, maxLength: 40 })
      .map((records) => {
        const updates: Array<{ offset: number }> = [];
        let at = 0;
        for (const [length, count] of records) {
          for (let i = 0; i < count; i++) updates.push({ offset: at });
          at += length;
        }
        return { updates, end: at };
      });
    fc.assert(
      fc.property(log, fc.integer({ min: -10, max: 25_000 }), ({ updates, end }, query) => {
        const carried = new Set(updates.map((u) => u.offset));
        const cursor: ReplayCursor = { kind: 'after', offset: query };
        let accepted = true;
        try {
          checkCursor(cursor, updates, end);
        } catch (error) {
          assert.ok(error instanceof LogError && error.code === 'bad_offset');
          accepted = false;
        }
        assert.equal(accepted, carried.has(query) && query < end);
        if (!accepted) return;
        const sent = updates.filter((u) => !folds(cursor, u.offset));
        assert.deepEqual(sent, updates.filter((u) => u.offset > query), 'exactly the updates after the offset');
        assert.ok(updates.every((u) => folds({ kind: 'none' }, u.offset) && !folds({ kind: 'start' }, u.offset)));
      }),
    );
  });

  test('updates with no offset (never recorded) are never folded', () => {
    assert.equal(folds({ kind: 'none' }, undefined), false);
    assert.equal(folds({ kind: 'after', offset: 10 }, undefined), false);
  });
});
