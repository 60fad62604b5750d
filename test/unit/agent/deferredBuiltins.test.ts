// agent/acp/deferredBuiltins.ts: after the answer to initialize has left, the
// built-ins the core defers are loaded one per turn of the event loop, so a
// request arriving meanwhile (session/new) waits for one at most; in a real
// child, none is loaded before that answer and all are after it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadDeferredBuiltins } from '../../../agent/acp/deferredBuiltins';
import { LAZY_BUILTINS } from '../../../scripts/lazyBuiltins.mjs';
import { ensureAgentBundle, probeAroundInitialize } from './harness';

describe('built-ins loaded after the first answer', () => {
  ensureAgentBundle();

  test('nothing is loaded in the call itself; then one per turn of the loop, in order, every deferred one', async () => {
    const loaded: string[] = [];
    const perTurn: number[] = [];
    loadDeferredBuiltins((specifier) => void loaded.push(specifier));
    assert.equal(loaded.length, 0);
    for (let turn = 0; turn < 6; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      perTurn.push(loaded.length);
    }
    assert.deepEqual(perTurn, [1, 2, 3, 4, 4, 4]);
    // Each is one the core defers (scripts/lazyBuiltins.mjs).
    for (const specifier of loaded) assert.ok(LAZY_BUILTINS.includes(specifier.slice('node:'.length)), specifier);
    assert.deepEqual(loaded, ['node:crypto', 'node:fs/promises', 'node:child_process', 'node:readline']);
  });

  test('the bundled agent answers initialize before loading node:crypto, and loads it right after', async () => {
    // Records, in the agent process, whether node:crypto was loaded when the first bytes went to stdout.
    const stderr = await probeAroundInitialize(
      `const write = process.stdout.write.bind(process.stdout);
let first;
process.stdout.write = (...args) => { first ??= process.moduleLoadList.includes('NativeModule crypto'); return write(...args); };
process.on('exit', () => process.stderr.write('crypto at first write: ' + first + ', at exit: ' + process.moduleLoadList.includes('NativeModule crypto') + '\\n'));`,
      // A few turns of the agent's loop after the answer: it loads them while the client would read.
      500,
    );
    assert.match(stderr, /crypto at first write: false, at exit: true/);
  });
});
