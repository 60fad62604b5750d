// Typed errors of the session log, so callers branch on the class (or `code`)
// instead of matching message text. Every message says what happened and what
// a person can do about it.

export type LogErrorCode =
  | 'write_failed'
  | 'locked'
  | 'not_found'
  | 'already_exists'
  | 'bad_offset'
  | 'bad_cursor'
  | 'bad_session_id'
  | 'not_a_session_log';

export class LogError extends Error {
  constructor(
    readonly code: LogErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LogError';
  }
}

/**
 * A write or fdatasync failed (ENOSPC, EDQUOT, EIO…). The log is broken from
 * then on: every later append throws this same error, so nothing is silently
 * dropped; the file keeps everything up to the last complete record.
 */
export class LogWriteError extends LogError {
  constructor(
    readonly path: string,
    readonly errno: string | undefined,
    cause: unknown,
  ) {
    const reason = errno === 'ENOSPC' || errno === 'EDQUOT'
      ? 'the disk or quota is full'
      : `the system reported ${errno ?? String(cause)}`;
    super(
      'write_failed',
      `Could not write the session log ${path}: ${reason}. The session stopped recording; ` +
        'free some space and load the session again (nothing before this point is lost).',
      { cause },
    );
    this.name = 'LogWriteError';
  }
}

export class LogLockedError extends LogError {
  constructor(
    readonly path: string,
    readonly holderPid: number,
    readonly holderHost: string,
    sameProcess: boolean,
  ) {
    super(
      'locked',
      sameProcess
        ? `The session log ${path} is already open in this process (pid ${holderPid}); close it before opening it again.`
        : `The session log ${path} is in use by another Accord process (pid ${holderPid} on ${holderHost}). ` +
            `Close that session first; if no such process is running, delete ${path}.lock.`,
    );
    this.name = 'LogLockedError';
  }
}
