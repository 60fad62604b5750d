// Builds the three towers: the extension (Node, CJS, `vscode` external), the
// bundled agent (Node, self-contained) and the chat webview (browser + CSS).
//
// The agent is several files: dist/agent.js (the `accord` entry and the
// bridge), dist/agent-core.js (what `initialize` and `session/new` need) and
// lazy bundles, each compiled only when first used (agent/bundle/lazy.ts):
// one per model provider, the sandbox runtime, the MCP client and the
// price data. A lazy bundle takes zod and the ai SDK's provider code from the
// core (agent/bundle/shared.ts), so a process holds one copy of each.
import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { resolve } from 'node:path';
import { lazyBuiltins } from './scripts/lazyBuiltins.mjs';
import { lazySdkSchemas } from './scripts/lazySdkSchemas.mjs';
import { lazyTlsInterception } from './scripts/lazyTlsInterception.mjs';
import { srtWhichInProcess } from './scripts/srtWhichPlugin.mjs';
import { providerUtilsPlainHeaders } from './scripts/providerUtilsHeaders.mjs';
import { zodEnglishOnly } from './scripts/zodLocales.mjs';

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

/**
 * The lazy bundles: dist/agent-<name>.js from `entry`, loaded where the
 * agent's code does `import(specifier)` (from `importer` only, for a relative one).
 */
const lazyBundles = {
  openai: { entry: '@ai-sdk/openai', specifier: '@ai-sdk/openai' },
  anthropic: { entry: '@ai-sdk/anthropic', specifier: '@ai-sdk/anthropic' },
  'openai-compatible': { entry: '@ai-sdk/openai-compatible', specifier: '@ai-sdk/openai-compatible' },
  prices: { entry: '@pydantic/genai-prices', specifier: '@pydantic/genai-prices' },
  // srt also carries node-forge (its TLS interception) and its own zod 3.
  sandbox: { entry: '@anthropic-ai/sandbox-runtime', specifier: '@anthropic-ai/sandbox-runtime' },
  mcp: { entry: './agent/mcp/sdk.ts', specifier: './sdk', importer: 'agent/mcp/servers.ts' },
};

/** The specifiers the core lends (agent/bundle/shared.ts, one `'specifier': namespace,` per line). */
const sharedSpecifiers = [...readFileSync('agent/bundle/shared.ts', 'utf8').matchAll(/^  '([^']+)': \w+,$/gm)].map((m) => m[1]);
if (sharedSpecifiers.length === 0) throw new Error('esbuild.mjs: no shared modules found in agent/bundle/shared.ts');

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const exactly = (list) => new RegExp(`^(${list.map(escape).join('|')})$`);

