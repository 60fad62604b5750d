// Where an in-file review's pending hunks are in the document now, which the
// person (or another turn) may have edited since they were written. Pure.
import { hunkDecision, landsPerHunk, type FileReview } from './fileReview';
import { composeText, hunkKey, hunkLayout, lineMapper, splitLines } from './hunks';

/** A pending hunk of an in-file review, where it is in the document now. */
export interface PlacedHunk {
  file: FileReview;
  index: number;
  /** 0-based first line of the hunk's lines in the document. */
  start: number;
  /** How many lines it has there now (0 for a pure deletion). */
  lines: number;
  /** The person's text in the hunk's place when they edited the agent's lines there (Keep then keeps their version). */
  edited?: string;
}

/** Where each pending, written hunk of in-file reviews of `path` is in `text`, in document order. */
export function placeHunks(files: readonly FileReview[], path: string, text: string): PlacedHunk[] {
  const placed: PlacedHunk[] = [];
  for (const file of files) {
    if (!file.inFile || file.path !== path || !landsPerHunk(file)) continue;
    const landed = new Set<number>();
    file.hunks.forEach((hunk, index) => {
      if (file.landedHunks.has(hunkKey(hunk))) landed.add(index);
    });
    const written = composeText(file.baseText, file.hunks, landed);
    const map = lineMapper(written, text);
    const layout = hunkLayout(file.hunks, landed);
    const textLines = splitLines(text);
    file.hunks.forEach((_, index) => {
      if (!landed.has(index) || hunkDecision(file, index) !== 'pending' || file.resolving.has(hunkKey(file.hunks[index]!))) return;
      const { start, lines } = layout[index]!;
      const first = map(start);
      let intact = first !== undefined;
      for (let i = 1; i < lines && intact; i++) intact = map(start + i) === first! + i;
      if (intact) {
        placed.push({ file, index, start: first!, lines });
        return;
      }
      // The person edited the agent's lines: the hunk is what lies between the unchanged lines around it.
      const before = start === 0 ? -1 : map(start - 1);
      const after = map(start + lines);
      if (before === undefined || after === undefined || after < before + 1) return;
      placed.push({ file, index, start: before + 1, lines: after - before - 1, edited: textLines.slice(before + 1, after).join('') });
    });
  }
  return placed.sort((a, b) => a.start - b.start);
}

