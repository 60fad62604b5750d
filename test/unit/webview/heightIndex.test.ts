import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { HeightIndex, type Window } from '../../../webview/view/heightIndex';

const ESTIMATE = 80;

/** The reference: the virtual list's original walk over every item, summing as it goes. */
function referenceWindow(heights: Map<string, number>, items: readonly { key: string }[], from: number, to: number): Window {
  let offset = 0;
  let start = items.length;
  let top = 0;
  let end = items.length;
  for (let i = 0; i < items.length; i += 1) {
    const height = heights.get(items[i]!.key) ?? ESTIMATE;
    if (start === items.length && offset + height >= from) {
      start = i;
      top = offset;
    }
    if (offset > to) {
      end = i;
      break;
    }
    offset += height;
  }
  if (start === items.length) top = offset;
  let bottom = 0;
  for (let i = end; i < items.length; i += 1) bottom += heights.get(items[i]!.key) ?? ESTIMATE;
  return { start, end, top, bottom };
}

type Op =
  | { op: 'push'; count: number }
  | { op: 'measure'; pick: number; height: number }
  | { op: 'measureUnknown'; height: number }
  | { op: 'newSession' }
  | { op: 'clear' }
  | { op: 'ask'; from: number; span: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('push' as const), count: fc.integer({ min: 1, max: 5 }) }) },
  // Heights are whole or fractional pixels (ResizeObserver gives both), zero for an item that renders nothing.
  { weight: 5, arbitrary: fc.record({ op: fc.constant('measure' as const), pick: fc.nat(), height: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.double({ min: 0, max: 400, noNaN: true })) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('measureUnknown' as const), height: fc.integer({ min: 0, max: 400 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('newSession' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('ask' as const), from: fc.integer({ min: -2000, max: 20_000 }), span: fc.integer({ min: 0, max: 4000 }) }) },
);

describe('virtual list height sums', () => {
  test('every window and total equals the full walk over the items, through pushes, measurements, new sessions and clears', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
        const index = new HeightIndex(ESTIMATE);
        const model = new Map<string, number>();
        let items: Array<{ key: string }> = [];
        let next = 0;
        for (const o of ops) {
          if (o.op === 'push') for (let i = 0; i < o.count; i += 1) items.push({ key: `k${next++}` });
          else if (o.op === 'measure' && items.length > 0) {
            const key = items[o.pick % items.length]!.key;
            assert.equal(index.set(key, o.height), model.get(key) !== o.height);
            model.set(key, o.height);
          } else if (o.op === 'measureUnknown') {
            // A measurement for an item not (yet) in the list: it counts once the item is pushed.
            const key = `k${next}`;
            index.set(key, o.height);
            model.set(key, o.height);
          } else if (o.op === 'newSession') items = [];
          else if (o.op === 'clear') {
            index.clear();
            model.clear();
          } else if (o.op === 'ask') {
            const to = o.from + o.span;
            const got = index.window(items, o.from, to);
            const want = referenceWindow(model, items, o.from, to);
            assert.deepEqual([got.start, got.end], [want.start, want.end]);
            // The space below is the total minus a running sum here, a sum of its own there: equal up to rounding.
            assert.ok(Math.abs(got.top - want.top) < 1e-6 && Math.abs(got.bottom - want.bottom) < 1e-6, JSON.stringify({ got, want }));
          }
          const total = items.reduce((sum, item) => sum + (model.get(item.key) ?? ESTIMATE), 0);
          assert.ok(Math.abs(index.total(items) - total) < 1e-6);
        }
      }),
      { numRuns: 500 },
    );
  });

  test('a long transcript streaming at its end: the window follows the growing last item', () => {
    const index = new HeightIndex(ESTIMATE);
    const items = Array.from({ length: 5000 }, (_, i) => ({ key: `m${i}` }));
    for (const item of items) index.set(item.key, 100);
    assert.equal(index.total(items), 500_000);
    for (let height = 100; height <= 1000; height += 100) {
      index.set('m4999', height);
      const total = index.total(items);
      assert.equal(total, 499_900 + height);
      const w = index.window(items, total - 900 - 1200, total + 1200);
      assert.equal(w.end, 5000);
      assert.equal(w.bottom, 0);
      assert.equal(w.top, w.start * 100);
      assert.ok(w.top + 100 >= total - 2100 && w.top <= total - 2100, `top ${w.top} for total ${total}`);
    }
  });
});
