// What a log's end looks like after a crash, found by reading backwards from
// the end (so opening costs the tail, not the whole file).
import type { FileHandle } from 'node:fs/promises';
import { linesBackward } from './lines';
import { parseRecordLine } from './records';

export interface TailState {
  /** Offset just past the last valid record: everything after it is torn. */
  validEnd: number;
  tornBytes: number;
  /** Seq of the last valid record, or undefined when there is none. */
  lastSeq: number | undefined;
  /** The last turn_start has no turn_end (nor interrupted) after it. */
  turnOpen: boolean;
}

/**
 * A torn tail is an unterminated last line (a write cut by a crash) plus any
 * complete lines after the last valid record that are not records (garbage).
 * Invalid lines earlier in the file are left alone: readers skip them, and
 * cutting them would lose the records that follow.
 */
export async function inspectTail(handle: FileHandle, size: number): Promise<TailState> {
  let validEnd: number | undefined;
  let lastSeq: number | undefined;
  for await (const line of linesBackward(handle, size)) {
    if (!line.terminated) continue;
    const parsed = parseRecordLine(line.bytes.toString('utf8'));
    if (!parsed.ok) continue;
    if (validEnd === undefined) {
      validEnd = line.offset + line.bytes.length + 1;
      lastSeq = parsed.record.seq;
    }
    const type = parsed.record.type;
    if (type === 'turn_end' || type === 'interrupted') return state(validEnd, size, lastSeq, false);
    if (type === 'turn_start') return state(validEnd, size, lastSeq, true);
  }
  return state(validEnd ?? 0, size, lastSeq, false);
}

function state(validEnd: number, size: number, lastSeq: number | undefined, turnOpen: boolean): TailState {
  return { validEnd, tornBytes: size - validEnd, lastSeq, turnOpen };
}
