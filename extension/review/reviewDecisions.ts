// Decisions on the reviews, and landing them: one hunk at a time through a
// `RealTree`, never overwriting the person's own edits (a hunk that clashes
// is a conflict and says why; the others land). Landing is serialised, so two
// decisions on one file never interleave their reads and writes.
import { decideOpen, hunkDecision, hunkState, setAllDecisions, setHunkDecision, type Decision, type FileReview } from './fileReview';
import { landedIndices } from './reviewStates';
import { rejectedNote, undoneLine } from './reviewNotes';
import { landFile, type RealTree } from './landing';
import { ReviewBook } from './reviewBook';
import { leftInPlace } from './unverifiedBase';

/** What landing a set of decisions did. */
export interface LandResult {
  /** Files whose decisions are now all in the tree. */
  landed: FileReview[];
  /**
   * Files with at least one hunk stopped by the person's own edits; their
   * other hunks landed. `hunkConflict` / `file.conflict` say where and why.
   */
  conflicts: FileReview[];
  /** Files the request found nothing open in (everything already decided), with why. */
  refused?: { file: FileReview; why: string }[];
}

export class ReviewDecisions extends ReviewBook {
  /** Ids of files whose decisions are being written. */
  private readonly landing = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(protected readonly tree: RealTree) {
    super();
  }

  /** Decides one hunk (pending, or a conflict to try again or give up on) and lands it. */
  async decideHunk(file: FileReview, index: number, decision: Decision): Promise<LandResult> {
    const state = hunkState(file, index);
    if (state !== 'pending' && state !== 'conflict') {
      return { landed: [], conflicts: [], refused: [{ file, why: `that change was already ${state}` }] };
    }
    setHunkDecision(file, index, decision);
    const result = await this.land([file]);
    if (decision === 'rejected') this.noteRejected(file, [index]);
    return result;
  }

  decideFile(file: FileReview, decision: Exclude<Decision, 'pending'>): Promise<LandResult> {
    return this.decideFiles([file], decision);
  }

  /**
   * Accepts or rejects what is still open in every file given (a file, a turn,
   * a session) as one step. Decisions already taken stand: accepting a turn
   * never lands a hunk the person rejected, and a conflict is tried again.
   */
  async decideFiles(files: FileReview[], decision: Exclude<Decision, 'pending'>): Promise<LandResult> {
    const open: { file: FileReview; indices: number[] }[] = [];
    const refused: { file: FileReview; why: string }[] = [];
    for (const file of files) {
      const indices = file.hunks.map((_, i) => i).filter((i) => ['pending', 'conflict'].includes(hunkState(file, i)));
      if (decideOpen(file, decision) > 0) open.push({ file, indices });
      else refused.push({ file, why: 'every change in it is already decided' });
    }
    const result = await this.land(open.map((o) => o.file));
    if (decision === 'rejected') for (const { file, indices } of open) this.noteRejected(file, indices);
    return { ...result, refused };
  }

  /**
   * Takes back exactly what one turn did: its hunks that landed are
   * reverse-applied through a three-way merge against the files now (other
   * turns' changes and the person's edits stay), its open hunks are rejected.
   * The agent's note says what was reverted and what could not be.
   */
  async undoTurn(sessionId: string, turnId: string): Promise<LandResult> {
    const files = this.inTurn(sessionId, turnId);
    const before = new Map(files.map((f) => [f.id, landedIndices(f)]));
    // Hunks not in the tree and not already rejected: undoing the turn rejects them.
    const open = new Map(files.map((f) => [f.id, f.hunks.map((_, i) => i).filter((i) => !before.get(f.id)!.has(i) && hunkDecision(f, i) !== 'rejected')]));
    for (const file of files) setAllDecisions(file, 'rejected');
    const result = await this.land(files);
    const lines: string[] = [];
    for (const file of files) {
      const still = landedIndices(file);
      // A change whose "before" was never seen stays in the file: that turn is not undone there.
      file.undone = still.size === 0 && file.conflict === undefined && !leftInPlace(file);
      const was = before.get(file.id)!;
      const reverted = [...was].filter((i) => !still.has(i)).length;
      const dropped = open.get(file.id)!.length;
      const line = undoneLine(file, reverted, dropped, still.size);
      if (line !== undefined) lines.push(line);
    }
    if (lines.length > 0) {
      this.note(sessionId, `undid turn ${turnId} (only that turn's changes; changes from other turns are kept):`);
      for (const line of lines) this.note(sessionId, `  ${line}`);
    }
    this.changed();
    return result;
  }

  private noteRejected(file: FileReview, indices: number[]): void {
    const line = rejectedNote(file, indices);
    if (line !== undefined) this.note(file.sessionId, line);
  }

  /** Whether a decision on this file is being written right now (the UI says "applying" rather than showing stale actions). */
  isLanding(file: FileReview): boolean {
    return this.landing.has(file.id);
  }

  protected land(files: FileReview[]): Promise<LandResult> {
    // Listeners hear of the decision at once, and again once it is in the tree.
    for (const file of files) this.landing.add(file.id);
    if (files.length > 0) this.changed();
    return this.serially(() => this.landNow(files));
  }

  protected async landNow(files: FileReview[]): Promise<LandResult> {
    const result: LandResult = { landed: [], conflicts: [] };
    try {
      for (const file of files) {
        const clean = await landFile(file, this.tree);
        if (clean) result.landed.push(file);
        else result.conflicts.push(file);
      }
    } finally {
      for (const file of files) this.landing.delete(file.id);
      this.changed();
    }
    return result;
  }

  /** Runs `work` after every landing queued before it. */
  protected serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
