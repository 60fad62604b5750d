// A module-level value made on first use instead of at load: the agent core
// loads before it can answer `initialize`, and building zod schemas (a tool's
// input, the policy file's shape) at load was part of that wait, for schemas
// only a turn or a session's policy uses.

/** `build`'s value, made by the first call and returned by every call after it. */
export function once<T>(build: () => T): () => T {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}
