// Every change under review, grouped session → turn → file, and the note
// the agent reads on its next prompt. A turn holds only its own hunks,
// against the agent's text before that turn. Pure: deciding and landing are
// reviewDecisions.ts, reviewing in the file itself is reviewStore.ts.
import { createFileReview, fileId, hunkState, isPending, updateFileReview, type FileReview, type ProposedChange } from './fileReview';
import { sameContent } from './contentMerge';
import { contextNote } from './reviewNotes';

type Listener = () => void;

export class ReviewBook {
  protected readonly files = new Map<string, FileReview>();
  private readonly notes = new Map<string, string[]>();
  private readonly listeners = new Set<Listener>();

  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /**
   * Records a proposal (new, or newer for a file already under review in that
   * turn) and returns its review. A file the agent changed in an earlier turn
   * of the session is reviewed against the agent's text after that turn: each
   * turn holds only its own hunks, and a hunk decided earlier is never offered
   * (or landed) again. A proposal identical to that text is nothing new.
   */
  propose(change: ProposedChange): FileReview {
    const existing = this.files.get(fileId(change));
    let file: FileReview;
    // A change of origin (a staged write the agent then made itself) is a new review: what is on disk changed meaning.
    if (existing && existing.origin === change.origin) {
      updateFileReview(existing, change);
      file = existing;
    } else {
      const previous = this.previousTurn(change);
      if (previous && sameContent(previous.proposed, change.proposed)) return previous;
      if (previous) {
        const { movedFrom, ...rest } = change;
        // The move belongs to the turn that made it; a later turn edits the file where it now is.
        const next: ProposedChange = { ...rest, base: previous.proposed, ...(movedFrom !== undefined && movedFrom !== previous.movedFrom ? { movedFrom } : {}) };
        file = createFileReview(next);
        file.builtOn = previous.id;
      } else {
        file = createFileReview(change);
      }
      this.files.set(file.id, file);
    }
    this.changed();
    return file;
  }

  /**
   * The latest review of the same file in an earlier turn whose proposal the
   * agent kept building on. A direct-to-disk turn starts from its own snapshot
   * and needs none of this; an agent copy reset to its base starts afresh.
   */
  private previousTurn(change: ProposedChange): FileReview | undefined {
    if (change.origin === 'direct') return undefined;
    const earlier = this.inSession(change.sessionId).filter(
      (f) => f.path === change.path && f.origin === change.origin && f.turnId !== change.turnId && !f.chainEnded,
    );
    return earlier[earlier.length - 1];
  }

  get(id: string): FileReview | undefined {
    return this.files.get(id);
  }

  all(): FileReview[] {
    return [...this.files.values()];
  }

  sessionIds(): string[] {
    return unique(this.all().map((f) => f.sessionId));
  }

  turnIds(sessionId: string): string[] {
    return unique(this.inSession(sessionId).map((f) => f.turnId));
  }

  inSession(sessionId: string): FileReview[] {
    return this.all().filter((f) => f.sessionId === sessionId);
  }

  inTurn(sessionId: string, turnId: string): FileReview[] {
    return this.inSession(sessionId).filter((f) => f.turnId === turnId);
  }

  pendingCount(): number {
    return this.all().filter(isPending).length;
  }

  /**
   * The agent's copy of these files went back to their base because every
   * change in them was rejected: a later turn's changes start from there.
   */
  discarded(sessionId: string, paths: string[]): void {
    const set = new Set(paths);
    for (const file of this.inSession(sessionId)) if (set.has(file.path) && file.origin === 'isolated') file.chainEnded = true;
    if (paths.length > 0) this.note(sessionId, `your copy of ${paths.join(', ')} was put back as it was when the session began, since the person rejected every change you made to ${paths.length === 1 ? 'it' : 'them'}`);
    this.changed();
  }

  /**
   * The note for the agent's next prompt, once: what the person rejected or
   * undid since the last prompt. `undefined` when there is nothing to say.
   */
  takeContextNote(sessionId: string): string | undefined {
    const lines = this.notes.get(sessionId);
    this.notes.delete(sessionId);
    if (!lines || lines.length === 0) return undefined;
    return contextNote(lines);
  }

  /** Removes the reviews of a session (it was closed). Nothing in the tree changes. */
  forgetSession(sessionId: string): void {
    for (const file of this.inSession(sessionId)) this.files.delete(file.id);
    this.notes.delete(sessionId);
    this.changed();
  }

  /**
   * Changes of earlier turns that a later turn's review shows as unchanged
   * context (its base is the agent's text after them) but that are not in the
   * person's file: pending, rejected or in conflict. The diff says so.
   */
  contextNotInFile(file: FileReview): { turnId: string; count: number }[] {
    const out: { turnId: string; count: number }[] = [];
    for (let id = file.builtOn; id !== undefined; ) {
      const earlier = this.files.get(id);
      if (!earlier) break;
      const count = earlier.hunks.filter((_, i) => hunkState(earlier, i) !== 'accepted').length;
      if (count > 0) out.push({ turnId: earlier.turnId, count });
      id = earlier.builtOn;
    }
    return out.reverse();
  }

  protected note(sessionId: string, line: string): void {
    const lines = this.notes.get(sessionId) ?? [];
    lines.push(line);
    this.notes.set(sessionId, lines);
  }

  protected changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