/** Core: an `import()` of a lazy package becomes a call of loadLazyBundle; a static import of one fails the build (it would put a second copy in the core). */
function lazyImports() {
  const bySpecifier = new Map(Object.entries(lazyBundles).map(([name, b]) => [b.specifier, { name, ...b }]));
  return {
    name: 'accord-lazy-imports',
    setup(build) {
      build.onResolve({ filter: exactly([...bySpecifier.keys()]) }, (args) => {
        const lazy = bySpecifier.get(args.path);
        if (lazy.importer && resolve(args.importer) !== resolve(lazy.importer)) return undefined;
        if (args.kind !== 'dynamic-import') {
          return { errors: [{ text: `${args.path} is a lazy bundle (dist/agent-${lazy.name}.js): import it with import(), or the core carries a second copy` }] };
        }
        return { path: lazy.name, namespace: 'accord-lazy' };
      });
      build.onLoad({ filter: /.*/, namespace: 'accord-lazy' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(resolve('agent/bundle/lazy.ts'))}).loadLazyBundle(${JSON.stringify(args.path)});`,
        resolveDir: process.cwd(),
        loader: 'js',
      }));
    },
  };
}

/** A lazy bundle's entry: everything its package exports. */
function lazyEntry(entry) {
  return {
    name: 'accord-lazy-entry',
    setup(build) {
      build.onResolve({ filter: /^accord-lazy-entry:/ }, (args) => ({ path: args.path, namespace: 'accord-lazy-entry' }));
      build.onLoad({ filter: /.*/, namespace: 'accord-lazy-entry' }, () => ({ contents: `export * from ${JSON.stringify(entry)};`, resolveDir: process.cwd(), loader: 'js' }));
    },
  };
}

/**
 * Lazy bundles: a shared specifier that resolves to the very file the core
 * bundles stays a `require`, answered by the core at load time. One that
 * resolves elsewhere (srt's own zod 3) is bundled as usual.
 */
function sharedFromCore() {
  return {
    name: 'accord-shared-from-core',
    setup(build) {
      const fromRoot = new Map();
      const resolveFrom = (path, resolveDir, kind) => build.resolve(path, { resolveDir, kind, pluginData: { accordShared: true } });
      build.onResolve({ filter: exactly(sharedSpecifiers) }, async (args) => {
        if (args.pluginData?.accordShared) return undefined;
        if (!fromRoot.has(args.path)) fromRoot.set(args.path, (await resolveFrom(args.path, process.cwd(), 'import-statement')).path);
        const here = await resolveFrom(args.path, args.resolveDir, args.kind);
        if (here.errors.length > 0 || here.path !== fromRoot.get(args.path)) return undefined;
        return { path: args.path, external: true };
      });
      // Every other package a lazy bundle leaves out would be a require that fails at run time.
      build.onEnd((result) => {
        for (const output of Object.values(result.metafile?.outputs ?? {})) {
          // A second copy of the core's zod (a specifier of it that the core does not lend) would not know the core's schemas.
          const ownZod = Object.keys(output.inputs).find((input) => input.startsWith('node_modules/zod/'));
          if (ownZod) throw new Error(`esbuild.mjs: a lazy bundle carries its own copy of the core's zod (${ownZod}): lend the specifier it imports in agent/bundle/shared.ts`);
          for (const imported of output.imports) {
            if (imported.external && !isBuiltin(imported.path) && !sharedSpecifiers.includes(imported.path)) {
              throw new Error(`esbuild.mjs: a lazy bundle requires ${imported.path}, which nothing provides at run time`);
            }
          }
        }
      });
    },
  };
}

/** The agent's Node bundles (the core and its lazy parts). */
const agentNode = {
  ...common,
  outdir: 'dist',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  metafile: true,
  // Whitespace and syntax minified even in development: the source text stays
  // in the heap for lazy compilation (2.1 → about 1.5 MB for the core, 2 MB
  // less heap, 4-5 MB less resident, faster to parse). Names are kept, so a
  // stack trace still reads; the linked source map has the lines.
  // (--production minifies everything, as before.)
  minifyWhitespace: true,
  minifySyntax: true,
  // sandbox-runtime is ESM and reads import.meta.url at load; in CJS output it
  // would be empty, so it is defined from the bundle's own file name.
  define: { ...common.define, 'import.meta.url': '__accordImportMetaUrl' },
  banner: { js: "var __accordImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
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
    // node:child_process (~1 ms to load) only when the bridge starts a daemon: neither a bridge to a running
    // daemon nor `acp --no-daemon` needs it before initialize (the core loads it after that answer).
    plugins: [lazyBuiltins()],
  },
  {
    ...agentNode,
    entryPoints: { 'agent-core': 'agent/main.ts' },
    // The ACP SDK's schemas are each built on first use, not all at load (scripts/lazySdkSchemas.mjs);
    // built-ins initialize does not use are loaded when first called (scripts/lazyBuiltins.mjs).
    // The core holds provider-utils (lent to the provider bundles): its request headers must not load undici.
    plugins: [lazyImports(), lazySdkSchemas(), lazyBuiltins(), srtWhichInProcess({ required: false }), zodEnglishOnly(), providerUtilsPlainHeaders({ required: true })],
  },
  ...Object.entries(lazyBundles).map(([name, { entry }]) => ({
    ...agentNode,
    entryPoints: { [`agent-${name}`]: `accord-lazy-entry:${name}` },
    // srt's TLS interception (node-forge) is left unevaluated until called: Accord never turns it on.
    plugins: [
      lazyEntry(entry),
      sharedFromCore(),
      ...(name === 'sandbox' ? [lazyTlsInterception()] : []),
      srtWhichInProcess({ required: name === 'sandbox' }),
      providerUtilsPlainHeaders({ required: false }),
    ],
  })),
  {
    ...common,
    entryPoints: { webview: 'webview/main.ts' },
    outdir: 'dist',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file' },
    // Minified in development builds too (the source map keeps it readable): the panel's bundle reaches
    // the webview through VS Code's resource loading, and half the bytes is a faster "connected" (issue 17).
    minify: true,
  },
  {
    // The panel's boot script (webview/boot.ts): a classic script the page runs before the bundle, so the
    // panel says `ready` while the bundle still loads. No imports at run time: the CSP allows only the page's nonced scripts.
    ...common,
    entryPoints: { 'webview-boot': 'webview/boot.ts' },
    outdir: 'dist',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    minify: true,
  },
];

