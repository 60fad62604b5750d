// When a prompt's hold on its session's copy ends (agent/acp/copyPacing.ts),
// driven by a clock of the test's own, on which the test also makes the
// agent "busy" (its event loop works; timers due meanwhile fire late): the copy goes
// on once the model has been silent and the agent idle for quietMs, or
// latestMs after the request; never before the request; once at most.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { QuietWatch, type CopyPacing, type PacingClock } from '../../../agent/acp/copyPacing';

const TICK = 10;

/** A clock whose timers fire only when the test moves time on: on time (`advanceTo`) or late, all at once (`busyTo`). */
function testClock() {
  let now = 0;
  let busy = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const clock: PacingClock = {
    now: () => now,
    busyMs: () => busy,
    setTimeout: (callback, ms) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, callback });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  const fireDue = (to: number, late: boolean) => {
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      now = late ? Math.max(now, to) : due[1].at;
      due[1].callback();
    }
    now = to;
  };
  return {
    clock,
    /** Time passes with the event loop free: each timer fires when due. */
    advanceTo: (to: number) => fireDue(to, false),
    /** The event loop is blocked until `to`: timers due meanwhile fire then. */
    busyTo: (to: number) => {
      busy += to - now;
      fireDue(to, true);
    },
    pending: () => timers.size,
  };
}

const pacing: CopyPacing = { quietMs: 30, latestMs: 250 };

function watched(p: CopyPacing = pacing) {
  const time = testClock();
  const releases: number[] = [];
  const watch = new QuietWatch(p, () => releases.push(time.clock.now()), time.clock, TICK);
  return { time, releases, watch };
}

test('a model slow to answer, the agent idle: the copy goes on quietMs after the request', () => {
  const { time, releases, watch } = watched();
  time.advanceTo(5);
  watch.requestSent();
  time.advanceTo(34);
  assert.deepEqual(releases, []);
  time.advanceTo(1_000);
  assert.deepEqual(releases, [35]);
  assert.equal(time.pending(), 0, 'no timer left behind');
});

test('the agent busy after the request (a model that answered at once): the quiet counts only from when it is idle again', () => {
  const { time, releases, watch } = watched();
  watch.requestSent();
  time.busyTo(45); // working through the response, no update out yet
  assert.deepEqual(releases, [], 'a busy agent is not a quiet model');
  watch.said();
  time.advanceTo(74);
  assert.deepEqual(releases, []);
  time.advanceTo(200);
  assert.deepEqual(releases, [75]);
});

test('nothing before the request went out counts, and no clock runs before it', () => {
  const { time, releases, watch } = watched();
  watch.said();
  time.advanceTo(10_000);
  assert.deepEqual(releases, []);
  assert.equal(time.pending(), 0);
});

test('a model that streams without a pause holds the copy until latestMs after the request at the latest', () => {
  const { time, releases, watch } = watched();
  watch.requestSent();
  for (let t = 3; t <= 400; t += 10) {
    time.advanceTo(t);
    watch.said();
  }
  assert.deepEqual(releases, [250]);
});

test('an agent busy all the time: latestMs still lets the copy go on', () => {
  const { time, releases, watch } = watched();
  watch.requestSent();
  for (let t = 25; t <= 400; t += 25) time.busyTo(t);
  assert.deepEqual(releases, [250]);
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

type Step = { gap: number; kind: 'said' } | { gap: number; kind: 'busy'; length: number };

test('property: the copy goes on exactly once, never before the request; before latestMs only after quietMs with no word and no long busy spell; never later than the rule allows', () => {
  const step = fc.oneof(
    fc.record({ gap: fc.integer({ min: 0, max: 60 }), kind: fc.constant('said' as const) }),
    // Short spells (under a tick: may go unnoticed) and long ones (over two ticks: always noticed, being more than half of the look that ends them).
    fc.record({ gap: fc.integer({ min: 0, max: 60 }), kind: fc.constant('busy' as const), length: fc.oneof(fc.integer({ min: 1, max: TICK - 1 }), fc.integer({ min: 2 * TICK + 1, max: 120 })) }),
  );
  fc.assert(
    fc.property(
      fc.record({ quietMs: fc.integer({ min: 0, max: 100 }), latestMs: fc.integer({ min: 0, max: 400 }) }),
      fc.integer({ min: 0, max: 50 }),
      fc.array(step, { maxLength: 40 }),
      (p, start, steps) => {
        const { time, releases, watch } = watched(p);
        time.advanceTo(start);
        watch.requestSent();
        const words: number[] = [];
        const spells: Array<{ from: number; to: number }> = [];
        let at = start;
        for (const s of steps) {
          at += s.gap;
          time.advanceTo(at);
          if (s.kind === 'said') {
            words.push(at);
            watch.said();
          } else {
            spells.push({ from: at, to: at + s.length });
            at += s.length;
            time.busyTo(at);
          }
        }
        time.advanceTo(at + p.quietMs + p.latestMs + 1);
        assert.equal(releases.length, 1, 'once');
        const r = releases[0]!;
        assert.ok(r >= start, 'never before the request');
        assert.equal(time.pending(), 0, 'no timer left behind');
        const covering = (t: number) => spells.find((s) => s.from < t && t < s.to);
        // Never later than latestMs after the request (or the end of a busy spell that covers that moment).
        const latest = start + p.latestMs;
        assert.ok(r <= (covering(latest)?.to ?? latest), `released at ${r}, latest ${latest}`);
        // Never later than quietMs after the last reason to wait (a word; the end of a busy spell, seen at the next look, a tick later at most), or a spell covering that moment.
        const lastReason = Math.max(start, ...words.filter((w) => w < r), ...spells.filter((s) => s.to <= r).map((s) => s.to + TICK));
        const quietAt = lastReason + p.quietMs;
        assert.ok(r <= (covering(quietAt)?.to ?? quietAt), `released at ${r}, quiet since ${lastReason}`);
        if (r < latest) {
          // Released for quiet: the model said nothing and no long spell ended in the quietMs before.
          assert.ok(r - start >= p.quietMs);
          assert.ok(!words.some((w) => w > r - p.quietMs && w < r), `a word in the quiet before ${r}`);
          assert.ok(!spells.some((s) => s.to - s.from > 2 * TICK && s.to > r - p.quietMs && s.from < r), `a long busy spell in the quiet before ${r}`);
        }
      },
    ),
    { numRuns: 500 },
  );
});
