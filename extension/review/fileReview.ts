// One reviewed file: what the agent proposed, the decisions taken on it, and
// what the review has put in the person's tree. Pure; no vscode import.
import { composeText, computeHunks, decodeText, hunkKey, lineCounts, type Hunk } from './hunks';
import { restoreTarget, type UnverifiedBase } from './unverifiedBase';

/** File content; `null` when the file does not exist. */
export type Content = Uint8Array | null;

/** Where a change comes from; decides whether a pending change is already on disk. */
export type ChangeOrigin =
  /** The bundled agent's isolated workspace (`_accord/...` methods). */
  | 'isolated'
  /** A third-party agent's `fs/write_text_file`, held until accepted. */
  | 'staged'
  /** A third-party agent that wrote straight to disk; the base is a snapshot. */
  | 'direct';

/** What a change source reports for one file in one turn. */
export interface ProposedChange {
  origin: ChangeOrigin;
  sessionId: string;
  turnId: string;
  /** Absolute path the proposed content belongs at. */
  path: string;
  /** For a move: the absolute path the file came from (its base is there). */
  movedFrom?: string;
  /** Content before the agent's change (at `movedFrom ?? path`). */
  base: Content;
  /** Content the agent proposes at `path`; `null` deletes the file. */
  proposed: Content;
  /** Set when `base` is not known (the call was first seen finished): Reject then leaves the file as it is. */
  unverified?: UnverifiedBase;
}

/** What the person asked for a hunk (or a whole file). */
export type Decision = 'pending' | 'accepted' | 'rejected';
/**
 * What a hunk is, as shown: its decision once the tree holds it, else
 * `conflict` (the person's own edits stopped it landing or leaving).
 */
export type HunkState = Decision | 'conflict';
export type FileKind = 'added' | 'modified' | 'deleted' | 'moved';

export interface FileReview {
  readonly id: string;
  readonly origin: ChangeOrigin;
  readonly sessionId: string;
  readonly turnId: string;
  readonly path: string;
  readonly movedFrom: string | undefined;
  base: Content;
  proposed: Content;
  /** Set when either side is binary: shown, never diffed, decided as a whole. */
  binary: boolean;
  /** Text of each side for diffing (`""` for an absent side); unset when binary. */
  baseText: string;
  proposedText: string;
  hunks: Hunk[];
  /** Decision per hunk, by `hunkKey`, so a rewrite by the agent keeps earlier decisions. */
  hunkDecisions: Map<string, Decision>;
  /** Decision on the file as a whole: the only one for binary files, and the move itself for moves. */
  wholeDecision: Decision;
  /** What the review last put (or found) in the person's tree, per path. */
  landed: Map<string, Content>;
  /** Set when the last attempt to land decisions met the person's own edits. */
  conflict: string | undefined;
  /**
   * Hunks (by `hunkKey`) whose change this review has put in the person's tree
   * (for a direct-to-disk agent: found there). Landing moves one hunk at a
   * time, so a clean hunk lands even when another in the file conflicts.
   */
  landedHunks: Set<string>;
  /** Why a hunk could not land or leave, by `hunkKey`. */
  hunkConflicts: Map<string, string>;
  /** Conflicts written into the file between conflict markers, waiting for the person to pick a side (by `hunkKey`). */
  resolving: Set<string>;
  /** The review of the same file in an earlier turn that this one's base is taken from. */
  builtOn: string | undefined;
  /** Set once the agent's copy of the file went back to its base (all rejected): a later turn starts afresh. */
  chainEnded: boolean;
  /**
   * Reviewed in the file itself (Keep/Undo in the normal editor): its pending
   * hunks are written into the file, as a direct-to-disk agent's are, and
   * Undo takes one out again.
   */
  inFile: boolean;
  /** Set once the file's turn was undone. */
  undone: boolean;
  /** Set when a later turn changed the same file again; that review carries on from this one. */
  supersededBy: string | undefined;
  /**
   * Set when nothing here saw the file before the agent's change (`base` is
   * only what the diff shows): Reject leaves the file as it is, and only the
   * person's explicit restore writes an earlier version.
   */
  unverified: UnverifiedBase | undefined;
}

export function fileId(change: Pick<ProposedChange, 'sessionId' | 'turnId' | 'path'>): string {
  return `${change.sessionId}\u0000${change.turnId}\u0000${change.path}`;
}

