// What the two sides of the diff editor show for a file under review. Pure.
//
// Left is the base with the hunks that are accepted and in the person's file;
// right adds the open ones (pending, or a conflict). A decided hunk therefore
// leaves the diff only once the tree holds its decision, and what is still
// highlighted is exactly what waits for the person: a conflict is never drawn
// as accepted.
import { hunkState, kindOf, type FileReview, type HunkState } from './fileReview';
import { composeText, hunkLayout } from './hunks';

export type Side = 'base' | 'proposed';

function sideChoice(file: FileReview, side: Side): Set<number> {
  const chosen = new Set<number>();
  file.hunks.forEach((_, index) => {
    const state = hunkState(file, index);
    if (state === 'accepted' || (side === 'proposed' && (state === 'pending' || state === 'conflict'))) chosen.add(index);
  });
  return chosen;
}

export function sideText(file: FileReview, side: Side): string {
  if (file.binary) return binarySummary(file, side);
  return composeText(file.baseText, file.hunks, sideChoice(file, side));
}

/** Open hunks (pending or conflict) and where each sits on one side (0-based start line, line count). */
export function pendingHunks(file: FileReview, side: Side): { index: number; start: number; lines: number; state: HunkState }[] {
  const layout = hunkLayout(file.hunks, sideChoice(file, side));
  return layout
    .map((place, index) => ({ index, ...place, state: hunkState(file, index) }))
    .filter(({ state }) => state === 'pending' || state === 'conflict');
}

function binarySummary(file: FileReview, side: Side): string {
  const content = side === 'base' ? file.base : file.proposed;
  const what = content === null ? 'does not exist' : `is binary (${content.length} bytes)`;
  return [
    `${file.path} ${what} on the ${side === 'base' ? 'base' : 'proposed'} side.`,
    `Binary files are not diffed: accept or reject the ${kindOf(file)} file as a whole.`,
    '',
  ].join('\n');
}
