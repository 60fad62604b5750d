// The extension bundle must not make zod probe for JIT support: the probe
// reads `globalThis.navigator`, and VS Code's extension host logs an error
// ("navigator is now a global in nodejs") for every such read. The bundle is
// built as esbuild.mjs builds it and loaded in a child Node whose `navigator`
// records each read, with a stand-in `vscode` module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

/** Loads the bundle with a recording `navigator` and prints what read it. */
const LOADER = `
const Module = require('node:module');
const reads = [];
Object.defineProperty(globalThis, 'navigator', { configurable: true, get() { reads.push(new Error().stack.split('\\n').slice(2, 4).join(' | ')); return undefined; } });
// Any property of the stand-in is callable and constructible and has any property, so the bundle's top level runs.
const stub = () => new Proxy(function () {}, { get: (_t, key) => (key === Symbol.toPrimitive ? () => '' : key === 'then' ? undefined : stub()), apply: () => stub(), construct: () => stub() });
// esbuild copies the module's own keys: give the stand-in every name the bundle reads from it.
const source = require('node:fs').readFileSync(process.argv[2], 'utf8');
const api = {};
for (const [, name] of source.matchAll(/\\bvscode\\d*\\.(\\w+)/g)) api[name] = stub();
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest); };
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: api };
const bundle = require(process.argv[2]);
// zod's full build probes when an object schema is built or parsed: one from the bundle when it exposes it, and a fresh one.
if (bundle.S) bundle.S.parse({ a: 'x' });
const z = Module.createRequire(process.cwd() + '/')('zod');
z.object({ b: z.string() }).parse({ b: 'y' });
process.stdout.write(JSON.stringify({ reads, jitless: globalThis.__zod_globalConfig?.jitless === true }));
`;

test('loading the extension bundle builds its zod schemas without the JIT probe (no navigator read)', { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-zod-jitless-'));
  try {
    await esbuild.build({
      entryPoints: { extension: 'extension/extension.ts' }, outdir: dir, bundle: true, platform: 'node', format: 'cjs', target: 'node20',
      external: ['vscode'], logLevel: 'error', define: { ACCORD_VERSION: '"test"' },
    });
    const loader = join(dir, 'load.cjs');
    writeFileSync(loader, LOADER);
    const run = spawnSync(process.execPath, [loader, join(dir, 'extension.js')], { encoding: 'utf8', timeout: 120_000, cwd: process.cwd() });
    assert.equal(run.status, 0, `the bundle failed to load: ${run.stderr}`);
    const { reads, jitless } = JSON.parse(run.stdout) as { reads: string[]; jitless: boolean };
    assert.deepEqual(reads, [], 'something read globalThis.navigator while the bundle loaded or a schema parsed');
    assert.equal(jitless, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the check sees the probe: the same bundle without the jitless line reads navigator', { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-zod-jit-'));
  try {
    // A stand-in entry that builds one schema the ordinary way, so the recording navigator is shown to work.
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, `import * as z from 'zod';\nexport const S = z.object({ a: z.string() });\n`);
    await esbuild.build({ entryPoints: { extension: entry }, outdir: dir, bundle: true, platform: 'node', format: 'cjs', logLevel: 'error', nodePaths: [join(process.cwd(), 'node_modules')] });
    const loader = join(dir, 'load.cjs');
    writeFileSync(loader, LOADER);
    const run = spawnSync(process.execPath, [loader, join(dir, 'extension.js')], { encoding: 'utf8', timeout: 120_000, cwd: process.cwd() });
    assert.equal(run.status, 0, run.stderr);
    assert.ok((JSON.parse(run.stdout) as { reads: string[] }).reads.length > 0, 'a zod object schema parsed with JIT on reads navigator');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