export function createFileReview(change: ProposedChange): FileReview {
  const file: FileReview = {
    id: fileId(change),
    origin: change.origin,
    sessionId: change.sessionId,
    turnId: change.turnId,
    path: change.path,
    movedFrom: change.movedFrom,
    base: change.base,
    proposed: change.proposed,
    binary: false,
    baseText: '',
    proposedText: '',
    hunks: [],
    hunkDecisions: new Map(),
    wholeDecision: 'pending',
    landed: new Map(),
    conflict: undefined,
    landedHunks: new Set(),
    hunkConflicts: new Map(),
    resolving: new Set(),
    builtOn: undefined,
    chainEnded: false,
    inFile: false,
    undone: false,
    supersededBy: undefined,
    unverified: change.unverified ? { ...change.unverified } : undefined,
  };
  recompute(file);
  file.landed = desiredTree(file);
  if (file.origin === 'direct') for (const hunk of file.hunks) file.landedHunks.add(hunkKey(hunk));
  return file;
}

/**
 * Takes a newer proposal for the same file and turn. Decisions on hunks that
 * are unchanged survive. For a direct-to-disk agent the new content is what is
 * on disk now, so that is what has landed, and hunks it rejected before are
 * asked again (the agent wrote them anew).
 */
export function updateFileReview(file: FileReview, change: ProposedChange): void {
  file.proposed = change.proposed;
  file.conflict = undefined;
  recompute(file);
  if (file.origin === 'direct') {
    for (const [key, decision] of file.hunkDecisions) {
      if (decision === 'rejected') file.hunkDecisions.delete(key);
    }
    if (file.wholeDecision === 'rejected') file.wholeDecision = 'pending';
    // The agent wrote again: its new text is the change now, and the old text it claimed fits the file it replaced, not this one.
    if (file.unverified) {
      file.unverified.restored = undefined;
      delete file.unverified.claimed;
    }
    file.landed.set(file.path, change.proposed);
    file.landedHunks = new Set(file.hunks.map(hunkKey));
  } else {
    // Hunks the agent rewrote are new hunks: what landed of the old ones is still in the tree, so it stays recorded.
    const keys = new Set(file.hunks.map(hunkKey));
    for (const key of file.hunkConflicts.keys()) if (!keys.has(key)) file.hunkConflicts.delete(key);
  }
}

function recompute(file: FileReview): void {
  const baseText = file.base === null ? '' : decodeText(file.base);
  const proposedText = file.proposed === null ? '' : decodeText(file.proposed);
  file.binary = baseText === undefined || proposedText === undefined;
  file.baseText = baseText ?? '';
  file.proposedText = proposedText ?? '';
  file.hunks = file.binary ? [] : computeHunks(file.baseText, file.proposedText);
}

export function kindOf(file: FileReview): FileKind {
  if (file.movedFrom !== undefined) return 'moved';
  // Whether it existed before is exactly what is not known: never called an addition.
  if (file.unverified && file.proposed !== null) return 'modified';
  if (file.base === null) return 'added';
  if (file.proposed === null) return 'deleted';
  return 'modified';
}

export function hunkDecision(file: FileReview, index: number): Decision {
  const hunk = file.hunks[index];
  return hunk ? (file.hunkDecisions.get(hunkKey(hunk)) ?? 'pending') : 'pending';
}

export function setHunkDecision(file: FileReview, index: number, decision: Decision): void {
  const hunk = file.hunks[index];
  if (hunk) file.hunkDecisions.set(hunkKey(hunk), decision);
}

/** Accepts or rejects every hunk and the file as a whole. */
export function setAllDecisions(file: FileReview, decision: Decision): void {
  file.hunks.forEach((_, index) => setHunkDecision(file, index, decision));
  file.wholeDecision = decision;
}

/**
 * Decides what is still open (pending, or a conflict to try again) and leaves
 * decisions already taken alone: "accept all" never brings back a hunk the
 * person rejected. Returns how many hunks (or whole files) it decided.
 */
export function decideOpen(file: FileReview, decision: Exclude<Decision, 'pending'>): number {
  let decided = 0;
  file.hunks.forEach((_, index) => {
    const state = hunkState(file, index);
    if (state === 'pending' || state === 'conflict') {
      setHunkDecision(file, index, decision);
      decided++;
    }
  });
  if (wholeOpen(file)) {
    file.wholeDecision = decision;
    decided++;
  }
  return decided;
}

/**
 * Files landed per hunk: text on both sides, not moved, not added or deleted,
 * with a known base. The rest (binary, moves, additions, deletions, a base the
 * agent never showed) land as a whole.
 */
export function landsPerHunk(file: FileReview): boolean {
  return !file.binary && file.movedFrom === undefined && file.base !== null && file.proposed !== null && file.unverified === undefined;
}

/** Whether a hunk's change should be in the tree. */
export function wantsLanded(file: FileReview, index: number): boolean {
  const decision = hunkDecision(file, index);
  return decision === 'accepted' || (decision === 'pending' && (file.origin === 'direct' || file.inFile));
}

