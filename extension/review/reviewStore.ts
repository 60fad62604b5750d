// Every change under review, grouped session → turn → file, and the decisions
// on them. Lands decisions in the person's tree through a `RealTree` and never
// overwrites the person's own edits: a clash is reported as a conflict and
// nothing of that file is written. Pure; the VS Code tree is an adapter.
import {
  createFileReview,
  desiredTree,
  isPending,
  setAllDecisions,
  setHunkDecision,
  updateFileReview,
  fileId,
  type Content,
  type Decision,
  type FileReview,
  type ProposedChange,
} from './fileReview';
import { merge3 } from './merge3';
import { decodeText } from './hunks';

/** The person's files as the review reads and writes them. */
export interface RealTree {
  /** Current content, unsaved editor text included; `null` when absent. */
  read(path: string): Promise<Content>;
  /** Replaces the content (`null` deletes). Open documents change through the editor so it joins undo. */
  write(path: string, content: Content): Promise<void>;
}

/** What landing a set of decisions did. */
export interface LandResult {
  /** Files whose decisions are now in the tree. */
  landed: FileReview[];
  /** Files left untouched because the person edited the same lines; `file.conflict` says where. */
  conflicts: FileReview[];
}

type Listener = () => void;

export class ReviewStore {
  private readonly files = new Map<string, FileReview>();
  private readonly notes = new Map<string, string[]>();
  private readonly listeners = new Set<Listener>();
  /** Landing is serialised: two decisions on one file never interleave their reads and writes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly tree: RealTree) {}

  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Records a proposal (new, or newer for a file already under review) and returns its review. */
  propose(change: ProposedChange): FileReview {
    const existing = this.files.get(fileId(change));
    let file: FileReview;
    if (existing) {
      updateFileReview(existing, change);
      file = existing;
    } else {
      file = createFileReview(change);
      this.carryOver(file);
      this.files.set(file.id, file);
    }
    this.changed();
    return file;
  }

