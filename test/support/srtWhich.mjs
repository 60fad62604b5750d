// Tests that run the agent from source (tsx) load sandbox-runtime from
// node_modules, whose utils/which.js spawns `which` with a 1 s timeout: on a
// loaded CI machine that reads as "ripgrep not found" and a session that should
// be sandboxed is not. The bundle replaces that file with
// agent/sandbox/whichSync.ts (scripts/srtWhichPlugin.mjs); this does the same
// for source runs, through a module resolve hook, so tests run what ships.
// Loaded by scripts/test.mjs (`--import`), and by tests that depend on it.
import { register } from 'node:module';

const key = Symbol.for('accord.srtWhichHook');
if (!globalThis[key]) {
  globalThis[key] = true;
  register('./srtWhichResolve.mjs', import.meta.url);
}
