// An esbuild plugin for dist/agent-core.js: Node built-in modules that the
// agent's own code imports but `initialize` never uses (node:crypto,
// node:child_process, node:fs/promises, node:readline) are loaded on the
// first call of one of their functions, not when the core loads. Loading
// them was ~5 ms of every `accord acp --no-daemon` start on a quiet machine
// (Node compiles each built-in and the internals it pulls in: crypto alone
// loads ~15 internal modules); a session loads them when it first needs them.
//
// An import of such a module from agent/ or protocol/ gets a stand-in
// module that exports, for each function of the real one (as the Node running
// the build has it), a function that requires the real module and calls it.
// Constructors (capitalised names) and other values are not exported: an
// import of one fails the build (esbuild: "No matching export"), so nothing
// silently becomes undefined. Packages' own imports are left alone.
import { createRequire, isBuiltin } from 'node:module';
import { resolve, sep } from 'node:path';

const NAMESPACE = 'accord-lazy-builtin';
/** The built-ins deferred, without their `node:` prefix. */
export const LAZY_BUILTINS = ['crypto', 'child_process', 'fs/promises', 'readline', 'readline/promises'];
const require = createRequire(import.meta.url);

export function lazyBuiltins(options = {}) {
  const roots = (options.roots ?? ['agent', 'protocol']).map((dir) => resolve(dir) + sep);
  const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.map((name) => name.replace('/', '\\/')).join('|')})$`);
  return {
    name: 'accord-lazy-builtins',
    setup(build) {
      build.onResolve({ filter }, (args) => {
        if (args.kind !== 'import-statement' || !roots.some((root) => args.importer.startsWith(root))) return undefined;
        return { path: args.path.replace(/^node:/, ''), namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({ contents: lazyBuiltinModule(args.path), loader: 'js' }));
    },
  };
}

/** The stand-in's source for built-in `name` (e.g. "crypto"). */
export function lazyBuiltinModule(name) {
  if (!LAZY_BUILTINS.includes(name) || !isBuiltin(name)) throw new Error(`lazyBuiltins: ${name} is not a built-in this plugin defers`);
  const real = require(`node:${name}`);
  const specifier = JSON.stringify(`node:${name}`);
  const lines = [`let real;`, `const load = () => (real ??= require(${specifier}));`];
  for (const key of Object.keys(real).sort()) {
    if (typeof real[key] !== 'function' || !/^[a-z_$][\w$]*$/.test(key) || key === 'default') continue;
    lines.push(`export function ${key}(...args) { return load().${key}(...args); }`);
  }
  if (lines.length === 2) throw new Error(`lazyBuiltins: node:${name} has no functions to defer`);
  return `${lines.join('\n')}\n`;
}