  /**
   * A staged or isolated change to a file that an earlier turn already
   * proposed, still undecided, continues that review: the base is the same, so
   * decisions taken on identical hunks stand, and what landed is what landed.
   * A direct-to-disk turn starts from its own snapshot and needs none of this.
   */
  private carryOver(file: FileReview): void {
    if (file.origin === 'direct') return;
    const earlier = this.inSession(file.sessionId).filter(
      (f) => f.path === file.path && f.origin === file.origin && !f.undone && f.supersededBy === undefined,
    );
    for (const previous of earlier) {
      previous.supersededBy = file.id;
      for (const [key, decision] of previous.hunkDecisions) file.hunkDecisions.set(key, decision);
      for (const [path, content] of previous.landed) file.landed.set(path, content);
    }
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

  decideHunk(file: FileReview, index: number, decision: Decision): Promise<LandResult> {
    setHunkDecision(file, index, decision);
    if (decision === 'rejected') this.note(file.sessionId, `rejected one change in ${file.path}`);
    return this.land([file]);
  }

  decideFile(file: FileReview, decision: Exclude<Decision, 'pending'>): Promise<LandResult> {
    return this.decideFiles([file], decision);
  }

  /** Accept or reject every file given (a turn, a session) as one step. */
  decideFiles(files: FileReview[], decision: Exclude<Decision, 'pending'>): Promise<LandResult> {
    const live = files.filter(isLive);
    for (const file of live) setAllDecisions(file, decision);
    if (decision === 'rejected') {
      for (const sessionId of unique(live.map((f) => f.sessionId))) {
        const paths = live.filter((f) => f.sessionId === sessionId).map((f) => f.path);
        this.note(sessionId, `rejected your changes to ${paths.join(', ')}`);
      }
    }
    return this.land(live);
  }

  /**
   * Reverts everything a turn put in the person's tree, as a set, and leaves a
   * note for the agent's next prompt so it does not build on changes that are gone.
   */
  async undoTurn(sessionId: string, turnId: string): Promise<LandResult> {
    const files = this.inTurn(sessionId, turnId).filter(isLive);
    for (const file of files) setAllDecisions(file, 'rejected');
    const result = await this.land(files);
    for (const file of result.landed) file.undone = true;
    if (result.landed.length > 0) {
      this.note(
        sessionId,
        `undid turn ${turnId}: ${result.landed.map((f) => f.path).join(', ')} ${result.landed.length === 1 ? 'is' : 'are'} back to ${result.landed.length === 1 ? 'its' : 'their'} state before that turn`,
      );
    }
    this.changed();
    return result;
  }

  /**
   * The note for the agent's next prompt, once: what the person rejected or
   * undid since the last prompt. `undefined` when there is nothing to say.
   */
  takeContextNote(sessionId: string): string | undefined {
    const lines = this.notes.get(sessionId);
    this.notes.delete(sessionId);
    if (!lines || lines.length === 0) return undefined;
    return [
      'Review note from the person (Accord): since your last turn the person',
      ...lines.map((line) => `- ${line}`),
      'Those changes are not in their files; read a file again before building on it.',
    ].join('\n');
  }

  /** Removes the reviews of a session (it was closed). Nothing in the tree changes. */
  forgetSession(sessionId: string): void {
    for (const file of this.inSession(sessionId)) this.files.delete(file.id);
    this.notes.delete(sessionId);
    this.changed();
  }

  private land(files: FileReview[]): Promise<LandResult> {
    const run = this.queue.then(() => this.landNow(files));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async landNow(files: FileReview[]): Promise<LandResult> {
    const result: LandResult = { landed: [], conflicts: [] };
    try {
      for (const file of files) {
        if (await this.landFile(file)) result.landed.push(file);
        else result.conflicts.push(file);
      }
    } finally {
      this.changed();
    }
    return result;
  }

  /** Lands one file's decisions: every path merges cleanly, or nothing is written. */
  private async landFile(file: FileReview): Promise<boolean> {
    const desired = desiredTree(file);
    const writes: [string, Content][] = [];
    for (const [path, wanted] of desired) {
      const landed = file.landed.has(path) ? file.landed.get(path)! : wanted;
      const current = await this.tree.read(path);
      const merged = mergeContent(landed, current, wanted);
      if (merged.conflict) {
        file.conflict = `${path}: ${merged.conflict}`;
        return false;
      }
      if (!sameContent(merged.content, current)) writes.push([path, merged.content]);
    }
    for (const [path, content] of writes) await this.tree.write(path, content);
    for (const [path, wanted] of desired) file.landed.set(path, wanted);
    file.conflict = undefined;
    return true;
  }

  private note(sessionId: string, line: string): void {
    const lines = this.notes.get(sessionId) ?? [];
    lines.push(line);
    this.notes.set(sessionId, lines);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/**
 * Three-way on whole contents: `landed` is what the review last put there,
 * `current` what is there now, `wanted` what the decisions ask for.
 */
function mergeContent(landed: Content, current: Content, wanted: Content): { content: Content; conflict?: string } {
  if (sameContent(current, landed) || sameContent(current, wanted)) return { content: wanted };
  if (sameContent(landed, wanted)) return { content: current };
  const texts = [landed, current, wanted].map((c) => (c === null ? undefined : decodeText(c)));
  const [landedText, currentText, wantedText] = texts;
  if (landed === null || current === null || wanted === null) {
    return { content: current, conflict: 'the file was created or deleted outside the review since the change was made; nothing was written' };
  }
  if (landedText === undefined || currentText === undefined || wantedText === undefined) {
    return { content: current, conflict: 'the binary file changed since the change was made; nothing was written' };
  }
  const merged = merge3(landedText, currentText, wantedText);
  if (!merged.clean) {
    const lines = merged.conflicts.map((c) => c.ancestorStart + 1).join(', ');
    return { content: current, conflict: `your own edits touch the same lines (near line ${lines}); nothing was written` };
  }
  return { content: new TextEncoder().encode(merged.text) };
}

export function sameContent(a: Content, b: Content): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A review that can still take decisions: not undone, not continued by a later turn. */
export function isLive(file: FileReview): boolean {
  return !file.undone && file.supersededBy === undefined;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
