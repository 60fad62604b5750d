// scripts/srtWhichPlugin.mjs: esbuild puts agent/sandbox/whichSync.ts in
// place of sandbox-runtime's utils/which.js (which spawns `which`), and the
// build fails loudly when the substitution cannot hold: the file is gone, a
// bundle still holds it, or the runtime's bundle never imported it. Checked on
// a small stand-in package; the real one through the bundle (programs.test.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { srtWhichInProcess } from '../../../scripts/srtWhichPlugin.mjs';

/** A stand-in for srt's dist: `index.js` (importing its which.js unless `importsWhich` is false) and `utils/which.js`. */
function fixture(t: { after: (fn: () => void) => void }, layout: { importsWhich: boolean; hasWhich?: boolean; specifier?: string }) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'accord-srt-which-')));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const dist = join(dir, 'srt', 'dist');
  mkdirSync(join(dist, 'utils'), { recursive: true });
  if (layout.hasWhich !== false) writeFileSync(join(dist, 'utils', 'which.js'), "import { spawnSync } from 'node:child_process';\nexport function whichSync(bin) { return spawnSync('which', [bin]).stdout; }\n");
  writeFileSync(
    join(dist, 'index.js'),
    layout.importsWhich ? `import { whichSync } from '${layout.specifier ?? './utils/which.js'}';\nexport const shell = () => whichSync('bash');\n` : "export const shell = () => '/bin/bash';\n",
  );
  // Another file named which.js, not the runtime's: left alone.
  writeFileSync(join(dir, 'which.js'), "export const mine = 'not srt';\n");
  writeFileSync(join(dir, 'entry.js'), "export * from './srt/dist/index.js';\nexport { mine } from './which.js';\n");
  const replacement = join(dir, 'ours.ts');
  writeFileSync(replacement, "export function whichSync(name: string): string | null { return 'in-process:' + name; }\n");
  return { dir, dist, replacement };
}

async function bundle(dir: string, plugin: esbuild.Plugin, entry = 'entry.js') {
  return esbuild.build({ entryPoints: [join(dir, entry)], bundle: true, write: false, platform: 'node', format: 'cjs', metafile: true, logLevel: 'silent', absWorkingDir: dir, plugins: [plugin] });
}

describe('srtWhichInProcess (esbuild plugin)', () => {
  test("the runtime's which.js is replaced by ours; another which.js is not", async (t) => {
    const { dir, dist, replacement } = fixture(t, { importsWhich: true });
    const result = await bundle(dir, srtWhichInProcess({ required: true, srtDist: dist, replacement }));
    const code = result.outputFiles[0]!.text;
    assert.match(code, /in-process:/);
    assert.doesNotMatch(code, /spawnSync/);
    assert.match(code, /not srt/);
  });

  test('the runtime reaching its which.js in a way the redirect misses (no extension) fails the build: it still bundles the original', async (t) => {
    const { dir, dist, replacement } = fixture(t, { importsWhich: true, specifier: './utils/which' });
    await assert.rejects(bundle(dir, srtWhichInProcess({ required: true, srtDist: dist, replacement })), /bundles sandbox-runtime's utils\/which\.js \(it spawns which\)/);
  });

  test('the runtime no longer importing its which.js fails the build, for its own bundle and any bundle holding it', async (t) => {
    const { dir, dist, replacement } = fixture(t, { importsWhich: false });
    await assert.rejects(bundle(dir, srtWhichInProcess({ required: true, srtDist: dist, replacement })), /replaced nothing/);
    await assert.rejects(bundle(dir, srtWhichInProcess({ required: false, srtDist: dist, replacement })), /holds sandbox-runtime but nothing imported its utils\/which\.js/);
  });

  test('the sandbox bundle without the runtime in it fails; another bundle without it builds', async (t) => {
    const { dir, dist, replacement } = fixture(t, { importsWhich: true });
    writeFileSync(join(dir, 'plain.js'), "export const x = 1;\n");
    await assert.rejects(bundle(dir, srtWhichInProcess({ required: true, srtDist: dist, replacement }), 'plain.js'), /is the sandbox bundle/);
    await bundle(dir, srtWhichInProcess({ required: false, srtDist: dist, replacement }), 'plain.js');
  });

  test('the file gone from the package stops the build before it starts', (t) => {
    const { dist, replacement } = fixture(t, { importsWhich: true, hasWhich: false });
    assert.throws(() => srtWhichInProcess({ required: true, srtDist: dist, replacement }), /utils\/which\.js is gone/);
  });

  test('the real build script uses it for every agent bundle, the sandbox bundle as the one that must hold it', () => {
    const script = readFileSync(join(process.cwd(), 'esbuild.mjs'), 'utf8');
    assert.match(script, /plugins: \[lazyImports\(\), (\w+\(\), )*srtWhichInProcess\(\{ required: false \}\)[,\]]/);
    assert.match(script, /srtWhichInProcess\(\{ required: name === 'sandbox' \}\)/);
  });
});
