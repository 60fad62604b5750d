// Source runs (tests under tsx) load @ai-sdk/provider-utils from node_modules,
// whose request headers go through the global `Headers` and so load undici.
// The bundle rewrites that (scripts/providerUtilsHeaders.mjs); this applies
// the same rewrite here, so tests run what ships: to the CommonJS file as it
// is compiled (require), and to the ESM one through a load hook (import).
// Loaded by scripts/test.mjs (`--import`), and by tests that depend on it.
import Module, { register } from 'node:module';
import { isProviderUtilsEntry, withoutGlobalHeaders } from '../../scripts/providerUtilsHeaders.mjs';

const key = Symbol.for('accord.providerUtilsHeadersHook');
if (!globalThis[key]) {
  globalThis[key] = true;
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    return compile.call(this, isProviderUtilsEntry(filename) ? withoutGlobalHeaders(content, filename) : content, filename);
  };
  register('./providerUtilsHeadersLoad.mjs', import.meta.url);
}
