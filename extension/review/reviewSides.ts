// What the two sides of the diff editor show for a file under review. Pure.
//
// Left is the base with the accepted hunks; right adds the pending ones. A
// decided hunk therefore leaves the diff (accepted: on both sides; rejected: on
// neither), and what is still highlighted is exactly what waits for the person.
import { chosenHunks, hunkDecision, kindOf, type FileReview } from './fileReview';
import { composeText, hunkLayout } from './hunks';

export type Side = 'base' | 'proposed';

function sideChoice(file: FileReview, side: Side): Set<number> {
  const accepted = new Set<number>();
  file.hunks.forEach((_, index) => {
    if (hunkDecision(file, index) === 'accepted') accepted.add(index);
  });
  return side === 'base' ? accepted : chosenHunks(file, true);
}

export function sideText(file: FileReview, side: Side): string {
  if (file.binary) return binarySummary(file, side);
  return composeText(file.baseText, file.hunks, sideChoice(file, side));
}

/** Pending hunks and where each sits on one side (0-based start line, line count). */
export function pendingHunks(file: FileReview, side: Side): { index: number; start: number; lines: number }[] {
  const layout = hunkLayout(file.hunks, sideChoice(file, side));
  return layout
    .map((place, index) => ({ index, ...place }))
    .filter(({ index }) => hunkDecision(file, index) === 'pending');
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
