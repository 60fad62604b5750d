// The stream-idle watchdog: one timer that checks when the last part came,
// instead of a timer re-armed per part. Driven by mocked timers and clock, so
// nothing here depends on how fast the machine is.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { idleWatch } from '../../../agent/core/idleWatch';
import { StalledStreamError } from '../../../agent/models/errors';

function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => { t += ms; mock.timers.tick(ms); } };
}

test('a stream silent for the idle time is dropped as stalled', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const c = clock();
    const turn = new AbortController();
    const watch = idleWatch(turn.signal, 100, c.now);
    c.advance(99);
    assert.equal(watch.signal.aborted, false);
    c.advance(1);
    assert.equal(watch.signal.aborted, true);
    assert.ok(watch.signal.reason instanceof StalledStreamError);
    assert.equal(watch.stalled(), true);
    watch.stop();
  } finally {
    mock.timers.reset();
  }
});

test('parts that keep coming keep the stream alive however long it runs, and the idle time counts from the last one', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const c = clock();
    const turn = new AbortController();
    const watch = idleWatch(turn.signal, 100, c.now);
    for (let i = 0; i < 50; i++) {
      c.advance(60);
      watch.touch();
    }
    assert.equal(watch.signal.aborted, false, 'never 100 ms without a part');
    c.advance(99);
    assert.equal(watch.signal.aborted, false);
    c.advance(1);
    assert.equal(watch.signal.aborted, true);
    assert.equal(watch.stalled(), true);
    watch.stop();
  } finally {
    mock.timers.reset();
  }
});

test('a cancelled turn aborts the request without calling it stalled, and stop() leaves no timer behind', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const c = clock();
    const turn = new AbortController();
    const watch = idleWatch(turn.signal, 100, c.now);
    turn.abort(new Error('cancelled'));
    assert.equal(watch.signal.aborted, true);
    assert.equal(watch.stalled(), false);
    watch.stop();

    const quiet = idleWatch(new AbortController().signal, 100, c.now);
    quiet.touch();
    quiet.stop();
    c.advance(10_000);
    assert.equal(quiet.signal.aborted, false);
  } finally {
    mock.timers.reset();
  }
});
