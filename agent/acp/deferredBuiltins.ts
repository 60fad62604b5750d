// dist/agent-core.js loads node:crypto, node:fs/promises, node:child_process
// and node:readline on the first call of one of their functions
// (scripts/lazyBuiltins.mjs), so `initialize` is answered without them. Once
// that answer has left, they are loaded while the client reads it: session/new
// needs the first two before it can answer, a session's copy the third. One
// per turn of the event loop, so a request that arrives meanwhile waits for
// at most one of them. `then` runs a turn after the last: the agent's V8 flags are
// set there (agent/cli/heapFlags.ts), since any built-in loaded after them is
// compiled without Node's code cache.

const DEFERRED = ['node:crypto', 'node:fs/promises', 'node:child_process', 'node:readline'] as const;

export function loadDeferredBuiltins(load: (specifier: string) => unknown = require, then: () => void = () => undefined): void {
  const next = (at: number) => {
    const specifier = DEFERRED[at];
    if (specifier === undefined) return then();
    load(specifier);
    setImmediate(() => next(at + 1));
  };
  setImmediate(() => next(0));
}
