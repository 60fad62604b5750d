// The check a resuming client (the v2 view) asks session/load to make before
// anything is replayed: the offset it resumes after must be one the log gave out.
import { OFFSET_CURSOR_TYPE, parseReplayFrom, type ReplayCursor } from '../log';

/**
 * `session/load` `_meta` key: the offset after which the client (the v2 view,
 * resuming with an offset cursor) will show updates. The load still replays
 * from the start, for the view to fold the earlier ones, but is refused before
 * anything is sent if the offset is not one an update carried.
 */
export const REPLAY_CHECK_META = 'accord/replayAfter';

/** The cursor a load's `_meta` names; without one, the replay is checked from the start (always passes). */
export function replayCheckOf(meta: unknown): ReplayCursor {
  const value = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>)[REPLAY_CHECK_META] : undefined;
  if (value === undefined) return { kind: 'start' };
  return parseReplayFrom({ type: OFFSET_CURSOR_TYPE, after: value });
}
