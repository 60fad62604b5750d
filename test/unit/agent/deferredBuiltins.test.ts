// agent/acp/deferredBuiltins.ts: after the answer to initialize has left, the
// built-ins the core defers are loaded one per turn of the event loop, so a
// request arriving meanwhile (session/new) waits for one at most; in a real
// child, none is loaded before that answer and all are after it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDeferredBuiltins } from '../../../agent/acp/deferredBuiltins';
import { LAZY_BUILTINS } from '../../../scripts/lazyBuiltins.mjs';
import { agentBundle, ensureAgentBundle, isolatedEnv, tempDir } from './harness';

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

  test('the bundled agent answers initialize before loading node:crypto, and loads it right after', async (t) => {
    const dir = tempDir('accord-deferred-builtins-');
    t.after(() => dir.remove());
    // Records, in the agent process, whether node:crypto was loaded when the first bytes went to stdout.
    const probe = join(dir.path, 'probe.cjs');
    writeFileSync(
      probe,
      `const write = process.stdout.write.bind(process.stdout);
let first;
process.stdout.write = (...args) => { first ??= process.moduleLoadList.includes('NativeModule crypto'); return write(...args); };
process.on('exit', () => process.stderr.write('crypto at first write: ' + first + ', at exit: ' + process.moduleLoadList.includes('NativeModule crypto') + '\\n'));`,
    );
    const env = { ...isolatedEnv({ ACCORD_HOME: join(dir.path, 'data') }, join(dir.path, 'config')), NODE_OPTIONS: `--require ${probe}` };
    const child = spawn(process.execPath, [agentBundle, 'acp', '--no-daemon'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const answered = new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
    assert.match(await answered, /"id":1,"result":\{"protocolVersion":1/);
    // A few turns of the agent's loop after the answer: it loads them while the client would read.
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.stdin.end();
    await exited;
    assert.match(stderr, /crypto at first write: false, at exit: true/);
  });
});
