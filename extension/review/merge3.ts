// Three-way merge of line-based text, pure. Used whenever a decision lands in
// the person's tree: the ancestor is what the review last put there, "ours" is
// what is there now (the person may have edited, even without saving), and
// "theirs" is what the decisions ask for.
//
// Why not `git merge-file`: the extension host may have no git at all (a
// non-git folder, a Windows machine without git on PATH, a remote host), the
// texts often live in unsaved buffers rather than files, and a conflict here is
// never written into the file with markers — it is reported and nothing is
// changed. A small pure merge on the same hunks the UI shows does exactly that.
import { computeHunks, splitLines, type Hunk } from './hunks';

export interface MergeConflict {
  /** 0-based line in the ancestor where the contested region starts. */
  ancestorStart: number;
  ancestorLines: string[];
  /** The region as it is now in the person's tree. */
  ours: string[];
  /** The region as the decisions would make it. */
  theirs: string[];
}

export type MergeResult = { clean: true; text: string } | { clean: false; conflicts: MergeConflict[] };

interface SidedHunk {
  side: 'ours' | 'theirs';
  hunk: Hunk;
  start: number;
  end: number;
}

/**
 * Merges two edits of one ancestor. Changes to separate regions combine;
 * changes to the same region (overlapping lines, or insertions at the same
 * place) combine only when they are identical, otherwise they are conflicts.
 */
export function merge3(ancestor: string, ours: string, theirs: string): MergeResult {
  if (ours === ancestor || ours === theirs) return { clean: true, text: theirs };
  if (theirs === ancestor) return { clean: true, text: ours };
  const conflicts: MergeConflict[] = [];
  const text = walk(ancestor, ours, theirs, (conflict) => void conflicts.push(conflict));
  return conflicts.length > 0 ? { clean: false, conflicts } : { clean: true, text };
}

/**
 * The same merge with each conflict written into the text between the usual
 * markers (`<<<<<<<` the person's lines, `=======`, the other side's lines,
 * `>>>>>>>`), so VS Code's conflict actions (Accept Current / Incoming / Both)
 * can finish it. Clean regions merge as in `merge3`.
 */
export function mergeWithMarkers(ancestor: string, ours: string, theirs: string, labels: { ours: string; theirs: string }): { text: string; conflicts: number } {
  const merged = merge3(ancestor, ours, theirs);
  if (merged.clean) return { text: merged.text, conflicts: 0 };
  const block = (lines: string[]) => lines.map((line, i) => (i === lines.length - 1 && !line.endsWith('\n') ? `${line}\n` : line));
  const text = walk(ancestor, ours, theirs, (conflict, out) => {
    if (out.length > 0 && !out[out.length - 1]!.endsWith('\n')) out[out.length - 1] += '\n';
    out.push(`<<<<<<< ${labels.ours}\n`, ...block(conflict.ours), '=======\n', ...block(conflict.theirs), `>>>>>>> ${labels.theirs}\n`);
  });
  return { text, conflicts: merged.conflicts.length };
}

/**
 * One walk over both sides' hunks in ancestor order: untouched ancestor lines
 * and regions only one side changed (or both changed alike) go to the output;
 * a contested region goes to `onConflict`, which may write into the output.
 */
function walk(ancestor: string, ours: string, theirs: string, onConflict: (conflict: MergeConflict, out: string[]) => void): string {
  const sided: SidedHunk[] = [
    ...computeHunks(ancestor, ours).map((hunk) => sidedHunk('ours', hunk)),
    ...computeHunks(ancestor, theirs).map((hunk) => sidedHunk('theirs', hunk)),
  ].sort((a, b) => a.start - b.start || a.end - b.end);
  const ancestorLines = splitLines(ancestor);
  const out: string[] = [];
  let at = 0;
  for (const cluster of clusters(sided)) {
    const start = cluster[0]!.start;
    const end = Math.max(...cluster.map((h) => h.end));
    out.push(...ancestorLines.slice(at, start));
    const oursRegion = applyInRegion(ancestorLines, start, end, cluster, 'ours');
    const theirsRegion = applyInRegion(ancestorLines, start, end, cluster, 'theirs');
    const sides = new Set(cluster.map((h) => h.side));
    if (sides.size === 1) out.push(...(sides.has('ours') ? oursRegion : theirsRegion));
    else if (oursRegion.join('') === theirsRegion.join('')) out.push(...oursRegion);
    else onConflict({ ancestorStart: start, ancestorLines: ancestorLines.slice(start, end), ours: oursRegion, theirs: theirsRegion }, out);
    at = end;
  }
  out.push(...ancestorLines.slice(at));
  return out.join('');
}

/** Whether a text still holds conflict markers (a line starting `<<<<<<< ` and one starting `>>>>>>> `). */
export function hasConflictMarkers(text: string): boolean {
  return /^<<<<<<< /m.test(text) && /^>>>>>>> /m.test(text);
}

function sidedHunk(side: SidedHunk['side'], hunk: Hunk): SidedHunk {
  return { side, hunk, start: hunk.baseStart, end: hunk.baseStart + hunk.baseLines.length };
}

/**
 * Two regions touch the same text when they overlap, or when both start at the
 * same line (two insertions at one place have no right order). Adjacent
 * regions do not touch: an edit on line 5 and another on line 6 combine.
 */
function touches(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start === b.start || (a.start < b.end && b.start < a.end);
}

function* clusters(sorted: SidedHunk[]): Generator<SidedHunk[]> {
  let current: SidedHunk[] = [];
  let range = { start: 0, end: 0 };
  for (const hunk of sorted) {
    if (current.length > 0 && touches(hunk, range)) {
      current.push(hunk);
      range = { start: range.start, end: Math.max(range.end, hunk.end) };
      continue;
    }
    if (current.length > 0) yield current;
    current = [hunk];
    range = { start: hunk.start, end: hunk.end };
  }
  if (current.length > 0) yield current;
}

function applyInRegion(
  ancestorLines: string[],
  start: number,
  end: number,
  cluster: SidedHunk[],
  side: SidedHunk['side'],
): string[] {
  const out: string[] = [];
  let at = start;
  for (const { hunk, start: hunkStart, end: hunkEnd } of cluster.filter((h) => h.side === side)) {
    out.push(...ancestorLines.slice(at, hunkStart), ...hunk.proposedLines);
    at = hunkEnd;
  }
  out.push(...ancestorLines.slice(at, end));
  return out;
}
