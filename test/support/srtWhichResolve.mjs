// The resolve hook test/support/srtWhich.mjs registers: sandbox-runtime's
// dist/utils/which.js, and only that file, resolves to agent/sandbox/whichSync.ts.
const replacement = new URL('../../agent/sandbox/whichSync.ts', import.meta.url).href;
const srtWhich = /\/node_modules\/@anthropic-ai\/sandbox-runtime\/dist\/utils\/which\.js$/;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  return srtWhich.test(resolved.url) ? { ...resolved, url: replacement, shortCircuit: true } : resolved;
}
