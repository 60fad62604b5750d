// The hunk engine: pure text arithmetic behind the review UI. No vscode import,
// so every rule here is unit-tested in plain Node.
//
// Lines keep their own terminators ("a\r\n", "b\n", "c"), so CRLF files, mixed
// endings and a missing final newline round-trip byte for byte: composing a
// text from hunks never normalises anything the person or the agent wrote.
import { diffArrays } from 'diff';

/** One contiguous region that differs between base and proposed. */
export interface Hunk {
  /** 0-based line in the base where the region starts. */
  baseStart: number;
  /** Lines the region removes from the base (with terminators). */
  baseLines: string[];
  /** 0-based line in the proposed text where the region starts. */
  proposedStart: number;
  /** Lines the region puts in their place (with terminators). */
  proposedLines: string[];
}

/** Splits text into lines that each keep their terminator. "" has no lines. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      lines.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/**
 * The regions where `proposed` differs from `base`, in order. Each maximal run
 * of removed/added lines is one hunk, which is also how VS Code's diff editor
 * draws them, so a hunk in the UI and a hunk here are the same thing.
 */
export function computeHunks(base: string, proposed: string): Hunk[] {
  const hunks: Hunk[] = [];
  let baseLine = 0;
  let proposedLine = 0;
  let open: Hunk | undefined;
  for (const change of diffArrays(splitLines(base), splitLines(proposed))) {
    if (!change.added && !change.removed) {
      open = undefined;
      baseLine += change.count;
      proposedLine += change.count;
      continue;
    }
    if (!open) {
      open = { baseStart: baseLine, baseLines: [], proposedStart: proposedLine, proposedLines: [] };
      hunks.push(open);
    }
    if (change.removed) {
      open.baseLines.push(...change.value);
      baseLine += change.count;
    } else {
      open.proposedLines.push(...change.value);
      proposedLine += change.count;
    }
  }
  return hunks;
}

/**
 * The base with exactly the chosen hunks applied (by index into `hunks`, which
 * must come from `computeHunks(base, …)`). Choosing all gives the proposed
 * text, choosing none gives the base.
 */
export function composeText(base: string, hunks: readonly Hunk[], chosen: ReadonlySet<number>): string {
  const baseLines = splitLines(base);
  const out: string[] = [];
  let at = 0;
  hunks.forEach((hunk, index) => {
    out.push(...baseLines.slice(at, hunk.baseStart));
    out.push(...(chosen.has(index) ? hunk.proposedLines : hunk.baseLines));
    at = hunk.baseStart + hunk.baseLines.length;
  });
  out.push(...baseLines.slice(at));
  return out.join('');
}

/** Undo a set: the proposed text with the given hunks turned back to the base. */
export function revertHunks(base: string, hunks: readonly Hunk[], reverted: ReadonlySet<number>): string {
  const kept = new Set<number>();
  hunks.forEach((_, index) => {
    if (!reverted.has(index)) kept.add(index);
  });
  return composeText(base, hunks, kept);
}

/**
 * Where each hunk starts (0-based line) and how many lines it spans in the text
 * `composeText(base, hunks, chosen)`: the proposed side's lines for a chosen
 * hunk, the base side's for the others. Used to place CodeLens and to find the
 * hunk under the cursor.
 */
export function hunkLayout(hunks: readonly Hunk[], chosen: ReadonlySet<number>): { start: number; lines: number }[] {
  let shift = 0;
  return hunks.map((hunk, index) => {
    const lines = chosen.has(index) ? hunk.proposedLines.length : hunk.baseLines.length;
    const layout = { start: hunk.baseStart + shift, lines };
    shift += lines - hunk.baseLines.length;
    return layout;
  });
}

/** Counts for the tree: lines added and removed by the whole change. */
export function lineCounts(hunks: readonly Hunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    added += hunk.proposedLines.length;
    removed += hunk.baseLines.length;
  }
  return { added, removed };
}

/**
 * A stable identity for a hunk that survives the agent rewriting other parts
 * of the file, so a decision already taken is not asked again.
 */
export function hunkKey(hunk: Hunk): string {
  return `${hunk.baseStart}:${hunk.baseLines.length}:${simpleHash(hunk.baseLines.join('') + '\u0000' + hunk.proposedLines.join(''))}`;
}

function simpleHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16);
}

/**
 * Whether bytes are binary rather than text: a NUL in the first 8 KB (git's
 * rule) or bytes that are not valid UTF-8. Binary files are shown, never diffed.
 */
export function isBinary(bytes: Uint8Array): boolean {
  if (bytes.subarray(0, 8192).includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

/** Decodes text content; `undefined` for binary content. A UTF-8 BOM is kept in the text. */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (isBinary(bytes)) return undefined;
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

/**
 * Maps 0-based line numbers of `from` to where the same line is in `to`;
 * `undefined` for a line that `to` changed or removed. Used to find a review's
 * hunks in a file the person (or another turn) has edited since.
 */
export function lineMapper(from: string, to: string): (line: number) => number | undefined {
  const changes = computeHunks(from, to);
  return (line) => {
    let shift = 0;
    for (const hunk of changes) {
      if (line < hunk.baseStart) break;
      if (line < hunk.baseStart + hunk.baseLines.length) return undefined;
      shift += hunk.proposedLines.length - hunk.baseLines.length;
    }
    return line + shift;
  };
}
