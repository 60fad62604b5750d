// agent/core/once.ts: a module-level value made on first use (the tools' and
// the policy's zod schemas), never at load, once, and the same value after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { once } from '../../../agent/core/once';

test('nothing is built until the first call; every call returns what the first built', () => {
  let builds = 0;
  const value = once(() => ({ n: ++builds }));
  assert.equal(builds, 0);
  const first = value();
  assert.equal(value(), first);
  assert.equal(builds, 1);
});

test('a build that throws builds again on the next call (no half-made value is kept)', () => {
  let calls = 0;
  const value = once(() => {
    calls++;
    if (calls === 1) throw new Error('first');
    return calls;
  });
  assert.throws(value, /first/);
  assert.equal(value(), 2);
  assert.equal(value(), 2);
});

test('property: any number of calls builds once and always returns the built value, undefined included', () => {
  fc.assert(
    fc.property(fc.anything(), fc.integer({ min: 1, max: 20 }), (made, calls) => {
      let builds = 0;
      const value = once(() => {
        builds++;
        return made;
      });
      for (let i = 0; i < calls; i++) assert.equal(value(), made);
      assert.equal(builds, 1);
    }),
  );
});
