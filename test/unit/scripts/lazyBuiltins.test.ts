// scripts/lazyBuiltins.mjs: in dist/agent-core.js, node:crypto,
// node:child_process, node:fs/promises and node:readline are loaded on the
// first call of one of their functions; the calls behave as the real ones; an
// import the stand-in cannot serve (a constructor, a constant) fails the
// build; packages' imports are left alone. Each bundle runs in a fresh Node,
// which has not loaded these built-ins yet.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { LAZY_BUILTINS, lazyBuiltinModule, lazyBuiltins } from '../../../scripts/lazyBuiltins.mjs';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'accord-lazy-builtins-')));
after(() => rmSync(root, { recursive: true, force: true }));

/** Bundles `source` as agent/entry.ts under a fresh root (or as a package's file) and returns the bundle's path. */
async function bundle(name: string, source: string, where: 'agent' | 'package' = 'agent'): Promise<string> {
  const dir = join(root, name);
  const file = where === 'agent' ? join(dir, 'agent', 'entry.ts') : join(dir, 'node_modules', 'pkg', 'index.js');
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, source);
  const outfile = join(dir, 'out.cjs');
  await esbuild.build({ entryPoints: [file], outfile, bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent', plugins: [lazyBuiltins({ roots: [join(dir, 'agent')] })] });
  return outfile;
}

/** Runs `bundle` in a fresh Node and returns what it printed. */
const run = (file: string) => execFileSync(process.execPath, [file], { encoding: 'utf8' }).trim();

const loadedCheck = `const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);`;

describe('built-ins loaded on first use', () => {
  test('the bundle loads none of them until a function of one is called; the call answers as the real one', async () => {
    const file = await bundle(
      'ok',
      `import { randomUUID, createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
${loadedCheck}
const before = ['crypto', 'child_process', 'fs/promises', 'readline'].filter(loaded);
const id = randomUUID();
const digest = createHash('sha256').update('a').digest('hex');
const afterCrypto = ['crypto', 'child_process'].filter(loaded);
stat(__filename).then((s) => {
  console.log(JSON.stringify({ before, afterCrypto, uuid: /^[0-9a-f-]{36}$/.test(id), digest, isFile: s.isFile(), execFile: typeof execFile, createInterface: typeof createInterface }));
});
`,
    );
    const result = JSON.parse(run(file));
    assert.deepEqual(result.before, [], 'nothing loaded at start');
    assert.deepEqual(result.afterCrypto, ['crypto'], 'a call loads its own module only');
    assert.equal(result.uuid, true);
    assert.equal(result.digest, 'ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb');
    assert.equal(result.isFile, true);
    assert.equal(result.execFile, 'function');
  });

  test('a rejected promise and a thrown error reach the caller as from the real module', async () => {
    const file = await bundle(
      'errors',
      `import { stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
let thrown = '';
try { randomBytes(-1); } catch (error) { thrown = error.code; }
stat('/no/such/file').then(() => console.log('resolved'), (error) => console.log(JSON.stringify({ rejected: error.code, thrown })));
`,
    );
    assert.deepEqual(JSON.parse(run(file)), { rejected: 'ENOENT', thrown: 'ERR_OUT_OF_RANGE' });
  });

  test('an import of a constructor or a constant fails the build instead of becoming undefined', async () => {
    await assert.rejects(bundle('constructor', `import { Hash } from 'node:crypto';\nconsole.log(Hash);\n`), /No matching export .* "Hash"/);
    await assert.rejects(bundle('constant', `import { constants } from 'node:fs/promises';\nconsole.log(constants);\n`), /No matching export .* "constants"/);
  });

  test("a package's own import gets the real module", async () => {
    const file = await bundle('package', `const { Hash } = require('crypto');\n${loadedCheck}\nconsole.log(JSON.stringify({ loaded: loaded('crypto'), hash: typeof Hash }));\n`, 'package');
    assert.deepEqual(JSON.parse(run(file)), { loaded: true, hash: 'function' });
  });

  test('the real build script uses it, and the schema plugin, for the agent core', () => {
    const script = readFileSync(join(process.cwd(), 'esbuild.mjs'), 'utf8');
    assert.match(script, /entryPoints: \{ 'agent-core': 'agent\/main\.ts' \},[^]*?plugins: \[lazyImports\(\), lazySdkSchemas\(\), lazyBuiltins\(\), /);
  });

  test('every deferred built-in has functions to stand in for; anything else is refused', () => {
    for (const name of LAZY_BUILTINS) assert.match(lazyBuiltinModule(name), /^export function \w+\(\.\.\.args\)/m, name);
    assert.throws(() => lazyBuiltinModule('os'), /not a built-in this plugin defers/);
  });
});
