// The update emitter: one ordered stream per session, recorders before deliverers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { UpdateEmitter } from '../../../agent/core/emitter';
import type { SessionUpdate } from '../../../agent/core/updates';

const chunk = (text: string): SessionUpdate => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const textOf = (u: SessionUpdate) => (u as { content: { text: string } }).content.text;

test('a record listener finishes each update before any deliver listener sees it', async () => {
  const emitter = new UpdateEmitter();
  const events: string[] = [];
  emitter.subscribe((u) => void events.push(`deliver ${textOf(u)}`));
  emitter.subscribe(async (u) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    events.push(`record ${textOf(u)}`);
  }, { phase: 'record' });
  // Overlapping emits, as a tool's progress and a plan update can produce.
  await Promise.all([emitter.emit(chunk('a')), emitter.emit(chunk('b'))]);
  assert.deepEqual(events.filter((e) => e.startsWith('record')), ['record a', 'record b']);
  assert.deepEqual(events.filter((e) => e.startsWith('deliver')), ['deliver a', 'deliver b']);
  assert.ok(events.indexOf('record a') < events.indexOf('deliver a'));
  assert.ok(events.indexOf('record b') < events.indexOf('deliver b'));
});

test('updates emitted while a record is being committed are recorded together, then delivered in order', async () => {
  const emitter = new UpdateEmitter();
  const recorded: string[] = [];
  const delivered: string[] = [];
  const commits: Array<() => void> = [];
  // As the session log: the append is synchronous, the commit settles later.
  emitter.subscribe((u) => {
    recorded.push(textOf(u));
    return new Promise<void>((resolve) => commits.push(resolve));
  }, { phase: 'record' });
  emitter.subscribe((u) => void delivered.push(textOf(u)));
  const first = emitter.emit(chunk('a'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(recorded, ['a']);
  const rest = ['b', 'c', 'd'].map((t) => emitter.emit(chunk(t)));
  await new Promise((resolve) => setImmediate(resolve));
  // b-d wait behind a's commit, and nothing is delivered before it.
  assert.deepEqual(recorded, ['a']);
  assert.deepEqual(delivered, []);
  commits.shift()!();
  await first;
  assert.deepEqual(delivered, ['a']);
  // The three are recorded as one batch: each is appended before any of their commits settles.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(recorded, ['a', 'b', 'c', 'd']);
  assert.deepEqual(delivered, ['a']);
  for (const commit of commits.splice(0)) commit();
  await Promise.all(rest);
  assert.deepEqual(delivered, ['a', 'b', 'c', 'd']);
});

test('a failing listener does not stop the others or later updates', async () => {
  const emitter = new UpdateEmitter();
  const seen: string[] = [];
  emitter.subscribe(() => {
    throw new Error('boom');
  });
  emitter.subscribe(async () => {
    throw new Error('async boom');
  });
  emitter.subscribe(() => Promise.reject(new Error('record boom')), { phase: 'record' });
  emitter.subscribe((u) => void seen.push(textOf(u)));
  const errors = console.error;
  console.error = () => undefined;
  try {
    await emitter.emit(chunk('x'));
    await Promise.all([emitter.emit(chunk('y')), emitter.emit(chunk('z'))]);
  } finally {
    console.error = errors;
  }
  assert.deepEqual(seen, ['x', 'y', 'z']);
});

/**
 * Against a reference model (every update recorded, then delivered, strictly
 * one at a time): whatever the interleaving of emits, barriers and commit
 * delays, each listener sees the emit order, no update is delivered before
 * its record settled, and a barrier's work sees exactly the updates emitted
 * before it recorded and delivered, none after.
 */
test('property: batching keeps emit order, write-ahead and barriers of the one-at-a-time emitter', async () => {
  type Op = { kind: 'emit'; delay: number } | { kind: 'barrier' } | { kind: 'tick' };
  const op = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('emit' as const), delay: fc.integer({ min: 0, max: 3 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'barrier' as const }) },
    { weight: 2, arbitrary: fc.constant({ kind: 'tick' as const }) },
  );
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops: Op[]) => {
      const emitter = new UpdateEmitter();
      const recorded: string[] = [];
      const committed = new Set<string>();
      const delivered: string[] = [];
      const violations: string[] = [];
      const delays = new Map<string, number>();
      emitter.subscribe((u) => {
        const t = textOf(u);
        recorded.push(t);
        let p: Promise<void> = Promise.resolve();
        for (let i = 0; i < delays.get(t)!; i++) p = p.then(() => new Promise((r) => setImmediate(r)));
        return p.then(() => void committed.add(t));
      }, { phase: 'record' });
      emitter.subscribe((u) => {
        if (!committed.has(textOf(u))) violations.push(`delivered ${textOf(u)} before its record settled`);
        delivered.push(textOf(u));
      });
      const pending: Promise<unknown>[] = [];
      const emitted: string[] = [];
      for (const [i, o] of ops.entries()) {
        if (o.kind === 'emit') {
          const t = `u${i}`;
          delays.set(t, o.delay);
          emitted.push(t);
          pending.push(emitter.emit(chunk(t)));
        } else if (o.kind === 'barrier') {
          const before = [...emitted];
          pending.push(emitter.barrier(async () => {
            if (recorded.join() !== before.join() || delivered.join() !== before.join()) violations.push(`barrier after ${before.join()} saw recorded ${recorded.join()} delivered ${delivered.join()}`);
            await new Promise((r) => setImmediate(r));
            if (recorded.length !== before.length) violations.push('an update was recorded during a barrier');
          }));
        } else await new Promise((r) => setImmediate(r));
      }
      await Promise.all(pending);
      assert.deepEqual(violations, []);
      assert.deepEqual(recorded, emitted);
      assert.deepEqual(delivered, emitted);
    }),
    { numRuns: 200 },
  );
});
