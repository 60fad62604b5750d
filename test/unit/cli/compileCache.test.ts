// requireWithCompileCache (agent/cli/compileCache.ts) in real child processes:
// the module runs as with require (exports, require, __filename), a cache is
// written at exit into a private directory and used by the next start; a
// garbage or foreign cache, or a directory others can write, never changes
// what runs; a module that throws is reported once, not run twice.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = mkdtempSync(join(tmpdir(), 'accord-compile-cache-'));
after(() => rmSync(root, { recursive: true, force: true }));
const loader = join(process.cwd(), 'agent/cli/compileCache.ts');

/** Runs a child that loads `modulePath` through the cache and prints what the module exported. */
function load(modulePath: string, cacheDir: string, env: NodeJS.ProcessEnv = {}, sharedSource?: string): { status: number | null; stdout: string; stderr: string } {
  const script = `const { requireWithCompileCache } = require(${JSON.stringify(loader)});
const m = requireWithCompileCache(${JSON.stringify(modulePath)}, ${JSON.stringify(cacheDir)}${sharedSource ? `, ${sharedSource}` : ''});
process.stdout.write(JSON.stringify(m.answer()));`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function moduleAt(dir: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'core.js');
  writeFileSync(path, body);
  return path;
}

const CORE = `const { basename } = require('node:path');
let calls = 0;
exports.answer = () => ({ file: basename(__filename), dir: basename(__dirname), calls: ++calls, self: module.exports === exports });`;

