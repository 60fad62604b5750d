// When a prompt's hold on its session's copy ends (agent/acp/copyPacing.ts),
// driven by a clock of the test's own: the model quiet for `quietMs` (slow to
// answer, or pausing), or its first words out for `afterFirstWordsMs`,
// whichever comes first; never before the request went out; once at most.
// The property test checks the watch against that rule for any stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { QuietWatch, type CopyPacing, type PacingClock } from '../../../agent/acp/copyPacing';

/** A clock whose timers fire only when the test moves time on, each at its due time. */
function testClock() {
  let now = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const clock: PacingClock = {
    now: () => now,
    setTimeout: (callback, ms) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, callback });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  /** Moves time to `to`, firing every timer due on the way, in order. */
  const advanceTo = (to: number) => {
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].callback();
    }
    now = to;
  };
  return { clock, advanceTo, pending: () => timers.size };
}

const pacing: CopyPacing = { quietMs: 30, afterFirstWordsMs: 150 };

function watched(p: CopyPacing = pacing) {
  const time = testClock();
  const releases: number[] = [];
  const watch = new QuietWatch(p, () => releases.push(time.clock.now()), time.clock);
  return { time, releases, watch };
}

test('a model slow to answer: the copy goes on once it has been quiet for quietMs after the request', () => {
  const { time, releases, watch } = watched();
  time.advanceTo(5);
  watch.requestSent();
  time.advanceTo(34);
  assert.deepEqual(releases, []);
  time.advanceTo(1_000);
  assert.deepEqual(releases, [35]);
  assert.equal(time.pending(), 0, 'no timer left behind');
});

test('nothing before the request went out counts, and no clock runs before it', () => {
  const { time, releases, watch } = watched();
  watch.said();
  time.advanceTo(10_000);
  assert.deepEqual(releases, []);
  assert.equal(time.pending(), 0);
});

test('a model that answers at once and streams without a pause holds the copy until afterFirstWordsMs after its first words', () => {
  const { time, releases, watch } = watched();
  watch.requestSent();
  for (let t = 3; t <= 400; t += 10) {
    time.advanceTo(t);
    watch.said();
  }
  assert.deepEqual(releases, [153]);
});

test('a pause in the stream lets the copy go on', () => {
  const { time, releases, watch } = watched();
  watch.requestSent();
  for (const t of [2, 20, 40, 60]) {
    time.advanceTo(t);
    watch.said();
  }
  time.advanceTo(200);
  assert.deepEqual(releases, [90]);
});

test('stop ends the watch: no call, no timer', () => {
  const { time, releases, watch } = watched();
  watch.requestSent();
  time.advanceTo(10);
  watch.stop();
  time.advanceTo(10_000);
  watch.said();
  watch.requestSent();
  time.advanceTo(20_000);
  assert.deepEqual(releases, []);
  assert.equal(time.pending(), 0);
});

/** The rule, from the events alone: the first moment the model has been quiet for quietMs, or its first words are afterFirstWordsMs old. */
function expectedRelease(p: CopyPacing, start: number, said: number[]): number {
  let last = start;
  const first = said[0];
  const cap = first === undefined ? Infinity : first + p.afterFirstWordsMs;
  for (const at of said) {
    if (at - last >= p.quietMs) return Math.min(last + p.quietMs, cap);
    if (at >= cap) return cap;
    last = at;
  }
  return Math.min(last + p.quietMs, cap);
}

test('property: for any stream, the copy goes on exactly once, at the moment the rule names, never before the request', () => {
  fc.assert(
    fc.property(
      fc.record({ quietMs: fc.integer({ min: 0, max: 100 }), afterFirstWordsMs: fc.integer({ min: 0, max: 300 }) }),
      fc.integer({ min: 0, max: 50 }),
      fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 60 }),
      (p, start, gaps) => {
        const { time, releases, watch } = watched(p);
        time.advanceTo(start);
        watch.requestSent();
        const said: number[] = [];
        let at = start;
        for (const gap of gaps) {
          at += gap;
          time.advanceTo(at);
          // Updates after the release change nothing: the watch is done.
          if (releases.length === 0) said.push(at);
          watch.said();
        }
        time.advanceTo(at + p.quietMs + p.afterFirstWordsMs + 1);
        assert.equal(releases.length, 1);
        assert.ok(releases[0]! >= start);
        // A word at the very moment a check is due comes after that check (advanceTo fires timers first), as in the rule.
        assert.equal(releases[0], expectedRelease(p, start, said));
        assert.equal(time.pending(), 0);
      },
    ),
    { numRuns: 500 },
  );
});
