// scripts/providerUtilsHeaders.mjs: provider-utils' request headers are built
// without the global `Headers` (which loads undici), with the same result; a
// provider-utils whose code moved fails the build rather than silently
// loading undici again. The source-run hook (test/support/providerUtilsHeaders.mjs)
// is loaded here, so the provider-utils this test imports is the rewritten one.
import '../../support/providerUtilsHeaders.mjs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { normalizeHeaders, withUserAgentSuffix } from '@ai-sdk/provider-utils';
import { providerUtilsDist, providerUtilsPlainHeaders, withoutGlobalHeaders } from '../../../scripts/providerUtilsHeaders.mjs';

const root = join(import.meta.dirname, '..', '..', '..');

describe('provider-utils without the global Headers', () => {
  test('withUserAgentSuffix: lower-case names, the suffix added to a given user agent or alone, nulls dropped', () => {
    assert.deepEqual(withUserAgentSuffix({ 'Content-Type': 'application/json', 'X-Api-Key': 'k', 'User-Agent': 'mine/1', skipped: undefined }, 'ai-sdk/x', 'runtime/node'), {
      'content-type': 'application/json',
      'x-api-key': 'k',
      'user-agent': 'mine/1 ai-sdk/x runtime/node',
    });
    assert.deepEqual(withUserAgentSuffix(undefined, 'ai-sdk/x'), { 'user-agent': 'ai-sdk/x' });
    assert.deepEqual(withUserAgentSuffix([['Authorization', 'Bearer k']], 'a', ''), { authorization: 'Bearer k', 'user-agent': 'a' });
  });

  test('normalizeHeaders still reads a fetch Headers', () => {
    assert.deepEqual(normalizeHeaders(new Headers({ 'X-One': '1' })), { 'x-one': '1' });
  });

  test('a provider request from source loads no undici (checked in a fresh process)', () => {
    const script = `
      const { withUserAgentSuffix, postJsonToApi, createJsonResponseHandler, createJsonErrorResponseHandler } = require('@ai-sdk/provider-utils');
      withUserAgentSuffix({ a: 'b' }, 'x');
      process.stdout.write(String(process.moduleLoadList.some((m) => m.includes('undici'))));`;
    const run = (imports: string[]) =>
      spawnSync(process.execPath, [...imports.flatMap((i) => ['--import', i]), '-e', script], { cwd: root, encoding: 'utf8' });
    const hooked = run(['tsx', './test/support/providerUtilsHeaders.mjs']);
    assert.equal(hooked.stdout, 'false', hooked.stderr);
    const plain = run(['tsx']);
    assert.equal(plain.stdout, 'true', 'without the rewrite the same call loads undici: the check can see it');
  });

  test('the real dist files hold each spot exactly once', () => {
    for (const file of ['index.mjs', 'index.js']) {
      const path = join(providerUtilsDist, file);
      const rewritten = withoutGlobalHeaders(readFileSync(path, 'utf8'), path);
      assert.doesNotMatch(rewritten, /new Headers\(normalizeHeaders/);
      assert.doesNotMatch(rewritten, /instanceof Headers/);
    }
  });

  test('code that moved fails loudly, naming the spot', () => {
    const source = readFileSync(join(providerUtilsDist, 'index.mjs'), 'utf8');
    assert.throws(() => withoutGlobalHeaders(source.replace('if (headers instanceof Headers) {', 'if (isHeaders(headers)) {'), 'x.mjs'), /x\.mjs: expected normalizeHeaders/);
    assert.throws(() => withoutGlobalHeaders(source.replace('const normalizedHeaders = new Headers(', 'const normalizedHeaders = new globalThis.Headers('), 'y.mjs'), /y\.mjs: expected withUserAgentSuffix/);
  });

  test('the real build script gives it to the core (required) and to every lazy bundle', () => {
    const script = readFileSync(join(root, 'esbuild.mjs'), 'utf8');
    assert.match(script, /plugins: \[lazyImports\(\), [^\]]*providerUtilsPlainHeaders\(\{ required: true \}\)\]/);
    assert.match(script, /providerUtilsPlainHeaders\(\{ required: false \}\),\n    \],/);
  });

  test('the esbuild plugin: the bundle holds the rewrite; a core bundle without provider-utils fails', async (t) => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'accord-pu-headers-')));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'uses.js'), "export { withUserAgentSuffix } from '@ai-sdk/provider-utils';\n");
    writeFileSync(join(dir, 'none.js'), 'export const x = 1;\n');
    const build = (entry: string, required: boolean) =>
      esbuild.build({ entryPoints: [join(dir, entry)], nodePaths: [join(root, 'node_modules')], bundle: true, write: false, platform: 'node', format: 'cjs', metafile: true, logLevel: 'silent', plugins: [providerUtilsPlainHeaders({ required })] });
    const result = await build('uses.js', true);
    const text = result.outputFiles[0]!.text;
    assert.match(text, /normalizedHeaders\["user-agent"\]/);
    assert.doesNotMatch(text, /new Headers\(normalizeHeaders/);
    await assert.rejects(build('none.js', true), /request headers were not rewritten/);
    await build('none.js', false);
  });
});
