// Replay cursors: where a reconnecting client's view of a session resumes.
// `none` sends nothing again, `start` everything, `after N` everything whose
// record comes after offset N (the `_meta["accord/logOffset"]` of the last
// update the client saw). The updates up to N are not lost: whoever shapes
// them for the client folds them silently (message and tool identities,
// plans, workspace paths) so what follows reads the same as it did live.
// An offset no update was ever sent with is refused before anything is sent:
// the client never gets a partial view.
import { LogError } from './errors';

export type ReplayCursor = { kind: 'none' } | { kind: 'start' } | { kind: 'after'; offset: number };

/** The v2 `replayFrom` extension cursor type for "after this offset". */
export const OFFSET_CURSOR_TYPE = '_accord_offset';

/** A `session/resume` `replayFrom` value as a cursor; anything else is refused with what would be accepted. */
export function parseReplayFrom(value: unknown): ReplayCursor {
  if (value === undefined || value === null) return { kind: 'none' };
  const type = typeof value === 'object' ? (value as { type?: unknown }).type : undefined;
  if (type === 'start') return { kind: 'start' };
  if (type === OFFSET_CURSOR_TYPE) {
    const after = (value as { after?: unknown }).after;
    if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) {
      throw new LogError('bad_offset', `replayFrom.after must be a log offset (a whole number ≥ 0, the _meta["accord/logOffset"] of an update); got ${JSON.stringify(after) ?? 'nothing'}.`);
    }
    return { kind: 'after', offset: after };
  }
  throw new LogError(
    'bad_cursor',
    `replayFrom must be omitted, null, {"type":"start"} or {"type":"${OFFSET_CURSOR_TYPE}","after":<offset>}; got ${JSON.stringify(value).slice(0, 200)}.`,
  );
}

/**
 * Throws unless `cursor` names an event of this replay: for `after N`, N is the
 * offset of an update the log still holds (one that was sent to clients).
 * `updates` are the replay's, in log order; `end` the offset past the log.
 */
export function checkCursor(cursor: ReplayCursor, updates: ReadonlyArray<{ offset: number }>, end: number): void {
  if (cursor.kind !== 'after') return;
  const { offset } = cursor;
  if (offset >= end) throw new LogError('bad_offset', `Offset ${offset} is past the end of the session's log (${end} bytes); resume from an offset an update carried, or from the start.`);
  if (!hasOffset(updates, offset)) {
    throw new LogError('bad_offset', `Offset ${offset} is not the offset of an update in the session's log; resume from an offset an update carried (_meta["accord/logOffset"]), or from the start.`);
  }
}

/** Whether an update at `offset` is folded (restored silently) rather than sent under `cursor`. Updates with no offset are always sent. */
export function folds(cursor: ReplayCursor, offset: number | undefined): boolean {
  if (offset === undefined) return false;
  if (cursor.kind === 'none') return true;
  if (cursor.kind === 'start') return false;
  return offset <= cursor.offset;
}

/** Binary search: updates are in ascending offset order (several may share one record's offset). */
function hasOffset(updates: ReadonlyArray<{ offset: number }>, offset: number): boolean {
  let low = 0;
  let high = updates.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = updates[mid]!.offset;
    if (at === offset) return true;
    if (at < offset) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}
