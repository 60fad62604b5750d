// Questions about a review's decisions that span its hunks: which are in the
// person's tree, and whether a path's whole chain of reviews was rejected.
import { hunkDecision, hunkState, isPending, landsPerHunk, type FileReview } from './fileReview';
import { hunkKey } from './hunks';

/** Indices of the hunks this review has in the tree. */
export function landedIndices(file: FileReview): Set<number> {
  const out = new Set<number>();
  if (!landsPerHunk(file)) {
    file.hunks.forEach((_, i) => {
      if (hunkState(file, i) === 'accepted') out.add(i);
    });
    return out;
  }
  file.hunks.forEach((h, i) => {
    if (file.landedHunks.has(hunkKey(h))) out.add(i);
  });
  return out;
}

/**
 * Files whose agent copy should go back to its base: every review of the path
 * in the session (since the last reset) is wholly rejected, with nothing of it
 * in the person's files and no conflict open. A path with anything accepted
 * keeps the agent's version in its copy; the agent's note says what was not taken.
 */
export function pathsToDiscard(files: FileReview[]): string[] {
  const byPath = new Map<string, FileReview[]>();
  for (const file of files) {
    if (file.origin !== 'isolated' || file.chainEnded) continue;
    byPath.set(file.path, [...(byPath.get(file.path) ?? []), file]);
  }
  return [...byPath].filter(([, reviews]) => reviews.every(whollyRejected)).map(([path]) => path);
}

function whollyRejected(file: FileReview): boolean {
  if (isPending(file) || file.conflict !== undefined) return false;
  if (!landsPerHunk(file)) return file.wholeDecision === 'rejected' || (file.hunks.length > 0 && file.hunks.every((_, i) => hunkDecision(file, i) === 'rejected'));
  return file.hunks.every((_, i) => hunkState(file, i) === 'rejected');
}
