// V8 flags the agent sets on itself at run time, to keep the process's
// resident memory down. Set at run time because an editor starts
// `node dist/agent.js` with no flags of ours (startup-only flags such as
// --max-semi-space-size have no run-time effect).
//
// They are set once the agent core is loaded, not before: V8 keys every code
// cache by a hash of the flags that differ from their defaults, Node's
// embedded cache of its own built-in modules included. With either flag set,
// each built-in loaded afterwards was compiled from source (stdin, stdout and
// web streams: ~3.5 -> 9.5 ms), about 6 ms of CPU before an
// `acp --no-daemon` answered initialize and half of its session/new. Our own
// bundles' caches are named by the flags they were compiled under (v8FlagsTag)
// and made under those same flags (withV8Flags). The stdio bridge never sets
// them: it allocates little, fetches nothing, and loading node:v8 costs it ~10 ms.

/** Flags applied in this process, in the order v8FlagsTag names them. */
const APPLIED = Symbol.for('accord.v8Flags');

type Applied = { small?: true; wasmBaseline?: true };

/** Which of the agent's flags are set (a copy), e.g. when a bundle is compiled. */
export type V8Flags = Readonly<Applied>;

const applied = (): Applied => ((globalThis as Record<symbol, unknown>)[APPLIED] ??= {}) as Applied;

function setFlag(flag: string): void {
  // Required here, not imported: an import would load node:v8 in the bridge too.
  const { setFlagsFromString } = require('node:v8') as typeof import('node:v8');
  setFlagsFromString(flag);
}

// Keeps V8's young generation from growing any further. By default it grows
// to 16 MB semi-spaces (32 MB resident) under a turn's short-lived garbage,
// the largest single item of the agent's resident memory (peak of a streamed
// turn 127-141 MB without this, about 100 MB with it, load ~12). Set after
// the core has loaded (above), it no longer costs the load extra scavenges,
// but the load grows the new space once more (1 -> 4 MB; the agent's peak RSS
// in a bench turn ~68.5 -> ~71 MB). The daemon uses it too: its heap holds ~25 MB however
// many sessions it served, and the default young generation added ~25 MB to
// its RSS (119-124 -> 90-99 MB over 8 bridged sessions, load ~4) while a
// bridge's initialize costs the daemon ~0.8 ms of CPU and ~180 KB of garbage,
// so it saw no slower initialize (an earlier daemon's allocated far more per
// connection). ACCORD_SMALL_HEAP=off keeps V8's default (for comparing).
export function keepYoungGenerationSmall(): void {
  if (process.env.ACCORD_SMALL_HEAP === 'off') return;
  setFlag('--semi-space-growth-factor=1');
  applied().small = true;
}

// Keeps WebAssembly on V8's baseline compiler (Liftoff). Node's fetch parses
// HTTP with llhttp compiled to WebAssembly; on the first request V8 compiles it
// with Liftoff, then recompiles its hot functions with TurboFan on background
// threads, whose compile zones hold ~30 MB of malloc'ed memory at once
// (v8.getHeapStatistics().peak_malloced_memory 5 -> 34 MB during the first
// model turn). It is freed a moment later, but glibc keeps the pages: ~30 MB
// of the agent's peak RSS, in the daemon too, for a tier-up that buys nothing
// a model stream needs (a 37 MB event stream read through fetch took no more
// CPU with Liftoff alone; a bare fetch's peak RSS 86 -> 57 MB; the agent's
// peak during a 200-chunk turn 115 -> 88 MB, load ~0.5). Nothing else the
// agent loads is WebAssembly. ACCORD_WASM_TIER_UP=on keeps V8's default (for comparing).
export function keepWasmOnBaseline(): void {
  if (process.env.ACCORD_WASM_TIER_UP === 'on') return;
  setFlag('--liftoff-only');
  applied().wasmBaseline = true;
}

/** Both flags (each unless its environment variable opts out): the agent core calls this once it is loaded. */
export function applyAgentHeapFlags(): void {
  keepWasmOnBaseline();
  keepYoungGenerationSmall();
}

export function currentV8Flags(): V8Flags {
  return { ...applied() };
}

// Back to V8's defaults (node --v8-options). --liftoff-only also turned off
// the two flags below (V8's flag implications), and they count in the hash
// too. Another V8 with other defaults gives a cache that is rejected and
// rewritten at each start, never wrong code (test/unit/cli/compileCache.test.ts
// checks that the agent's cache is accepted).
const SEMI_SPACE_GROWTH_DEFAULT = 2;
const WASM_DEFAULTS = ['--no-liftoff-only', '--wasm-tier-up', '--wasm-dynamic-tiering'];

/**
 * Runs `make` with V8's flags as they were in `flags`, then as they are now
 * again: a code cache carries the hash of the flags it was made under, and is
 * rejected unless it matches the flags of the start that reads it. Nothing in
 * `make` (a synchronous createCachedData) depends on either flag.
 */
export function withV8Flags<T>(flags: V8Flags, make: () => T): T {
  const now = currentV8Flags();
  const toggled = setFlags(flags, now);
  try {
    return make();
  } finally {
    if (toggled) setFlags(now, flags);
  }
}

/** Sets the flags that differ between `from` and `to` to their value in `to` (set, or V8's default); whether any did. */
function setFlags(to: V8Flags, from: V8Flags): boolean {
  let changed = false;
  if (Boolean(to.small) !== Boolean(from.small)) {
    setFlag(`--semi-space-growth-factor=${to.small ? 1 : SEMI_SPACE_GROWTH_DEFAULT}`);
    changed = true;
  }
  if (Boolean(to.wasmBaseline) !== Boolean(from.wasmBaseline)) {
    for (const flag of to.wasmBaseline ? ['--liftoff-only'] : WASM_DEFAULTS) setFlag(flag);
    changed = true;
  }
  return changed;
}

/** For compile cache names: processes with other V8 flags (e.g. ACCORD_SMALL_HEAP=off) keep a cache of their own instead of rejecting each other's. */
export function v8FlagsTag(): string {
  const flags = applied();
  return `${flags.wasmBaseline ? '-liftoff' : ''}${flags.small ? '-small' : ''}`;
}
