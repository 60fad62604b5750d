// agent/acp/deferredBuiltins.ts: after the answer to initialize has left, the
// built-ins the core defers are loaded one per turn of the event loop, so a
// request arriving meanwhile (session/new) waits for one at most; in a real
// child, none is loaded before that answer and all are after it, and the
// agent's V8 flags (agent/cli/heapFlags.ts) are set only after the last.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadDeferredBuiltins } from '../../../agent/acp/deferredBuiltins';
import { LAZY_BUILTINS } from '../../../scripts/lazyBuiltins.mjs';
import { ensureAgentBundle, probeAroundInitialize } from './harness';

describe('built-ins loaded after the first answer', () => {
  ensureAgentBundle();

  test('nothing is loaded in the call itself; then one per turn of the loop, in order, every deferred one, and then `then`', async () => {
    const loaded: string[] = [];
    const perTurn: number[] = [];
    loadDeferredBuiltins(
      (specifier) => void loaded.push(specifier),
      () => void loaded.push('then'),
    );
    assert.equal(loaded.length, 0);
    for (let turn = 0; turn < 6; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      perTurn.push(loaded.length);
    }
    assert.deepEqual(perTurn, [1, 2, 3, 4, 5, 5]);
    assert.equal(loaded.pop(), 'then');
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

  test("the agent's V8 flags are set after the answer to initialize and after the deferred built-ins, so those compile with Node's code cache", async () => {
    // What the agent had set (agent/cli/heapFlags.ts keeps it under this symbol) at the first write to stdout, and at exit.
    const stderr = await probeAroundInitialize(
      `const write = process.stdout.write.bind(process.stdout);
const flags = () => JSON.stringify(globalThis[Symbol.for('accord.v8Flags')] ?? {});
let first;
process.stdout.write = (...args) => { first ??= flags() + ' readline ' + process.moduleLoadList.includes('NativeModule readline'); return write(...args); };
process.on('exit', () => process.stderr.write('flags at first write: ' + first + '; at exit: ' + flags() + '\\n'));`,
      500,
    );
    assert.match(stderr, /flags at first write: \{\} readline false; at exit: \{"wasmBaseline":true,"small":true\}/);
  });
});
