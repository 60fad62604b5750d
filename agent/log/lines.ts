// Byte-exact line access to a JSONL file. Lines are split on the 0x0A byte in
// Buffers (never in decoded strings), so offsets are file offsets even with
// multi-byte UTF-8 text.
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

export interface Line {
  /** File offset of the line's first byte. */
  offset: number;
  /** File offset just past the newline (the next line's offset). */
  next: number;
  text: string;
}

const NEWLINE = 0x0a;

/**
 * Complete lines from `from` to the end of the file as it is while reading,
 * one array per chunk read (per-line async iteration costs more than the
 * parsing). A final line without its newline (being written, or torn) is not
 * yielded; it is reported through `onPartialTail`. Chunks of 128 KiB: with
 * 1 MiB the records of one batch outlived the young generation and the
 * copying made replay twice as slow.
 */
export async function* readLineBatches(
  path: string,
  from = 0,
  onPartialTail?: (offset: number, bytes: number) => void,
): AsyncGenerator<Line[]> {
  let carry: Buffer | undefined;
  let base = from; // file offset of buf[0]
  for await (const chunk of createReadStream(path, { start: from, highWaterMark: 1 << 17 }) as AsyncIterable<Buffer>) {
    const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
    const lines: Line[] = [];
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
      lines.push({ offset: base + start, next: base + nl + 1, text: buf.toString('utf8', start, nl) });
      start = nl + 1;
    }
    base += start;
    carry = start < buf.length ? buf.subarray(start) : undefined;
    if (lines.length > 0) yield lines;
  }
  if (carry) onPartialTail?.(base, carry.length);
}

export async function* readLines(path: string, from = 0, onPartialTail?: (offset: number, bytes: number) => void): AsyncGenerator<Line> {
  for await (const lines of readLineBatches(path, from, onPartialTail)) yield* lines;
}

export interface RawLine {
  offset: number;
  bytes: Buffer;
  /** False only for the file's last line when it lacks its newline. */
  terminated: boolean;
}

/** Lines from the end of the file backwards, last line first. */
export async function* linesBackward(handle: FileHandle, size: number, chunkSize = 64 * 1024): AsyncGenerator<RawLine> {
  let pos = size;
  let carry = Buffer.alloc(0); // the start of a line whose beginning is before `pos`
  let atFileEnd = true;
  while (pos > 0) {
    const length = Math.min(chunkSize, pos);
    pos -= length;
    const chunk = Buffer.alloc(length);
    await readFully(handle, chunk, pos);
    const buf = carry.length ? Buffer.concat([chunk, carry]) : chunk;
    let end = buf.length;
    for (let nl = buf.lastIndexOf(NEWLINE, end - 1); nl !== -1; nl = end > 0 ? buf.lastIndexOf(NEWLINE, end - 1) : -1) {
      const terminated = !atFileEnd;
      // At the file end the segment after the last newline is either empty
      // (a clean file) or a torn, unterminated line.
      if (!atFileEnd || nl + 1 < end) yield { offset: pos + nl + 1, bytes: buf.subarray(nl + 1, end), terminated };
      atFileEnd = false;
      end = nl;
    }
    carry = buf.subarray(0, end);
    if (pos === 0 && carry.length > 0) yield { offset: 0, bytes: carry, terminated: !atFileEnd };
  }
}

export async function readFully(handle: FileHandle, into: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new Error(`unexpected end of file at byte ${position + done}`);
    done += bytesRead;
  }
}
