// The review store against its reference model (reviewModel.ts) on random
// sequences. Found today's bugs first; their shrunk reproductions are the named
// regression tests in reviewTurns.test.ts.
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { runSequence, stepArb } from './reviewModel';

export const RUNS = 400;
export const MAX_STEPS = 30;

describe('review store property: turns, decisions, undo, conflicts, restarts vs a reference model', () => {
  test(`${RUNS} random sequences of up to ${MAX_STEPS} steps`, async () => {
    await fc.assert(fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: MAX_STEPS }), (steps) => runSequence(steps)), {
      numRuns: RUNS,
      seed: Number(process.env.ACCORD_PROPERTY_SEED ?? 20261201),
    });
  });
});
