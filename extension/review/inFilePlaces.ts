// Where an in-file review's pending hunks are in the document now, which the
// person (or another turn) may have edited since they were written. Pure.
import { hunkDecision, landsPerHunk, type FileReview } from './fileReview';
import { composeText, hunkKey, hunkLayout, lineMapper } from './hunks';

/** A pending hunk of an in-file review, where it is in the document now. */
export interface PlacedHunk {
  file: FileReview;
  index: number;
  /** 0-based first line of the hunk's lines in the document. */
  start: number;
  /** How many lines it put there (0 for a pure deletion). */
  lines: number;
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
    file.hunks.forEach((_, index) => {
      if (!landed.has(index) || hunkDecision(file, index) !== 'pending' || file.resolving.has(hunkKey(file.hunks[index]!))) return;
      const { start, lines } = layout[index]!;
      // Every line of the hunk (or, for a deletion, the line after it) must still be where it was written.
      const first = map(start);
      if (first === undefined) return;
      for (let i = 1; i < lines; i++) if (map(start + i) !== first + i) return;
      placed.push({ file, index, start: first, lines });
    });
  }
  return placed.sort((a, b) => a.start - b.start);
}

