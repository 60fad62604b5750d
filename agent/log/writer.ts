// Appends records to one open log file. Records appended together go out in
// one (synchronous) write(2): the first batch of an event-loop turn as soon as
// the code appending it yields, later ones when the loop turns, with everything
// appended meanwhile; fdatasync happens only when a caller asks for
// durability (turn boundaries, approvals). The first failed write or sync
// breaks the writer for good: the error reaches every waiting caller, every
// later append throws it, and the file keeps only complete records.
import { writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { LogWriteError } from './errors';
import { chunkKey, formatMore } from './compact';
import { formatRecord, type LogEvent, type LogRecord } from './records';

export interface AppendOptions {
  /** Resolve `committed` only after the record is on stable storage (fdatasync). */
  durable?: boolean;
}

export interface Appended {
  seq: number;
  ts: string;
  /** Byte offset of the record's line in the file (the replay cursor). */
  offset: number;
  /**
   * Settles once the record is written (and synced, if durable). Rejects with
   * the LogWriteError if it was not. Already marked handled: ignoring it is safe,
   * the failure also reaches `onFailure` listeners and the next append.
   */
  committed: Promise<void>;
}

/** What the records appended before the next write wait for together: one promise, however many records. */
interface Batch {
  readonly committed: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const committed = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  committed.catch(() => undefined);
  return { committed, resolve, reject };
}

/** An append's result; its ISO timestamp is made only if asked for (a compact chunk record has no use for it). */
class AppendedRecord implements Appended {
  constructor(
    readonly seq: number,
    private readonly ms: number,
    private iso: string | undefined,
    readonly offset: number,
    readonly committed: Promise<void>,
  ) {}

  get ts(): string {
    return (this.iso ??= new Date(this.ms).toISOString());
  }
}

export class LogWriter {
  private queue: string[] = [];
  /** The batch the records in `queue` belong to; undefined when nothing waits to be written. */
  private waiting: Batch | undefined;
  private syncRequested = false;
  private pumping: Promise<void> | undefined;
  private scheduled = false;
  /** A write was started in this turn of the event loop (reset when the loop turns). */
  private wroteThisTurn = false;
  /** Bytes known to be on disk; a failed batch is cut back to this. */
  private writtenSize: number;
  private unsynced = false;
  private closed = false;
  private failed: LogWriteError | undefined;
  private readonly listeners = new Set<(error: LogWriteError) => void>();
  /** chunkKey of the last full update record, if it qualified, and its time: what a `more` record continues. */
  private templateKey: string | undefined;
  private templateMs = 0;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private endOffset: number,
    private seq: number,
  ) {
    this.writtenSize = endOffset;
  }

  /** Opens `path` for appending; `size` must be its current length and `nextSeq` the next sequence number. */
  static async open(path: string, position: { size: number; nextSeq: number }): Promise<LogWriter> {
    const handle = await open(path, 'a');
    return new LogWriter(path, handle, position.size, position.nextSeq);
  }

  /** The log's length including records not yet written. */
  get size(): number {
    return this.endOffset;
  }

  get nextSeq(): number {
    return this.seq;
  }

  /** Set once a write or sync failed; the writer accepts nothing after that. */
  get failure(): LogWriteError | undefined {
    return this.failed;
  }

  /** Called once, when the log breaks. Returns an unsubscribe function. */
  onFailure(listener: (error: LogWriteError) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Assigns seq, timestamp and offset now; writes in the next batch. Throws if the log is broken or closed. */
  append(event: LogEvent, options: AppendOptions = {}): Appended {
    if (this.failed) throw this.failed;
    if (this.closed) throw new Error(`The session log ${this.path} is closed; open it again to append.`);
    const seq = this.seq;
    const now = Date.now();
    let ts: string | undefined;
    let line: string;
    if (event.type === 'update') {
      // A text chunk continuing the last full chunk record is written compactly (compact.ts).
      const key = chunkKey(event.update);
      // A clock set back writes a full record: the delta is never negative.
      if (key !== undefined && key === this.templateKey && now >= this.templateMs) line = formatMore(seq, now - this.templateMs, (event.update.content as { text: string }).text);
      else {
        ts = new Date(now).toISOString();
        line = formatRecord({ seq, ts, ...event });
        this.templateKey = key;
        this.templateMs = now;
      }
    } else {
      ts = new Date(now).toISOString();
      line = formatRecord({ seq, ts, ...event } as LogRecord);
    }
    const offset = this.endOffset;
    this.seq += 1;
    this.endOffset += Buffer.byteLength(line);
    this.queue.push(line);
    if (options.durable) this.syncRequested = true;
    return new AppendedRecord(seq, now, ts, offset, this.batch().committed);
  }

  /** Writes everything appended so far and fdatasyncs it. */
  sync(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    this.syncRequested = true;
    return this.batch().committed;
  }

  /** Syncs and closes. Rejects with the LogWriteError if the log broke at any point. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.failed) await this.sync();
    } finally {
      this.closed = true;
      await this.pumping;
      await this.handle.close().catch(() => undefined);
    }
    if (this.failed) throw this.failed;
  }

  /** The batch the next write settles, started (and its write scheduled) by the first record that joins it. */
  private batch(): Batch {
    if (!this.waiting) {
      this.waiting = newBatch();
      this.schedule();
    }
    return this.waiting;
  }

  private schedule(): void {
    if (this.scheduled || this.pumping) return;
    this.scheduled = true;
    const write = () => {
      this.scheduled = false;
      this.pumping = this.pump().finally(() => {
        this.pumping = undefined;
        if (this.waiting && !this.failed) this.schedule();
      });
    };
    if (this.wroteThisTurn) {
      // Later writes of this loop turn wait for the next: everything appended meanwhile joins one write.
      setImmediate(write);
      return;
    }
    // The first write of a loop turn goes out as soon as the code appending yields: a lone record
    // (a response's first chunk) does not wait behind whatever else the loop has to do.
    this.wroteThisTurn = true;
    setImmediate(() => (this.wroteThisTurn = false));
    queueMicrotask(write);
  }

  private async pump(): Promise<void> {
    while (this.waiting && !this.failed) {
      const lines = this.queue;
      const batch = this.waiting;
      const durable = this.syncRequested;
      this.queue = [];
      this.waiting = undefined;
      this.syncRequested = false;
      try {
        if (lines.length > 0) {
          const bytes = Buffer.from(lines.join(''));
          writeAllSync(this.handle.fd, bytes);
          this.writtenSize += bytes.length;
          this.unsynced = true;
        }
        if (durable && this.unsynced) {
          await this.handle.datasync();
          this.unsynced = false;
        }
        batch.resolve();
      } catch (error) {
        await this.fail(error, batch);
      }
    }
  }

  private async fail(error: unknown, batch: Batch): Promise<void> {
    const failure = new LogWriteError(this.path, (error as NodeJS.ErrnoException).code, error);
    this.failed = failure;
    // Cut a partially written batch so the file ends on a complete record;
    // if even that fails, the next open treats the rest as a torn tail.
    await this.handle.truncate(this.writtenSize).catch(() => undefined);
    batch.reject(failure);
    this.waiting?.reject(failure);
    this.waiting = undefined;
    this.queue = [];
    for (const listener of this.listeners) listener(failure);
  }
}

/**
 * A synchronous write: each streamed chunk's record must be written before the
 * chunk goes to any client, and a write into the page cache takes microseconds
 * where a round trip through libuv's thread pool took a tenth of a millisecond
 * or more per chunk on a busy machine. The fdatasync stays asynchronous.
 */
function writeAllSync(fd: number, bytes: Buffer): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, null);
}
