// dist/agent-core.js loads node:crypto, node:fs/promises, node:child_process
// and node:readline on the first call of one of their functions
// (scripts/lazyBuiltins.mjs), so `initialize` is answered without them. Once
// that answer has left, they are loaded while the client reads it: session/new
// needs the first two before it can answer, a session's copy the third. One
// per turn of the event loop, so a request that arrives meanwhile waits for
// at most one of them.

const DEFERRED = ['node:crypto', 'node:fs/promises', 'node:child_process', 'node:readline'] as const;

export function loadDeferredBuiltins(load: (specifier: string) => unknown = require): void {
  const next = (at: number) => {
    const specifier = DEFERRED[at];
    if (specifier === undefined) return;
    load(specifier);
    setImmediate(() => next(at + 1));
  };
  setImmediate(() => next(0));
}
