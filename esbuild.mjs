// Builds the three towers: the extension (Node, CJS, `vscode` external), the
// bundled agent (Node, self-contained) and the chat webview (browser + CSS).
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const pkg = JSON.parse(await import('node:fs').then((fs) => fs.promises.readFile('package.json', 'utf8')));

/** @type {esbuild.BuildOptions} */
const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'info',
  logOverride: { 'import-is-undefined': 'error' },
  define: { ACCORD_VERSION: JSON.stringify(pkg.version) },
};

const builds = [
  {
    ...common,
    entryPoints: { extension: 'extension/extension.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    // The `accord` entry: argument parsing and the stdio bridge to the daemon. It
    // must stay small (an editor waits for it); it loads agent-core.js only for
    // commands that run the agent in-process.
    ...common,
    entryPoints: { agent: 'agent/cli/main.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...common,
    entryPoints: { 'agent-core': 'agent/main.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // sandbox-runtime is ESM and reads import.meta.url at load; in CJS output it
    // would be empty, so it is defined from the bundle's own file name.
    define: { ...common.define, 'import.meta.url': '__accordImportMetaUrl' },
    banner: { js: "var __accordImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  },
  {
    ...common,
    entryPoints: { webview: 'webview/main.ts' },
    outdir: 'dist',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file' },
  },
];

/** sandbox-runtime's seccomp helpers, found beside the bundle at run time (exec bit kept by copyFile). */
async function copyAgentVendor() {
  const fs = await import('node:fs/promises');
  for (const arch of ['x64', 'arm64']) {
    const from = `node_modules/@anthropic-ai/sandbox-runtime/vendor/seccomp/${arch}/apply-seccomp`;
    const to = `dist/vendor/seccomp/${arch}/apply-seccomp`;
    await fs.mkdir(`dist/vendor/seccomp/${arch}`, { recursive: true });
    await fs.copyFile(from, to);
    await fs.chmod(to, 0o755);
  }
}

await copyAgentVendor();

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