/** What a hunk is now: its decision when the tree matches it, else a conflict. */
export function hunkState(file: FileReview, index: number): HunkState {
  const hunk = file.hunks[index];
  if (!hunk) return 'pending';
  const decision = hunkDecision(file, index);
  if (!landsPerHunk(file)) return decision !== 'pending' && file.conflict !== undefined ? 'conflict' : decision;
  const key = hunkKey(hunk);
  if (file.landedHunks.has(key) === wantsLanded(file, index) && !file.hunkConflicts.has(key)) return decision;
  return decision === 'pending' ? 'pending' : 'conflict';
}

/** Why a hunk is a conflict, when it is one. */
export function hunkConflict(file: FileReview, index: number): string | undefined {
  const hunk = file.hunks[index];
  if (!hunk || hunkState(file, index) !== 'conflict') return undefined;
  return file.hunkConflicts.get(hunkKey(hunk)) ?? file.conflict ?? 'it is not in your file as decided';
}

/** A whole-file decision still open: pending, or decided but stopped by a conflict. */
function wholeOpen(file: FileReview): boolean {
  if (!needsWholeDecision(file)) return false;
  return file.wholeDecision === 'pending' || file.conflict !== undefined;
}

/** Whether anything in the file still waits for the person: a pending hunk or a conflict. */
export function isPending(file: FileReview): boolean {
  if (file.undone && file.conflict === undefined) return false;
  if (file.supersededBy !== undefined) return false;
  if (wholeOpen(file)) return true;
  if (file.conflict !== undefined) return true;
  return file.hunks.some((_, index) => {
    const state = hunkState(file, index);
    return state === 'pending' || state === 'conflict';
  });
}

/** Binary files, changes without hunks (an empty file added) and unaccepted moves are decided as a whole. */
function needsWholeDecision(file: FileReview): boolean {
  return file.binary || file.hunks.length === 0 || (file.movedFrom !== undefined && !movedByHunks(file));
}

/** Pending counts as landed only for an agent that already wrote to disk. */
function counts(file: FileReview, decision: Decision): boolean {
  return decision === 'accepted' || (decision === 'pending' && file.origin === 'direct');
}

/** Indices of hunks whose change should be in the tree. */
export function chosenHunks(file: FileReview, includePending = false): Set<number> {
  const chosen = new Set<number>();
  file.hunks.forEach((_, index) => {
    const decision = hunkDecision(file, index);
    if (counts(file, decision) || (includePending && decision === 'pending')) chosen.add(index);
  });
  return chosen;
}

function movedByHunks(file: FileReview): boolean {
  return file.hunks.some((_, index) => hunkDecision(file, index) === 'accepted');
}

/**
 * The contents the decisions ask for, per path. An added or deleted file
 * exists exactly when its one hunk is chosen; a move happens when the file (or
 * any of its hunks) is accepted; binary files are all or nothing.
 */
export function desiredTree(file: FileReview): Map<string, Content> {
  const tree = new Map<string, Content>();
  if (file.unverified) {
    // No decision writes a "before" nobody saw: the file stays as the agent left it unless the person restored a version.
    const restored = file.unverified.restored && restoreTarget(file.unverified, file.unverified.restored);
    tree.set(file.path, restored ?? file.proposed);
    return tree;
  }
  if (file.binary) {
    const landed = counts(file, file.wholeDecision);
    if (file.movedFrom !== undefined) {
      tree.set(file.movedFrom, landed ? null : file.base);
      tree.set(file.path, landed ? file.proposed : null);
    } else {
      tree.set(file.path, landed ? file.proposed : file.base);
    }
    return tree;
  }
  const chosen = chosenHunks(file);
  const text = composeText(file.baseText, file.hunks, chosen);
  const content = new TextEncoder().encode(text);
  if (file.movedFrom !== undefined) {
    const moved = counts(file, file.wholeDecision) || movedByHunks(file);
    tree.set(file.movedFrom, moved ? null : content);
    tree.set(file.path, moved ? content : null);
    return tree;
  }
  const whole = counts(file, file.wholeDecision);
  if (file.base === null) {
    const exists = file.hunks.length === 0 ? whole : chosen.size > 0;
    tree.set(file.path, exists ? content : null);
  } else if (file.proposed === null) {
    const deleted = file.hunks.length === 0 ? whole : chosen.size === file.hunks.length;
    tree.set(file.path, deleted ? null : content);
  } else {
    tree.set(file.path, content);
  }
  return tree;
}

export function fileLineCounts(file: FileReview): { added: number; removed: number } {
  return lineCounts(file.hunks);
}
