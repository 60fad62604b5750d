// Compiles the mocha suite in test/vscode/ to out/test/vscode/: one CommonJS
// file per test, `vscode` and `mocha` resolved at run time. Shared by the web
// harness (scripts/vscode-tests.mjs) and the desktop path (.vscode-test.mjs).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

export async function compileVscodeTests(root) {
  const outDir = path.join(root, 'out/test/vscode');
  const entries = readdirSync(path.join(root, 'test/vscode'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') || file === path.join('suite', 'index.ts'))
    .map((file) => path.join(root, 'test/vscode', file));
  rmSync(outDir, { recursive: true, force: true }); // no stale tests from deleted sources
  await esbuild.build({
    entryPoints: entries, outdir: outDir, outbase: path.join(root, 'test/vscode'), bundle: true, platform: 'node',
    format: 'cjs', target: 'node20', sourcemap: 'inline', external: ['vscode', 'mocha'], logLevel: 'warning',
    define: { ACCORD_VERSION: JSON.stringify(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version) },
  });
  return outDir;
}
