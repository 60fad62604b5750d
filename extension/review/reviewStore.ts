// Every change under review, grouped session → turn → file, and the decisions
// on them. A turn holds only its own hunks, against the agent's text before
// that turn. Decisions land one hunk at a time through a `RealTree`, never
// overwriting the person's own edits: a hunk that clashes is a conflict (and
// says why), the others land. Pure; the VS Code tree is an adapter.
import {
  createFileReview,
  decideOpen,
  desiredTree,
  hunkDecision,
  hunkState,
  isPending,
  kindOf,
  landsPerHunk,
  setAllDecisions,
  setHunkDecision,
  updateFileReview,
  wantsLanded,
  fileId,
  type Content,
  type Decision,
  type FileReview,
  type ProposedChange,
} from './fileReview';
import { hasConflictMarkers, merge3, mergeWithMarkers } from './merge3';
import { composeText, decodeText, hunkKey } from './hunks';

/** The person's files as the review reads and writes them. */
export interface RealTree {
  /** Current content, unsaved editor text included; `null` when absent. */
  read(path: string): Promise<Content>;
  /** Replaces the content (`null` deletes). Open documents change through the editor so it joins undo. */
  write(path: string, content: Content): Promise<void>;
}

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

type Listener = () => void;

export class ReviewStore {
  private readonly files = new Map<string, FileReview>();
  private readonly notes = new Map<string, string[]>();
  private readonly listeners = new Set<Listener>();
  /** Ids of files whose decisions are being written. */
  private readonly landing = new Set<string>();
  /** Landing is serialised: two decisions on one file never interleave their reads and writes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly tree: RealTree) {}

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
      file.undone = still.size === 0 && file.conflict === undefined;
      const was = before.get(file.id)!;
      const reverted = [...was].filter((i) => !still.has(i)).length;
      const dropped = open.get(file.id)!.length;
      const name = file.path;
      if (!landsPerHunk(file)) {
        if (file.undone) lines.push(`${name}: your ${kindOf(file) === 'modified' ? 'change' : kindOf(file) + ' file'} from that turn is not in the person's files`);
        else lines.push(`${name}: could not be undone (${file.conflict ?? 'it changed since'}); it is still in the person's files as it was`);
        continue;
      }
      const parts: string[] = [];
      if (reverted > 0) parts.push(`${count(reverted, 'change')} reverted`);
      if (dropped > 0) parts.push(`${count(dropped, 'change')} never applied, now rejected`);
      if (still.size > 0) parts.push(`${count(still.size, 'change')} could not be reverted because the person edited the same lines, so ${still.size === 1 ? 'it is' : 'they are'} still in their file`);
      if (parts.length > 0) lines.push(`${name}: ${parts.join('; ')}`);
    }
    if (lines.length > 0) {
      this.note(sessionId, `undid turn ${turnId} (only that turn's changes; changes from other turns are kept):`);
      for (const line of lines) this.note(sessionId, `  ${line}`);
    }
    this.changed();
    return result;
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
    return [
      'Review note from the person (Accord): since your last turn the person',
      ...lines.map((line) => (line.startsWith('  ') ? `  - ${line.trim()}` : `- ${line}`)),
      'Rejected and reverted changes are not in their files. Your own copy keeps your version of a file unless this note says it was reset; read a file again before building on it.',
    ].join('\n');
  }

  /** Removes the reviews of a session (it was closed). Nothing in the tree changes. */
  forgetSession(sessionId: string): void {
    for (const file of this.inSession(sessionId)) this.files.delete(file.id);
    this.notes.delete(sessionId);
    this.changed();
  }

  private noteRejected(file: FileReview, indices: number[]): void {
    const rejected = indices.filter((i) => hunkState(file, i) === 'rejected');
    if (!landsPerHunk(file)) {
      if (file.hunks.every((_, i) => hunkDecision(file, i) === 'rejected') && file.wholeDecision !== 'accepted') {
        this.note(file.sessionId, `rejected your ${kindOf(file) === 'modified' ? 'changes to' : kindOf(file) + ' file'} ${file.path}`);
      } else if (rejected.length > 0) this.note(file.sessionId, `rejected ${count(rejected.length, 'change')} in ${file.path}`);
      return;
    }
    if (rejected.length === 0) return;
    const where = rejected.map((i) => describeHunk(file, i)).join('; ');
    this.note(file.sessionId, `rejected ${count(rejected.length, 'change')} in ${file.path} (not applied): ${where}`);
  }

  /**
   * Starts reviewing a file in place: its pending hunks are written into the
   * file (each through the three-way merge; one that clashes with the
   * person's edits stays pending in the diff), then Keep accepts a hunk where
   * it is and Undo takes it out again.
   */
  async reviewInFile(file: FileReview): Promise<LandResult> {
    if (!landsPerHunk(file)) {
      return { landed: [], conflicts: [], refused: [{ file, why: `a ${file.binary ? 'binary' : kindOf(file)} file is reviewed as a whole in the diff editor` }] };
    }
    if (!isPending(file)) return { landed: [], conflicts: [], refused: [{ file, why: 'every change in it is already decided' }] };
    file.inFile = true;
    return this.land([file]);
  }

