// Keeps V8's young generation at its initial 1 MB semi-spaces. By default it
// grows to 16 MB semi-spaces (32 MB resident) under a turn's short-lived
// garbage, the largest single item of the agent's resident memory (peak of a
// streamed turn 127-141 MB without this, about 100 MB with it, load ~12; the
// cost is more scavenges, mostly while the core loads: ~50 ms more CPU per
// start at load ~23). Set at run time because an editor starts
// `node dist/agent.js` with no flags of ours (the startup flag
// --max-semi-space-size has no run-time effect). It must run before any bundle
// is compiled (agent/cli/main.ts core()): V8's flags are part of the compile
// cache's key: processes with and without it keep separate cache files
// (v8FlagsTag). The daemon does not use it (agent/cli/main.ts).
// ACCORD_SMALL_HEAP=off keeps V8's default (for comparing). The stdio bridge
// never calls it: it allocates little, and loading node:v8 costs ~10 ms.
export function keepYoungGenerationSmall(): void {
  if (process.env.ACCORD_SMALL_HEAP === 'off') return;
  // Required here, not imported: an import would load node:v8 in the bridge too.
  const { setFlagsFromString } = require('node:v8') as typeof import('node:v8');
  setFlagsFromString('--semi-space-growth-factor=1');
  (globalThis as Record<symbol, unknown>)[SMALL] = true;
}

const SMALL = Symbol.for('accord.smallYoungGeneration');

/** For compile cache names: processes with other V8 flags (the daemon) keep a cache of their own instead of rejecting each other's. */
export function v8FlagsTag(): string {
  return (globalThis as Record<symbol, unknown>)[SMALL] ? '-small' : '';
}
