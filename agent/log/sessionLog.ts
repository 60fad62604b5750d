// An open session log: the lock, the recovery done on open, and the writer.
import { closeSync, fsync, mkdirSync, openSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LogError, type LogWriteError } from './errors';
import { readFully, readLines } from './lines';
import { acquireLock, type HeldLock } from './lock';
import { sessionLogPath } from './paths';
import { parseRecordLine, type LogEvent, type RecordOf } from './records';
import { inspectTail } from './recovery';
import { LogWriter, type AppendOptions, type Appended } from './writer';

export interface NewSession {
  cwd: string;
  agentVersion: string;
  config: Record<string, unknown>;
  additionalDirectories?: string[];
  /** The session's isolated workspace as created (see LogEvent session_created). */
  workspace?: Record<string, unknown>;
}

/** What opening an existing log repaired. */
export interface Recovery {
  /** Bytes cut from the end (a torn last line, trailing garbage); 0 when the file was clean. */
  tornBytes: number;
  /** Where the cut bytes were saved, for the audit trail. */
  savedTo?: string;
  /** The last turn had started and never ended. */
  turnOpen: boolean;
  /** An `interrupted` record was appended (tornBytes > 0 or turnOpen). */
  interrupted: boolean;
}

export class SessionLog {
  private constructor(
    readonly id: string,
    readonly path: string,
    /** The session's first record. */
    readonly created: RecordOf<'session_created'>,
    readonly recovery: Recovery,
    private readonly writer: LogWriter,
    private readonly lock: HeldLock,
  ) {}

  /** Creates a new session's log. Throws if one with this id exists or is locked. */
  static async create(dataDir: string, id: string, session: NewSession): Promise<SessionLog> {
    const path = sessionLogPath(dataDir, id);
    // The cheap steps are synchronous (as the lock's are): a new session's
    // first prompt waits for its log, and in a process still loading its code
    // each trip through the thread pool waits behind the loading too.
    mkdirSync(dirname(path), { recursive: true });
    const lock = acquireLock(`${path}.lock`);
    try {
      try {
        closeSync(openSync(path, 'wx'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new LogError('already_exists', `A session with id ${id} already exists (${path}).`);
        throw error;
      }
      // The new name is durable before the first record is; the writer opens meanwhile.
      const [synced, opened] = await Promise.allSettled([syncDirectory(dirname(path)), LogWriter.open(path, { size: 0, nextSeq: 1 })]);
      if (synced.status === 'rejected') {
        if (opened.status === 'fulfilled') await opened.value.close().catch(() => undefined);
        throw synced.reason;
      }
      if (opened.status === 'rejected') throw opened.reason;
      const writer = opened.value;
      const event = { type: 'session_created', sessionId: id, ...session } satisfies LogEvent;
      const appended = writer.append(event, { durable: true });
      await appended.committed.catch(async (error: unknown) => {
        await writer.close().catch(() => undefined);
        throw error;
      });
      const created = { seq: appended.seq, ts: appended.ts, ...event };
      return new SessionLog(id, path, created, { tornBytes: 0, turnOpen: false, interrupted: false }, writer, lock);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /**
   * Opens an existing log for appending. A torn tail is cut (and saved beside
   * the log), and an `interrupted` record is appended when the previous
   * writer died mid-record or mid-turn. Throws LogLockedError if another
   * process has it open.
   */
  static async open(dataDir: string, id: string): Promise<SessionLog> {
    const path = sessionLogPath(dataDir, id);
    await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new LogError('not_found', `No session ${id} (looked for ${path}).`);
      throw error;
    });
    const lock = acquireLock(`${path}.lock`);
    try {
      const created = await readCreated(path);
      const { recovery, size, nextSeq } = await repairTail(path);
      const writer = await LogWriter.open(path, { size, nextSeq });
      if (recovery.interrupted) {
        const { tornBytes, turnOpen, savedTo } = recovery;
        const event: LogEvent = { type: 'interrupted', tornBytes, turnOpen, ...(savedTo ? { savedTo } : {}) };
        await writer.append(event, { durable: true }).committed.catch(async (error: unknown) => {
          await writer.close().catch(() => undefined);
          throw error;
        });
      }
      return new SessionLog(id, path, created, recovery, writer, lock);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /** See LogWriter.append: seq and offset now, `committed` when written. Throws once the log is broken. */
  append(event: LogEvent, options?: AppendOptions): Appended {
    return this.writer.append(event, options);
  }

  /** Writes and fdatasyncs everything appended so far. */
  sync(): Promise<void> {
    return this.writer.sync();
  }

  get failure(): LogWriteError | undefined {
    return this.writer.failure;
  }

  onFailure(listener: (error: LogWriteError) => void): () => void {
    return this.writer.onFailure(listener);
  }

  /** The log's length in bytes including pending records (the next record's offset). */
  get size(): number {
    return this.writer.size;
  }

  /** Syncs, closes and releases the lock; rejects if the log broke at any point. */
  async close(): Promise<void> {
    try {
      await this.writer.close();
    } finally {
      this.lock.release();
    }
  }
}

async function readCreated(path: string): Promise<RecordOf<'session_created'>> {
  for await (const line of readLines(path)) {
    const parsed = parseRecordLine(line.text);
    if (parsed.ok && parsed.known && parsed.record.type === 'session_created') return parsed.record;
    break;
  }
  throw new LogError('not_a_session_log', `${path} does not start with a session_created record; it is not an Accord session log.`);
}

async function repairTail(path: string): Promise<{ recovery: Recovery; size: number; nextSeq: number }> {
  const handle = await open(path, 'r+');
  try {
    const { size } = await handle.stat();
    const tail = await inspectTail(handle, size);
    let savedTo: string | undefined;
    if (tail.tornBytes > 0) {
      savedTo = await saveTornBytes(path, handle, tail.validEnd, tail.tornBytes);
      await handle.truncate(tail.validEnd);
      await handle.datasync();
    }
    const interrupted = tail.tornBytes > 0 || tail.turnOpen;
    const recovery: Recovery = { tornBytes: tail.tornBytes, turnOpen: tail.turnOpen, interrupted, ...(savedTo ? { savedTo } : {}) };
    return { recovery, size: tail.validEnd, nextSeq: (tail.lastSeq ?? 0) + 1 };
  } finally {
    await handle.close();
  }
}

/** Cut bytes are evidence (of a crash, or of tampering), so they are kept, not dropped. */
async function saveTornBytes(path: string, handle: Awaited<ReturnType<typeof open>>, from: number, length: number): Promise<string> {
  const bytes = Buffer.alloc(length);
  await readFully(handle, bytes, from);
  const savedTo = `${path}.torn-${Date.now()}`;
  const out = await open(savedTo, 'wx');
  try {
    await out.write(bytes);
    await out.datasync();
  } finally {
    await out.close();
  }
  return savedTo;
}

/** Makes a new file's directory entry durable (Linux/macOS; not possible on Windows). */
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const fd = openSync(dir, 'r');
  try {
    await new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
  } finally {
    closeSync(fd);
  }
}
