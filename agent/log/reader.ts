// Reads a log's records in order, each with its byte offset, from the start or
// from a cursor offset. Streams the file; nothing is held beyond one chunk.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { LogError } from './errors';
import { readLineBatches } from './lines';
import { ChunkExpander, MORE, readMoreBytes, readMoreLine, templateOf, type ChunkTemplate, type MoreFields, type MoreRecord } from './compact';
import { parseRecordLine, type ForeignRecord, type LogRecord } from './records';

export type LogEntry = { offset: number; next: number } & (
  | { known: true; record: LogRecord }
  | { known: false; record: ForeignRecord }
);

export interface ReadOptions {
  /** Start at this byte offset; it must be the offset of a record (as given by a previous read or append). */
  from?: number;
  /** A complete line that is not a valid record (damage in the middle of the file). It is skipped. */
  onInvalid?: (offset: number, reason: string) => void;
  /** The file ends in a line without its newline: a record being written, or a torn tail. */
  onPartialTail?: (offset: number, bytes: number) => void;
}

export async function* readLog(path: string, options: ReadOptions = {}): AsyncGenerator<LogEntry> {
  for await (const entries of readLogBatches(path, options)) yield* entries;
}

/** readLog, one array per chunk read: for whole-log passes (listing) where per-record iteration dominates. */
export async function* readLogBatches(path: string, options: ReadOptions = {}): AsyncGenerator<LogEntry[]> {
  const from = options.from ?? 0;
  if (from !== 0) await checkBoundary(path, from);
  const decoder = new RecordDecoder(path, from, options.onInvalid);
  const more: MoreFields = { seq: 0, delta: 0, text: '' };
  for await (const lines of readLineBatches(path, from, options.onPartialTail)) {
    const entries: LogEntry[] = [];
    for (const line of lines) {
      const template = decoder.template;
      if (template && readMoreLine(line.text, more)) {
        const { expander } = decoder;
        const record = { seq: more.seq, ts: expander.timestamp(template.ms + more.delta), type: 'update' as const, update: expander.update(template, more.text) };
        entries.push({ offset: line.offset, next: line.next, known: true, record });
        decoder.first = false;
        continue;
      }
      const entry = decoder.line(line.text, line.offset, line.next);
      if (entry) entries.push(entry);
    }
    if (entries.length > 0) yield entries;
  }
}

/** What scanLog hands each record to. */
export interface LogVisitor {
  /** Any record but a compact chunk, in file order (damaged lines go to onInvalid instead). */
  entry(entry: LogEntry): void;
  /**
   * A compact text chunk (compact.ts): the update it stands for is `template`'s
   * with `text`; `ms` is its time (epoch ms). Its seq is not passed: replay has no use for it.
   */
  chunk(offset: number, next: number, template: ChunkTemplate, ms: number, text: string): void;
}

/**
 * The whole log from the start, for replay: the same records as readLog, but
 * a compact chunk line is read from the bytes and handed over as its parts,
 * with no line string, entry or record object built for it (replay's time
 * was mostly allocation, and nine lines in ten are such chunks).
 */
export async function scanLog(path: string, visitor: LogVisitor, options: Omit<ReadOptions, 'from'> = {}): Promise<void> {
  const decoder = new RecordDecoder(path, 0, options.onInvalid);
  const more: MoreFields = { seq: 0, delta: 0, text: '' };
  let carry: Buffer | undefined;
  let base = 0; // file offset of buf[0]
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 17 }) as AsyncIterable<Buffer>) {
    const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
      const template = decoder.template;
      if (template && readMoreBytes(buf, start, nl, more)) {
        visitor.chunk(base + start, base + nl + 1, template, template.ms + more.delta, more.text);
        decoder.first = false;
      } else {
        const entry = decoder.line(buf.toString('utf8', start, nl), base + start, base + nl + 1);
        if (entry) visitor.entry(entry);
      }
      start = nl + 1;
    }
    base += start;
    carry = start < buf.length ? buf.subarray(start) : undefined;
  }
  if (carry) options.onPartialTail?.(base, carry.length);
}

const NEWLINE = 0x0a;

/** The per-line rules shared by both readers: parse, validate, expand a `more` record whose fast read failed. */
class RecordDecoder {
  /** The full chunk record the next `more` record continues (see compact.ts). */
  template: ChunkTemplate | undefined;
  readonly expander = new ChunkExpander();
  first = true;

  constructor(
    private readonly path: string,
    private readonly from: number,
    private readonly onInvalid: ReadOptions['onInvalid'],
  ) {}

  /** The entry for one line, or undefined when the line is skipped (reported to onInvalid). */
  line(text: string, offset: number, next: number): LogEntry | undefined {
    const first = this.first;
    this.first = false;
    const parsed = parseRecordLine(text);
    if (!parsed.ok) {
      if (first && this.from !== 0) throw badOffset(this.path, this.from, 'the line there is not a valid record');
      this.onInvalid?.(offset, parsed.reason);
      return undefined;
    }
    if (parsed.known) {
      if (parsed.record.type === 'update') this.template = templateOf(parsed.record.update, parsed.record.ts);
      return { offset, next, known: true, record: parsed.record };
    }
    if (parsed.record.type !== MORE) return { offset, next, known: false, record: parsed.record };
    const record = parsed.record as MoreRecord;
    const template = this.template;
    if (template) {
      const ts = this.expander.timestamp(template.ms + Number(record.ts.slice(1)));
      return { offset, next, known: true, record: { seq: record.seq, ts, type: 'update', update: this.expander.update(template, record.text) } };
    }
    if (this.from === 0) {
      this.onInvalid?.(offset, 'a continued text chunk whose first chunk is missing (damaged)');
      return undefined;
    }
    // Read from an offset after its first chunk: the record is there (seq, offsets) but its text cannot be rebuilt.
    return { offset, next, known: false, record: parsed.record };
  }
}

/** A record starts at 0 or right after a newline; the end of the file is a valid (empty) cursor. */
async function checkBoundary(path: string, offset: number): Promise<void> {
  if (!Number.isSafeInteger(offset) || offset < 0) throw badOffset(path, offset, 'not a byte offset');
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (offset > size) throw badOffset(path, offset, `the log is only ${size} bytes long`);
    const before = Buffer.alloc(1);
    await handle.read(before, 0, 1, offset - 1);
    if (before[0] !== 0x0a) throw badOffset(path, offset, 'it falls inside a record');
  } finally {
    await handle.close();
  }
}

function badOffset(path: string, offset: number, why: string): LogError {
  return new LogError('bad_offset', `Offset ${offset} is not the start of a record in ${path}: ${why}. Replay from 0 or from an offset the log gave out.`);
}
