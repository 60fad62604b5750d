// A streamed response's updates go out without a wait per chunk, but never
// more than the window ahead of a slow client, and all of them before the
// turn goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { UpdateEmitter } from '../../../agent/core/emitter';
import { UpdateWindow } from '../../../agent/core/updateWindow';
import type { SessionUpdate } from '../../../agent/core/updates';

const chunk = (text: string): SessionUpdate => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });

test('a slow client holds the stream back: never more than the window outstanding, every update delivered in order', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 60 }), fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 20 }), async (size, count, slowness) => {
      const emitter = new UpdateEmitter();
      const delivered: string[] = [];
      let sent = 0;
      let maxOutstanding = 0;
      emitter.subscribe(async (u) => {
        for (let i = 0; i < slowness[delivered.length % slowness.length]!; i++) await new Promise((r) => setImmediate(r));
        delivered.push((u as { content: { text: string } }).content.text);
      });
      const window = new UpdateWindow(emitter.emit.bind(emitter), size);
      for (let i = 0; i < count; i++) {
        await window.send(chunk(String(i)));
        sent++;
        maxOutstanding = Math.max(maxOutstanding, sent - delivered.length);
      }
      await window.drain();
      assert.ok(maxOutstanding <= size, `${maxOutstanding} outstanding with a window of ${size}`);
      assert.deepEqual(delivered, Array.from({ length: count }, (_, i) => String(i)));
    }),
    { numRuns: 100 },
  );
});

test('updates sent in one go are recorded in a few batches, the first update on its own', async () => {
  const emitter = new UpdateEmitter();
  const batches: number[] = [];
  let current = 0;
  emitter.subscribe(() => {
    current++;
    return new Promise<void>((resolve) => setImmediate(() => {
      if (current) batches.push(current);
      current = 0;
      resolve();
    }));
  }, { phase: 'record' });
  const window = new UpdateWindow(emitter.emit.bind(emitter), 64);
  for (let i = 0; i < 50; i++) await window.send(chunk(String(i)));
  await window.drain();
  // The first update goes out alone, at once; the next starts a batch of its own before the rest are sent,
  // and the 48 sent while it was committing share one.
  assert.deepEqual(batches, [1, 1, 48]);
});
