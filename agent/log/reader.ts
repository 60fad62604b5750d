// Reads a log's records in order, each with its byte offset, from the start or
// from a cursor offset. Streams the file; nothing is held beyond one chunk.
import { open } from 'node:fs/promises';
import { LogError } from './errors';
import { readLineBatches } from './lines';
import { ChunkExpander, MORE, readMoreLine, templateOf, type ChunkTemplate, type MoreFields, type MoreRecord } from './compact';
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

/** readLog, one array per chunk read: for whole-log passes (replay, listing) where per-record iteration dominates. */
export async function* readLogBatches(path: string, options: ReadOptions = {}): AsyncGenerator<LogEntry[]> {
  const from = options.from ?? 0;
  if (from !== 0) await checkBoundary(path, from);
  let first = true;
  // The full chunk record the next `more` record continues (see compact.ts).
  let template: ChunkTemplate | undefined;
  const expander = new ChunkExpander();
  const more: MoreFields = { seq: 0, delta: 0, text: '' };
  for await (const lines of readLineBatches(path, from, options.onPartialTail)) {
    const entries: LogEntry[] = [];
    for (const line of lines) {
      if (template && readMoreLine(line.text, more)) {
        const record = { seq: more.seq, ts: expander.timestamp(template.ms + more.delta), type: 'update' as const, update: expander.update(template, more.text) };
        entries.push({ offset: line.offset, next: line.next, known: true, record });
        first = false;
        continue;
      }
      const parsed = parseRecordLine(line.text);
      if (!parsed.ok) {
        if (first && from !== 0) throw badOffset(path, from, 'the line there is not a valid record');
        options.onInvalid?.(line.offset, parsed.reason);
      } else if (parsed.known) {
        if (parsed.record.type === 'update') template = templateOf(parsed.record.update, parsed.record.ts);
        entries.push({ offset: line.offset, next: line.next, known: true, record: parsed.record });
      } else if (parsed.record.type === MORE) {
        const record = parsed.record as MoreRecord;
        if (template) {
          const ts = expander.timestamp(template.ms + Number(record.ts.slice(1)));
          entries.push({ offset: line.offset, next: line.next, known: true, record: { seq: record.seq, ts, type: 'update', update: expander.update(template, record.text) } });
        } else if (from === 0) {
          options.onInvalid?.(line.offset, 'a continued text chunk whose first chunk is missing (damaged)');
        } else {
          // Read from an offset after its first chunk: the record is there (seq, offsets) but its text cannot be rebuilt.
          entries.push({ offset: line.offset, next: line.next, known: false, record: parsed.record });
        }
      } else {
        entries.push({ offset: line.offset, next: line.next, known: false, record: parsed.record });
      }
      first = false;
    }
    if (entries.length > 0) yield entries;
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
