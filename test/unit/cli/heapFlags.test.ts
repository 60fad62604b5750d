// agent/cli/heapFlags.ts: the agent's V8 young generation stays at its initial
// size under a burst of short-lived garbage (a streamed turn's), instead of
// growing to 32 MB resident; ACCORD_SMALL_HEAP=off keeps V8's default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const heapFlags = join(process.cwd(), 'agent/cli/heapFlags.ts');
const MB = 2 ** 20;

/** The new space's size after churning through short-lived objects, in a child that loaded heapFlags first. */
function newSpaceAfterChurn(env: NodeJS.ProcessEnv): number {
  const script = `require(${JSON.stringify(heapFlags)}).keepYoungGenerationSmall();
let keep = [];
for (let i = 0; i < 3e6; i++) { keep.push({ i, text: 'chunk ' + i }); if (keep.length > 20000) keep = []; }
const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
process.stdout.write(String(space.space_size));`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return Number(result.stdout);
}

test('the young generation stays small under churn; ACCORD_SMALL_HEAP=off lets it grow as V8 decides', (t) => {
  const grown = newSpaceAfterChurn({ ACCORD_SMALL_HEAP: 'off' });
  // Without growth by default there is nothing to keep small (another V8 may size it differently).
  if (grown <= 4 * MB) return t.skip(`this V8 keeps the new space at ${grown / MB} MB by itself`);
  const kept = newSpaceAfterChurn({});
  assert.ok(kept <= 4 * MB, `new space ${kept / MB} MB (default: ${grown / MB} MB)`);
});

/** V8's peak of malloc'ed (compile zone) memory once a fetch has streamed a response, in a child that may keep WebAssembly on its baseline compiler first. */
function peakMallocedAfterFetch(baseline: boolean, waitForTierUp: boolean): number {
  // A 2,000-chunk streamed body makes llhttp's functions hot enough to tier up where V8 does that.
  const script = `${baseline ? `require(${JSON.stringify(heapFlags)}).keepWasmOnBaseline();` : ''}
const http = require('node:http');
const v8 = require('node:v8');
const peak = () => v8.getHeapStatistics().peak_malloced_memory;
const server = http.createServer((req, res) => {
  for (let i = 0; i < 2000; i++) res.write('data: {"delta":"chunk ' + i + '"}\\n\\n');
  res.end();
});
server.listen(0, '127.0.0.1', async () => {
  const response = await fetch('http://127.0.0.1:' + server.address().port + '/');
  await response.text();
  server.close();
  // The tier-up runs on background threads: give it time to start where it happens.
  const until = Date.now() + ${waitForTierUp ? 10_000 : 1_000};
  while (peak() <= ${16 * MB} && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  process.stdout.write(String(peak()));
});`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...process.env, ACCORD_WASM_TIER_UP: '' }, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return Number(result.stdout);
}

test("fetch's WebAssembly HTTP parser stays on V8's baseline compiler: no ~30 MB of TurboFan compile zones held during a model's first stream", (t) => {
  const tieredUp = peakMallocedAfterFetch(false, true);
  // Where this V8 does not tier WebAssembly up by itself there is nothing to keep on the baseline.
  if (tieredUp <= 16 * MB) return t.skip(`this V8 peaked at ${(tieredUp / MB).toFixed(1)} MB of malloc'ed memory by itself`);
  const kept = peakMallocedAfterFetch(true, false);
  assert.ok(kept <= 16 * MB, `peak malloc'ed ${(kept / MB).toFixed(1)} MB (default: ${(tieredUp / MB).toFixed(1)} MB)`);
});

test('the compile cache tag names each flag applied, so processes with other flags never share (and reject) a cache', () => {
  const tag = (env: NodeJS.ProcessEnv) => {
    const script = `const f = require(${JSON.stringify(heapFlags)}); f.keepWasmOnBaseline(); f.keepYoungGenerationSmall(); process.stdout.write(f.v8FlagsTag());`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...process.env, ACCORD_SMALL_HEAP: '', ACCORD_WASM_TIER_UP: '', ...env }, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout;
  };
  assert.equal(tag({}), '-liftoff-small');
  assert.equal(tag({ ACCORD_WASM_TIER_UP: 'on' }), '-small');
  assert.equal(tag({ ACCORD_SMALL_HEAP: 'off' }), '-liftoff');
  assert.equal(tag({ ACCORD_SMALL_HEAP: 'off', ACCORD_WASM_TIER_UP: 'on' }), '');
});
