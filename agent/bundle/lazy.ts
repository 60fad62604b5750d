// Loads one of the agent core's lazy bundles (dist/agent-<name>.js) beside
// it: the model SDK, a provider, the sandbox runtime, the MCP client, the price
// data. Only the bundled agent gets here: esbuild.mjs turns each `import()` of
// those packages into a call of loadLazyBundle; run from source (tests, tsx),
// the `import()` loads the package itself.
import { join } from 'node:path';
import { dataDirOf } from '../daemon/address';
import { requireWithCompileCache } from '../cli/compileCache';
import { sharedModules } from './shared';

const loaded = new Map<string, unknown>();

export function loadLazyBundle(name: string): unknown {
  let exports = loaded.get(name);
  if (exports === undefined) {
    if (process.env.ACCORD_TRACE_BUNDLES === '1') process.stderr.write(`accord: loading bundle agent-${name}.js\n`);
    exports = requireWithCompileCache(join(__dirname, `agent-${name}.js`), join(dataDirOf(process.env), 'cache'), sharedModules);
    loaded.set(name, exports);
  }
  return exports;
}
