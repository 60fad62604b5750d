// The words the review puts in the agent's next prompt (what the person
// rejected, undid or finished by hand) and in a review's conflict text.
import { hunkDecision, hunkState, kindOf, landsPerHunk, type FileReview } from './fileReview';
import { leftInPlace } from './unverifiedBase';

export function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** Where a hunk is in the agent's version and how it starts, for the agent's note. */
export function describeHunk(file: FileReview, index: number): string {
  const hunk = file.hunks[index]!;
  const first = (hunk.proposedLines[0] ?? hunk.baseLines[0] ?? '').trim();
  const excerpt = first.length > 60 ? `${first.slice(0, 60)}…` : first;
  const what = hunk.proposedLines.length === 0 ? 'removing' : 'at';
  return `line ${hunk.proposedStart + 1} (${what} "${excerpt}")`;
}

export function resolvingText(file: FileReview): string {
  return `${count(file.resolving.size, 'conflict')} being finished in the file: pick a side on the conflict markers`;
}

/** The note for hunks of `file` the person just rejected (among `indices`); undefined when there is nothing to say. */
export function rejectedNote(file: FileReview, indices: number[]): string | undefined {
  const rejected = indices.filter((i) => hunkState(file, i) === 'rejected');
  if (leftInPlace(file)) {
    // The agent must not think its text is gone: nothing was reverted.
    if (rejected.length === 0 && file.wholeDecision !== 'rejected') return undefined;
    return `rejected your change to ${file.path}, but you did not show what it held before, so Accord left it as you wrote it (nothing was reverted)`;
  }
  if (!landsPerHunk(file)) {
    if (file.hunks.every((_, i) => hunkDecision(file, i) === 'rejected') && file.wholeDecision !== 'accepted') {
      return `rejected your ${kindOf(file) === 'modified' ? 'changes to' : kindOf(file) + ' file'} ${file.path}`;
    }
    return rejected.length > 0 ? `rejected ${count(rejected.length, 'change')} in ${file.path}` : undefined;
  }
  if (rejected.length === 0) return undefined;
  const where = rejected.map((i) => describeHunk(file, i)).join('; ');
  return `rejected ${count(rejected.length, 'change')} in ${file.path} (not applied): ${where}`;
}

/**
 * What undoing a turn did to one of its files: `reverted` hunks taken out,
 * `dropped` open hunks rejected, `still` hunks left in because the person
 * edited the same lines. Undefined when nothing happened to it.
 */
export function undoneLine(file: FileReview, reverted: number, dropped: number, still: number): string | undefined {
  const name = file.path;
  if (leftInPlace(file)) return `${name}: not reverted: you did not show what it held before, so it is still as you wrote it`;
  if (!landsPerHunk(file)) {
    if (file.undone) return `${name}: your ${kindOf(file) === 'modified' ? 'change' : kindOf(file) + ' file'} from that turn is not in the person's files`;
    return `${name}: could not be undone (${file.conflict ?? 'it changed since'}); it is still in the person's files as it was`;
  }
  const parts: string[] = [];
  if (reverted > 0) parts.push(`${count(reverted, 'change')} reverted`);
  if (dropped > 0) parts.push(`${count(dropped, 'change')} never applied, now rejected`);
  if (still > 0) parts.push(`${count(still, 'change')} could not be reverted because the person edited the same lines, so ${still === 1 ? 'it is' : 'they are'} still in their file`);
  return parts.length > 0 ? `${name}: ${parts.join('; ')}` : undefined;
}

/** The note's lines as the agent reads them; an indented line is a detail of the one before. */
export function contextNote(lines: string[]): string {
  return [
    'Review note from the person (Accord): since your last turn the person',
    ...lines.map((line) => (line.startsWith('  ') ? `  - ${line.trim()}` : `- ${line}`)),
    'Rejected and reverted changes are not in their files. Your own copy keeps your version of a file unless this note says it was reset; read a file again before building on it.',
  ].join('\n');
}