  /**
   * Keep on a hunk the person edited in the file: their version is what is
   * there, so nothing is written; the hunk is accepted and the agent's next
   * prompt says what the person made of its change.
   */
  keepEdited(file: FileReview, index: number, text: string): LandResult {
    const hunk = file.hunks[index];
    if (!hunk || hunkState(file, index) !== 'pending' || !file.landedHunks.has(hunkKey(hunk))) {
      return { landed: [], conflicts: [], refused: [{ file, why: 'that change is not pending in the file' }] };
    }
    setHunkDecision(file, index, 'accepted');
    const shown = text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
    this.note(file.sessionId, `accepted your change at ${describeHunk(file, index)} in ${file.path} after editing it; the person's version there reads:\n\`\`\`\n${shown}${shown.endsWith('\n') ? '' : '\n'}\`\`\``);
    this.changed();
    return { landed: [file], conflicts: [] };
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

  /** Whether a decision on this file is being written right now (the UI says "applying" rather than showing stale actions). */
  isLanding(file: FileReview): boolean {
    return this.landing.has(file.id);
  }

  private land(files: FileReview[]): Promise<LandResult> {
    // Listeners hear of the decision at once, and again once it is in the tree.
    for (const file of files) this.landing.add(file.id);
    if (files.length > 0) this.changed();
    const run = this.queue.then(() => this.landNow(files));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async landNow(files: FileReview[]): Promise<LandResult> {
    const result: LandResult = { landed: [], conflicts: [] };
    try {
      for (const file of files) {
        const clean = landsPerHunk(file) ? await this.landHunks(file) : await this.landWhole(file);
        if (clean) result.landed.push(file);
        else result.conflicts.push(file);
      }
    } finally {
      for (const file of files) this.landing.delete(file.id);
      this.changed();
    }
    return result;
  }

  /**
   * Moves the tree toward the decisions one hunk at a time, each through a
   * three-way merge: ancestor = the review's base with the hunks it has landed,
   * ours = the file now (unsaved edits included), theirs = that with this one
   * hunk added or taken out. A hunk that clashes with the person's edits stays
   * a conflict; the others land. Nothing outside the hunks is touched.
   */
  private async landHunks(file: FileReview): Promise<boolean> {
    // A conflict being finished between markers in the file waits for the person, whatever else is decided.
    const moving = file.hunks
      .map((h, i) => ({ key: hunkKey(h), index: i }))
      .filter(({ key, index }) => file.landedHunks.has(key) !== wantsLanded(file, index) && !file.resolving.has(key));
    for (const key of [...file.hunkConflicts.keys()]) if (!file.resolving.has(key)) file.hunkConflicts.delete(key);
    file.conflict = file.resolving.size > 0 ? resolvingText(file) : undefined;
    if (moving.length === 0) return file.resolving.size === 0;
    const current = await this.tree.read(file.path);
    const currentText = current === null ? undefined : decodeText(current);
    if (currentText === undefined) {
      const why = current === null ? 'the file no longer exists in your folder' : 'the file is binary now';
      for (const { key } of moving) file.hunkConflicts.set(key, `${why}; nothing was written`);
      file.conflict = `${file.path}: ${why}; nothing was written`;
      return false;
    }
    let text = currentText;
    const near: number[] = [];
    for (const { key, index } of moving) {
      const landed = landedIndices(file);
      const ancestor = composeText(file.baseText, file.hunks, landed);
      if (landed.has(index)) landed.delete(index);
      else landed.add(index);
      const target = composeText(file.baseText, file.hunks, landed);
      const merged = merge3(ancestor, text, target);
      if (merged.clean) {
        text = merged.text;
        if (file.landedHunks.has(key)) file.landedHunks.delete(key);
        else file.landedHunks.add(key);
        continue;
      }
      const line = (merged.conflicts[0]?.ancestorStart ?? 0) + 1;
      near.push(line);
      const also = file.builtOn !== undefined ? ', or it builds on a change from an earlier turn that is not in your file' : '';
      file.hunkConflicts.set(key, `your own edits touch the same lines (near line ${line})${also}; this change was not ${wantsLanded(file, index) ? 'applied' : 'taken out'}`);
    }
    if (text !== currentText) await this.tree.write(file.path, new TextEncoder().encode(text));
    file.landed.set(file.path, new TextEncoder().encode(composeText(file.baseText, file.hunks, landedIndices(file))));
    if (file.resolving.size > 0) return false;
    if (near.length > 0) {
      const done = moving.length - near.length;
      const first = [...file.hunkConflicts.values()][0]!;
      const more = near.length > 1 ? ` (${near.length - 1} more near line ${near.slice(1).join(', ')})` : '';
      file.conflict = `${first}${more}${done > 0 ? `; ${count(done, 'other change')} landed` : ''}`;
      return false;
    }
    return true;
  }

  /** Lands a whole-file decision (binary, move, addition, deletion): every path merges cleanly, or nothing is written. */
  private async landWhole(file: FileReview): Promise<boolean> {
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

  /**
   * Finishes a conflict in the file itself: the hunk's region is written with
   * the person's lines and the change between conflict markers, for VS Code's
   * Accept Current / Incoming / Both. The hunk stays a conflict until no
   * markers are left (`settleResolutions`). A hunk that merges cleanly by now
   * simply lands.
   */
  resolveInFile(file: FileReview, index: number): Promise<{ written: boolean; why?: string }> {
    const run = this.queue.then(() => this.resolveNow(file, index));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async resolveNow(file: FileReview, index: number): Promise<{ written: boolean; why?: string }> {
    const hunk = file.hunks[index];
    if (!hunk || hunkState(file, index) !== 'conflict') return { written: false, why: 'that change is not a conflict (any more)' };
    if (!landsPerHunk(file)) return { written: false, why: `a ${file.binary ? 'binary' : kindOf(file)} file is decided as a whole: make the file as you want it, then accept or reject it again` };
    const key = hunkKey(hunk);
    if (file.resolving.has(key)) return { written: false, why: 'its conflict markers are already in the file' };
    const current = await this.tree.read(file.path);
    const currentText = current === null ? undefined : decodeText(current);
    if (currentText === undefined) return { written: false, why: current === null ? 'the file no longer exists in your folder' : 'the file is binary now' };
    const landed = landedIndices(file);
    const ancestor = composeText(file.baseText, file.hunks, landed);
    if (landed.has(index)) landed.delete(index);
    else landed.add(index);
    const target = composeText(file.baseText, file.hunks, landed);
    const merged = mergeWithMarkers(ancestor, currentText, target, { ours: 'Your version', theirs: `Agent's ${wantsLanded(file, index) ? 'change' : 'undo'} (turn ${file.turnId})` });
    if (merged.conflicts === 0) {
      await this.landNow([file]);
      return { written: true };
    }
    await this.tree.write(file.path, new TextEncoder().encode(merged.text));
    file.resolving.add(key);
    file.hunkConflicts.set(key, 'being finished in the file: pick Accept Current Change, Accept Incoming Change or Accept Both on the conflict markers');
    file.conflict = resolvingText(file);
    this.changed();
    return { written: true };
  }

  /**
   * The person edited `path`: conflicts finished between markers there are
   * decided once no markers are left — accepted (and in the file) when the
   * agent's lines are there, rejected when the person kept theirs.
   */
  settleResolutions(path: string, text: string): void {
    if (hasConflictMarkers(text)) return;
    let settled = false;
    for (const file of this.all()) {
      if (file.path !== path || file.resolving.size === 0) continue;
      file.hunks.forEach((hunk, index) => {
        const key = hunkKey(hunk);
        if (!file.resolving.has(key)) return;
        const kept = hunk.proposedLines.length > 0 ? text.includes(hunk.proposedLines.join('')) : !text.includes(hunk.baseLines.join(''));
        file.resolving.delete(key);
        file.hunkConflicts.delete(key);
        setHunkDecision(file, index, kept ? 'accepted' : 'rejected');
        if (kept) file.landedHunks.add(key);
        else file.landedHunks.delete(key);
        this.note(file.sessionId, `finished a conflict in ${file.path} by hand: your change at ${describeHunk(file, index)} was ${kept ? 'kept' : 'not kept (the person kept their own lines)'}`);
        settled = true;
      });
      file.conflict = file.resolving.size > 0 ? resolvingText(file) : file.hunkConflicts.size > 0 ? [...file.hunkConflicts.values()][0] : undefined;
      file.landed.set(file.path, new TextEncoder().encode(composeText(file.baseText, file.hunks, landedIndices(file))));
    }
    if (settled) this.changed();
  }

  /** Paths with conflicts being finished between markers. */
  resolvingPaths(): Set<string> {
    return new Set(this.all().filter((f) => f.resolving.size > 0).map((f) => f.path));
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

function resolvingText(file: FileReview): string {
  return `${count(file.resolving.size, 'conflict')} being finished in the file: pick a side on the conflict markers`;
}

/** Indices of the hunks this review has in the tree. */
function landedIndices(file: FileReview): Set<number> {
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

/** Where a hunk is in the agent's version and how it starts, for the agent's note. */
function describeHunk(file: FileReview, index: number): string {
  const hunk = file.hunks[index]!;
  const first = (hunk.proposedLines[0] ?? hunk.baseLines[0] ?? '').trim();
  const excerpt = first.length > 60 ? `${first.slice(0, 60)}…` : first;
  const what = hunk.proposedLines.length === 0 ? 'removing' : 'at';
  return `line ${hunk.proposedStart + 1} (${what} "${excerpt}")`;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
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