/**
 * sandbox-runtime's seccomp helpers (exec bit kept by copyFile) and its Java
 * proxy agent, found beside the bundle at run time. Without the jar there,
 * srt looks for it in a global npm install: it spawned `npm root -g` (a ~50 MB
 * Node process) as every process started the sandbox.
 */
async function copyAgentVendor() {
  const fs = await import('node:fs/promises');
  await fs.mkdir('dist/vendor/java-proxy-agent', { recursive: true });
  await fs.copyFile('node_modules/@anthropic-ai/sandbox-runtime/vendor/java-proxy-agent/srt-proxy-agent.jar', 'dist/vendor/java-proxy-agent/srt-proxy-agent.jar');
  for (const arch of ['x64', 'arm64']) {
    const from = `node_modules/@anthropic-ai/sandbox-runtime/vendor/seccomp/${arch}/apply-seccomp`;
    const to = `dist/vendor/seccomp/${arch}/apply-seccomp`;
    await fs.mkdir(`dist/vendor/seccomp/${arch}`, { recursive: true });
    await fs.copyFile(from, to);
    await fs.chmod(to, 0o755);
  }
}

/**
 * Lazy bundles a past build wrote and this one does not (dist/agent-ai.js once
 * the turn stopped using the ai SDK): `.vscodeignore` packages every
 * dist/agent-*.js, so a stale one would ship in the VSIX.
 */
async function removeStaleAgentBundles() {
  const fs = await import('node:fs/promises');
  const expected = new Set(['agent', 'agent-core', ...Object.keys(lazyBundles).map((name) => `agent-${name}`)]);
  const entries = await fs.readdir('dist').catch(() => []);
  for (const entry of entries) {
    const bundle = /^(agent(?:-[\w-]+)?)\.js(?:\.map)?$/.exec(entry)?.[1];
    if (bundle && !expected.has(bundle)) await fs.rm(`dist/${entry}`, { force: true });
  }
}

/**
 * dist/accord, the `accord` command (package.json `bin`): a POSIX shell launcher
 * (agent/cli/accord.sh) with this version baked in, which it says in its hello.
 */
async function writeLauncher() {
  const fs = await import('node:fs/promises');
  const source = await fs.readFile('agent/cli/accord.sh', 'utf8');
  if (!source.includes("accord_version='@ACCORD_VERSION@'")) throw new Error('esbuild.mjs: agent/cli/accord.sh has no version placeholder');
  if (!/^[\w.+-]+$/.test(pkg.version)) throw new Error(`esbuild.mjs: the version ${pkg.version} does not fit in the launcher`);
  await fs.mkdir('dist', { recursive: true });
  await fs.writeFile('dist/accord', source.replace('@ACCORD_VERSION@', pkg.version), { mode: 0o755 });
  await fs.chmod('dist/accord', 0o755);
}

await removeStaleAgentBundles();
await copyAgentVendor();
await writeLauncher();

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  const results = await Promise.all(builds.map((b) => esbuild.build(b)));
  // `node esbuild.mjs --metafile`: what each bundle holds (e.g. for https://esbuild.github.io/analyze/).
  if (process.argv.includes('--metafile')) {
    const fs = await import('node:fs/promises');
    await fs.mkdir('dist/meta', { recursive: true });
    for (const [i, result] of results.entries()) {
      const name = Object.keys(builds[i].entryPoints)[0];
      if (result.metafile) await fs.writeFile(`dist/meta/${name}.json`, JSON.stringify(result.metafile));
    }
  }
}
