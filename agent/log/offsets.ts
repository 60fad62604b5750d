// The replay-cursor contract: every update a client receives, live or
// replayed, names the byte offset of the log record it came from in
// `_meta["accord/logOffset"]`. A client that saw offset N can resume with
// `after: N` and gets exactly the records that follow. The recorder notes
// each live update's offset here when it appends it (synchronously, before
// any client is sent the update); replay reads it from the record itself.
// Updates are matched by identity, so nothing is added to the core's objects.

export const LOG_OFFSET_META = 'accord/logOffset';

const offsets = new WeakMap<object, number>();

/** Called by the recorder: `update` was written as the record starting at `offset`. */
export function noteLogOffset(update: object, offset: number): void {
  offsets.set(update, offset);
}

/** The record offset of a live update, if it was recorded (no log, or a broken one: undefined). */
export function logOffsetOf(update: object): number | undefined {
  return offsets.get(update);
}

/** The update as sent to a client: its record's offset in `_meta["accord/logOffset"]`, other `_meta` kept. */
export function withLogOffset<T extends object>(update: T, offset: number): T & { _meta: Record<string, unknown> } {
  const existing = (update as { _meta?: unknown })._meta;
  // Most updates carry no _meta: a literal is cheaper than spreading an empty object (once per replayed update).
  const meta = typeof existing === 'object' && existing !== null ? { ...existing, [LOG_OFFSET_META]: offset } : { 'accord/logOffset': offset };
  return { ...update, _meta: meta };
}

/** The offset a received update carries, or undefined. */
export function offsetCarried(update: object | undefined): number | undefined {
  const meta = (update as { _meta?: unknown } | undefined)?._meta;
  const value = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[LOG_OFFSET_META] : undefined;
  return typeof value === 'number' ? value : undefined;
}