describe('the agent core compile cache', () => {
  test('the module runs as under require, and the next start finds a cache written at exit in a 0700 directory', () => {
    const path = moduleAt(join(root, 'a'), CORE);
    const cache = join(root, 'a-cache');
    const first = load(path, cache);
    assert.equal(first.status, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { file: 'core.js', dir: 'a', calls: 1, self: true });
    const files = readdirSync(cache);
    assert.equal(files.length, 1);
    assert.match(files[0]!, /^core-.*\.v8cache$/); // named after the bundle (core.js)
    if (process.platform !== 'win32') assert.equal(execFileSync('stat', ['-c', '%a', cache], { encoding: 'utf8' }).trim(), '700');
    const second = load(path, cache);
    assert.equal(second.status, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout), JSON.parse(first.stdout));
  });

  test('a module with non-ASCII text runs with that text, with the cache and without (the ASCII fast read does not apply)', () => {
    const path = moduleAt(join(root, 'utf8'), `exports.answer = () => ({ text: 'naïve — 日本 🙂', length: 'naïve — 日本 🙂'.length });`);
    const cache = join(root, 'utf8-cache');
    for (let i = 0; i < 2; i++) {
      const run = load(path, cache);
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { text: 'naïve — 日本 🙂', length: 'naïve — 日本 🙂'.length });
    }
    assert.equal(readdirSync(cache).length, 1);
  });

  test('attack: a garbage cache file is rejected by V8 and the real module runs', () => {
    const path = moduleAt(join(root, 'b'), CORE);
    const cache = join(root, 'b-cache');
    assert.equal(load(path, cache).status, 0);
    const [file] = readdirSync(cache);
    writeFileSync(join(cache, file!), Buffer.alloc(4096, 0x41));
    const result = load(path, cache);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { file: 'core.js', dir: 'b', calls: 1, self: true });
  });

  test('attack: a cache directory others can write is neither read nor written', { skip: process.platform === 'win32' }, () => {
    const path = moduleAt(join(root, 'c'), CORE);
    const cache = join(root, 'c-cache');
    mkdirSync(cache);
    chmodSync(cache, 0o777);
    const result = load(path, cache);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(readdirSync(cache), []);
  });

  test('a module that throws fails once with its own error (it is not run a second time)', () => {
    const path = moduleAt(join(root, 'd'), `process.stderr.write('ran\\n'); throw new Error('core broke');`);
    const result = load(path, join(root, 'd-cache'));
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /core broke/);
    assert.equal(result.stderr.match(/^ran$/gm)?.length, 1);
  });

  test('a lazy bundle gets the shared modules it requires, with the cache and without, and the rest as usual', () => {
    const path = moduleAt(join(root, 'f'), `const z = require('zod-like'); const { sep } = require('node:path');
exports.answer = () => ({ shared: z.id, sep, calls: 1 });`);
    const shared = `{ 'zod-like': { id: 'from the core' } }`;
    const cache = join(root, 'f-cache');
    for (const env of [{}, {}, { ACCORD_COMPILE_CACHE: 'off' }]) {
      const result = load(path, cache, env, shared);
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), { shared: 'from the core', sep: '/', calls: 1 });
    }
    assert.equal(readdirSync(cache).length, 1);
    // An unshared package is still an error, not silently undefined.
    const missing = moduleAt(join(root, 'f2'), `require('no-such-package-accord'); exports.answer = () => 1;`);
    const failed = load(missing, cache, {}, shared);
    assert.notEqual(failed.status, 0);
    assert.match(failed.stderr, /Cannot find module 'no-such-package-accord'/);
  });

  test('each bundle keeps its own cache files: new builds of one remove only its own oldest caches, past the latest three', () => {
    const cache = join(root, 'g-cache');
    const a = moduleAt(join(root, 'g'), CORE);
    const b = join(root, 'g', 'core-extra.js');
    writeFileSync(b, CORE);
    assert.equal(load(a, cache).status, 0);
    assert.equal(load(b, cache).status, 0);
    const stems = () => readdirSync(cache).map((n) => n.replace(/-\d.*$/, '')).sort();
    assert.deepEqual(stems(), ['core', 'core-extra']);
    const first = readdirSync(cache).find((n) => n.startsWith('core-') && !n.startsWith('core-extra'))!;
    // Three more builds of `core` (a size change makes each a build of its own); `core-extra` is untouched.
    for (const suffix of ['// 2', '// build 3', '// the 4th build']) {
      writeFileSync(a, `${CORE}\n${suffix}`);
      assert.equal(load(a, cache).status, 0);
    }
    assert.deepEqual(stems(), ['core', 'core', 'core', 'core-extra']);
    assert.ok(!readdirSync(cache).includes(first), 'the oldest build of core lost its cache');
  });

  test('two builds that share a cache directory, started in turn, each find their own cache', () => {
    const cache = join(root, 'two-builds-cache');
    const one = moduleAt(join(root, 'two-builds-1'), CORE);
    const two = moduleAt(join(root, 'two-builds-2'), `${CORE}\n// another version`);
    for (const path of [one, two, one, two]) assert.equal(load(path, cache).status, 0);
    const before = readdirSync(cache).sort();
    assert.equal(before.length, 2, before.join(', '));
    // A start that found its cache writes none: the files stay as they were.
    for (const path of [one, two]) assert.equal(load(path, cache).status, 0);
    assert.deepEqual(readdirSync(cache).sort(), before);
  });

  test('processes with the small young generation (agent/cli/heapFlags.ts) and without it (ACCORD_SMALL_HEAP=off) keep one cache each', { skip: process.platform === 'win32' }, () => {
    const path = moduleAt(join(root, 'h'), CORE);
    const cache = join(root, 'h-cache');
    const heapFlags = join(process.cwd(), 'agent/cli/heapFlags.ts');
    const run = (small: boolean) => {
      const script = `${small ? `require(${JSON.stringify(heapFlags)}).keepYoungGenerationSmall();` : ''}
const m = require(${JSON.stringify(loader)}).requireWithCompileCache(${JSON.stringify(path)}, ${JSON.stringify(cache)});
process.stdout.write(JSON.stringify(m.answer()));`;
      const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
    };
    const files = () => readdirSync(cache).sort().map((name) => `${name} ${statSync(join(cache, name)).mtimeMs}`);
    run(true);
    run(false);
    const both = files();
    assert.equal(both.length, 2, both.join(', '));
    assert.ok(both.some((f) => /-small\.v8cache /.test(f)));
    // Each accepts its own cache: neither is rejected and rewritten by the other's starts.
    run(true);
    run(false);
    assert.deepEqual(files(), both);
  });

  test('a bundle compiled before the agent sets its V8 flags (the core) keeps one cache, made under the flags it was compiled under, that the next start accepts', { skip: process.platform === 'win32' }, () => {
    const path = moduleAt(join(root, 'late-flags'), CORE);
    const cache = join(root, 'late-flags-cache');
    const heapFlags = join(process.cwd(), 'agent/cli/heapFlags.ts');
    // As the agent core runs: compiled under V8's defaults, the flags set later, the cache written at exit.
    const script = `const m = require(${JSON.stringify(loader)}).requireWithCompileCache(${JSON.stringify(path)}, ${JSON.stringify(cache)});
require(${JSON.stringify(heapFlags)}).applyAgentHeapFlags();
process.stdout.write(JSON.stringify(m.answer()));`;
    const run = () => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...process.env, ACCORD_SMALL_HEAP: '', ACCORD_WASM_TIER_UP: '' }, encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(JSON.parse(result.stdout).calls, 1);
      // V8 says nothing about a flag it does not know (a setting back to a default that this V8 lacks).
      assert.doesNotMatch(result.stderr, /flag/i);
    };
    const files = () => readdirSync(cache).sort().map((name) => `${name} ${statSync(join(cache, name)).mtimeMs}`);
    run();
    const written = files();
    assert.equal(written.length, 1, written.join(', '));
    // Named for the flags at compile time (none), not those at exit.
    assert.doesNotMatch(written[0]!, /-(liftoff|small)/);
    // Accepted: a start that finds its cache writes none (a rejected one is rewritten).
    run();
    run();
    assert.deepEqual(files(), written);
  });

  test('a cache made under the flags set later (the way a build before this one wrote it) is rejected, replaced, and never changes what runs', { skip: process.platform === 'win32' }, () => {
    const path = moduleAt(join(root, 'stale-flags'), CORE);
    const cache = join(root, 'stale-flags-cache');
    const heapFlags = join(process.cwd(), 'agent/cli/heapFlags.ts');
    const script = (makeUnder: boolean) => `const vm = require('node:vm');
const { readFileSync, writeFileSync, readdirSync } = require('node:fs');
const m = require(${JSON.stringify(loader)}).requireWithCompileCache(${JSON.stringify(path)}, ${JSON.stringify(cache)});
require(${JSON.stringify(heapFlags)}).applyAgentHeapFlags();
${makeUnder ? `// Overwrite the cache this start will write with one made under the set flags, as a hostile or stale writer would.
process.on('exit', () => { for (const name of readdirSync(${JSON.stringify(cache)})) writeFileSync(${JSON.stringify(cache)} + '/' + name, new vm.Script(require('node:module').wrap(readFileSync(${JSON.stringify(path)}, 'utf8')), { filename: ${JSON.stringify(path)} }).createCachedData()); });` : ''}
process.stdout.write(JSON.stringify(m.answer()));`;
    const run = (makeUnder: boolean) => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script(makeUnder)], { env: { ...process.env, ACCORD_SMALL_HEAP: '', ACCORD_WASM_TIER_UP: '' }, encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(JSON.parse(result.stdout).calls, 1);
    };
    run(true);
    const stale = readdirSync(cache).map((name) => statSync(join(cache, name)).mtimeMs);
    assert.equal(stale.length, 1);
    // The next start rejects it (other flags), runs the module all the same, and writes a cache it accepts after.
    run(false);
    const replaced = readdirSync(cache).map((name) => statSync(join(cache, name)).mtimeMs);
    assert.notDeepEqual(replaced, stale);
    run(false);
    assert.deepEqual(readdirSync(cache).map((name) => statSync(join(cache, name)).mtimeMs), replaced);
  });

  test('start-up ending (a first prompt) writes every cache not written yet at once, once: not again at exit, and a start that found its cache writes none', () => {
    const path = moduleAt(join(root, 'startup'), CORE);
    const cache = join(root, 'startup-cache');
    const script = `const { requireWithCompileCache, startUpEnded } = require(${JSON.stringify(loader)});
const { readdirSync, statSync } = require('node:fs');
const m = requireWithCompileCache(${JSON.stringify(path)}, ${JSON.stringify(cache)});
const list = () => { try { return readdirSync(${JSON.stringify(cache)}).map((n) => n + ' ' + statSync(${JSON.stringify(cache)} + '/' + n).mtimeMs); } catch { return []; } };
const before = list();
m.answer();
startUpEnded();
const after = list();
startUpEnded();
process.stdout.write(JSON.stringify({ before, after, again: list() }));`;
    const run = () => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      return JSON.parse(result.stdout) as { before: string[]; after: string[]; again: string[] };
    };
    const first = run();
    assert.deepEqual(first.before, []);
    assert.equal(first.after.length, 1, 'written when start-up ended, before exit');
    assert.deepEqual(first.again, first.after, 'once');
    assert.deepEqual(readdirSync(cache).map((n) => `${n} ${statSync(join(cache, n)).mtimeMs}`), first.after, 'not rewritten at exit');
    const second = run();
    assert.deepEqual(second.after, first.after, 'the next start found it and wrote none');
  });

  test('ACCORD_COMPILE_CACHE=off loads with plain require and writes nothing', () => {
    const path = moduleAt(join(root, 'e'), CORE);
    const cache = join(root, 'e-cache');
    const result = load(path, cache, { ACCORD_COMPILE_CACHE: 'off' });
    assert.equal(result.status, 0, result.stderr);
    assert.throws(() => readdirSync(cache), /ENOENT/);
  });
});
