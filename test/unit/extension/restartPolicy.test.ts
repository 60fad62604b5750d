import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { RestartPolicy } from '../../../extension/agents/restartPolicy';

describe('agent restart policy', () => {
  test('4 restarts in 3 minutes, then no more', () => {
    const p = new RestartPolicy();
    const t0 = 1_000_000;
    for (let i = 0; i < 4; i++) assert.equal(p.tryRestart(t0 + i * 1000), true);
    assert.equal(p.tryRestart(t0 + 5000), false);
  });

  test('the window slides', () => {
    const p = new RestartPolicy({ maxRestarts: 4, windowMs: 180_000 });
    for (let i = 0; i < 4; i++) p.tryRestart(i * 10_000);
    assert.equal(p.tryRestart(170_000), false);
    assert.equal(p.tryRestart(180_001), true); // the first restart left the window
  });

  test('a person restarting resets the budget', () => {
    const p = new RestartPolicy({ maxRestarts: 1, windowMs: 1000 });
    assert.equal(p.tryRestart(0), true);
    assert.equal(p.tryRestart(1), false);
    p.reset();
    assert.equal(p.tryRestart(2), true);
  });
});
