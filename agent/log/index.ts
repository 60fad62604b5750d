// The session log: one append-only JSONL audit log per session, the source of
// truth for session/load, session/list and crash recovery. Plain JSON only:
// no vscode, no ACP SDK; the adapter maps records to and from the protocol.
export { SessionStore } from './store';
export { SessionLog, type NewSession, type Recovery } from './sessionLog';
export type { AppendOptions, Appended } from './writer';
export { readLog, type LogEntry, type ReadOptions } from './reader';
export { replaySession, ReplayBuilder, closeDanglingToolCalls, type ReplayedUpdate, type ReplayOptions, type SessionReplay } from './replay';
export { listSessions, type ListOptions, type SessionPage, type SessionSummary } from './listing';
export { accordDataDir, sessionsDir, sessionLogPath, checkSessionId } from './paths';
export { titleFromPrompt, truncateTitle, TITLE_MAX_CHARS } from './title';
export { LogError, LogLockedError, LogWriteError, type LogErrorCode } from './errors';
export {
  parseRecordLine,
  type ContentBlockJson,
  type ForeignRecord,
  type Json,
  type JsonObject,
  type LogEvent,
  type LogRecord,
  type ModelMessageJson,
  type RecordOf,
  type RecordType,
  type SessionUpdateJson,
} from './records';
export { SessionRecorder, type RecordableSession } from './recorder';
export { LOG_OFFSET_META, logOffsetOf, offsetCarried, withLogOffset } from './offsets';
export { checkCursor, folds, OFFSET_CURSOR_TYPE, parseReplayFrom, type ReplayCursor } from './cursor';
