// An esbuild plugin for dist/agent-sandbox.js: the sandbox runtime's TLS
// interception (its mitm-ca.js and mitm-leaf.js, and node-forge under them)
// is evaluated only when first called. The runtime imports it statically, so
// every agent that starts a sandbox ran node-forge's module set-up (~1.9 MB of
// heap, the largest part of the sandbox bundle's load) for a feature Accord
// never turns on (srt's network.tlsTerminate). Each import of those two files
// from the rest of the runtime gets a module with the same exports: each
// function requires the real file on its first call (esbuild keeps a required
// ESM file as a lazily initialised wrapper), string constants are copied. The
// real files import each other as usual. An export of any other form fails the
// build, so a new srt version cannot silently change what a caller gets.
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';

const LAZY_FILES = /^\.\/(sandbox\/)?mitm-(ca|leaf)\.js$/;
const NAMESPACE = 'accord-lazy-tls';

export function lazyTlsInterception() {
  return {
    name: 'accord-lazy-tls-interception',
    setup(build) {
      build.onResolve({ filter: LAZY_FILES }, async (args) => {
        if (args.pluginData?.accordLazyTls) return undefined;
        // Only inside srt, and not between the real files (they stay one module each).
        if (!args.importer.includes('@anthropic-ai/sandbox-runtime') || /^mitm-(ca|leaf)\.js$/.test(basename(args.importer))) return undefined;
        const real = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: { accordLazyTls: true } });
        if (real.errors.length > 0) return { errors: real.errors };
        return { path: real.path, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: lazyFacade(args.path, readFileSync(args.path, 'utf8')),
        resolveDir: dirname(args.path),
        loader: 'js',
      }));
    },
  };
}

/** The stand-in module's source for the ESM file at `path`. */
export function lazyFacade(path, source) {
  const lines = [`let real;`, `const load = () => (real ??= require(${JSON.stringify(path)}));`];
  for (const statement of source.match(/^export\b[^\n]*/gm) ?? []) {
    const fn = /^export (?:async )?function\*? ?([A-Za-z_$][\w$]*)\s*\(/.exec(statement);
    const constant = /^export const ([A-Za-z_$][\w$]*) = ('[^'\\\n]*'|"[^"\\\n]*");$/.exec(statement);
    if (fn) lines.push(`export function ${fn[1]}(...args) { return load().${fn[1]}(...args); }`);
    else if (constant) lines.push(`export const ${constant[1]} = ${constant[2]};`);
    else throw new Error(`lazyTlsInterception: ${path} has an export this plugin cannot defer: ${statement}`);
  }
  return lines.join('\n');
}
