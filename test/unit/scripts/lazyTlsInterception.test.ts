// scripts/lazyTlsInterception.mjs: in dist/agent-sandbox.js the sandbox
// runtime's TLS interception (node-forge) is evaluated only when one of its
// functions is first called; callers get the same exports; an export form the
// plugin cannot defer fails the build instead of changing what callers get.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
// @ts-expect-error: a build script without types
import { lazyTlsInterception } from '../../../scripts/lazyTlsInterception.mjs';

const root = mkdtempSync(join(tmpdir(), 'accord-lazy-tls-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A package laid out like srt's: index.js and sandbox/manager.js import sandbox/mitm-ca.js, which has a load-time side effect. */
function fakeRuntime(name: string, mitmCa: string): string {
  const dist = join(root, name, 'node_modules', '@anthropic-ai', 'sandbox-runtime', 'dist');
  mkdirSync(join(dist, 'sandbox'), { recursive: true });
  writeFileSync(join(dist, 'sandbox', 'mitm-ca.js'), mitmCa);
  writeFileSync(join(dist, 'sandbox', 'manager.js'), `import { CRL_PATH, thumbprint } from './mitm-ca.js';\nexport const crlUrl = (port) => 'http://127.0.0.1:' + port + CRL_PATH;\nexport const thumbprintOf = (pem) => thumbprint(pem);\n`);
  writeFileSync(join(dist, 'index.js'), `export { crlUrl, thumbprintOf } from './sandbox/manager.js';\nexport { makeCa } from './sandbox/mitm-ca.js';\n`);
  return join(dist, 'index.js');
}

async function bundle(entry: string, outfile: string): Promise<void> {
  await esbuild.build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent', plugins: [lazyTlsInterception()] });
}

test('the interception module is evaluated on the first call of one of its functions, not when the bundle loads', async () => {
  const entry = fakeRuntime('ok', `globalThis.mitmLoads = (globalThis.mitmLoads ?? 0) + 1;
export const CRL_PATH = '/srt.crl';
export function thumbprint(pem) { return 'T:' + pem; }
export async function makeCa(cn) { return { cn }; }
`);
  const outfile = join(root, 'ok.cjs');
  await bundle(entry, outfile);
  const loads = () => (globalThis as { mitmLoads?: number }).mitmLoads ?? 0;
  const runtime = createRequire(import.meta.url)(outfile) as { crlUrl(port: number): string; thumbprintOf(pem: string): string; makeCa(cn: string): Promise<{ cn: string }> };
  assert.equal(loads(), 0);
  assert.equal(runtime.crlUrl(8080), 'http://127.0.0.1:8080/srt.crl');
  assert.equal(loads(), 0, 'a copied string constant needs no load');
  assert.equal(runtime.thumbprintOf('pem'), 'T:pem');
  assert.equal(loads(), 1);
  assert.deepEqual(await runtime.makeCa('ca'), { cn: 'ca' });
  assert.equal(loads(), 1, 'loaded once');
});

test('an export the plugin cannot defer (not a function, not a string constant) fails the build', async () => {
  const entry = fakeRuntime('bad', `export const C = { Class: 1 };\nexport function thumbprint(pem) { return pem; }\nexport const CRL_PATH = '/srt.crl';\nexport function makeCa() {}\n`);
  await assert.rejects(bundle(entry, join(root, 'bad.cjs')), /cannot defer: export const C = \{ Class: 1 \};/);
});

test("srt's real TLS interception files have only exports the plugin can defer", async () => {
  await bundle(require.resolve('@anthropic-ai/sandbox-runtime'), join(root, 'real.cjs'));
});
