// What the chat panel shows of the review: each reviewed file's state (for the
// tool cards' diff badges) and a session's changed files per turn with line
// counts. Pure: no vscode import.
import { fileLineCounts, hunkState, isPending, kindOf, landsPerHunk, type FileKind, type FileReview } from './fileReview';

export type ReviewState = 'pending' | 'accepted' | 'rejected' | 'partial';

/**
 * A file's label, from its hunks' states alone: open while any hunk is pending
 * or a conflict, else accepted / rejected when all agree, else partly accepted.
 */
export function reviewState(file: FileReview): ReviewState {
  if (isPending(file)) return 'pending';
  const whole = file.hunks.length === 0 || (!landsPerHunk(file) && file.wholeDecision !== 'pending' && file.binary);
  const decisions = new Set(whole ? [file.wholeDecision] : file.hunks.map((_, i) => hunkState(file, i)));
  if (decisions.size === 1) return decisions.has('rejected') ? 'rejected' : 'accepted';
  return 'partial';
}

export interface SummaryFile {
  fileId: string;
  path: string;
  kind: FileKind;
  added: number;
  removed: number;
  binary: boolean;
  state: ReviewState;
  conflict?: string;
  /** The agent did not show what the file held before: Reject leaves it as it is. */
  unknownBase?: boolean;
}

export interface SummaryTurn {
  turnId: string;
  undone: boolean;
  files: SummaryFile[];
}

/** A session's reviews by turn, oldest first; each turn lists its own hunks' counts. */
export function summarize(files: FileReview[]): { turns: SummaryTurn[]; pending: number } {
  const turns = new Map<string, SummaryTurn>();
  for (const file of files) {
    const turn = turns.get(file.turnId) ?? { turnId: file.turnId, undone: false, files: [] };
    turns.set(file.turnId, turn);
    const { added, removed } = fileLineCounts(file);
    turn.files.push({
      fileId: file.id,
      path: file.path,
      kind: kindOf(file),
      added,
      removed,
      binary: file.binary,
      state: reviewState(file),
      ...(file.conflict ? { conflict: file.conflict.slice(0, 1000) } : {}),
      ...(file.unverified ? { unknownBase: true } : {}),
    });
  }
  for (const turn of turns.values()) turn.undone = turn.files.length > 0 && turn.files.every((f) => files.find((x) => x.id === f.fileId)?.undone);
  return { turns: [...turns.values()], pending: files.filter(isPending).length };
}

/**
 * The review of `path` in a session that a tool card should show: the one of
 * the card's turn when given and there is one, else the most recent.
 */
export function reviewForPath(files: FileReview[], path: string, turnId?: string): FileReview | undefined {
  const matching = files.filter((f) => f.path === path || f.movedFrom === path);
  return matching.find((f) => turnId !== undefined && f.turnId === turnId) ?? matching[matching.length - 1];
}
