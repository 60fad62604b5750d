// Third-party agents that write straight to disk (the Claude adapter, Codex,
// opencode…). The extension cannot stop the write, so it keeps what each file
// was before the agent could touch it: at turn start for files already known,
// and, before a tool call runs (when it is announced and again when it asks
// for permission), for every path it names. A folder as a location, or a
// command, gets a folder snapshot: every file under it (within limits). A file
// watcher reports the writes; each becomes a change against its snapshot, and
// rejecting it puts the snapshot back.
//
// A call first seen already finished was never snapshotted: its diff's
// oldText is only the agent's claim (unverifiedBase.ts). It is the base only
// when it agrees with git's version of the file; otherwise the review says
// the "before" is unknown and Reject leaves the file as it is.
//
// Everything is kept per session: one agent's locations, snapshots and
// failures never reach another session's turn. A snapshot that cannot be
// taken is recorded with its reason and blocks nothing else.
import { desiredTree, fileId, type Content } from './fileReview';
import { commandCwd, diffBlocks, isFinished, mayWriteAnywhere, touchedPaths, type ChangeSink, type ToolCallFacts, type TurnAwareSource } from './changeSource';
import { sameContent } from './contentMerge';
import type { RealTree } from './landing';
import { isUnder, linkOnTheWay, listTree, pathKind, unsnapshottable, type PathKind } from './treeSnapshot';
import { mapFor } from './innerMap';
import { judgeBase, type Claim, type UnverifiedBase } from './unverifiedBase';
import type { GitVersion } from './gitVersion';

interface ActiveTurn {
  turnId: string;
  /** Date.now() when the turn began. */
  startedAt: number;
  /** path → content before the agent's change (the earliest one taken in this turn). */
  snapshots: Map<string, Content>;
  /** Folders whose files all have snapshots: a file that appears under one is this turn's addition. */
  trees: Set<string>;
  /** path → why its snapshot could not be taken. */
  failed: Map<string, string>;
  /** Paths (files or folders) whose snapshot is being taken: nothing under them may be claimed as new meanwhile. */
  taking: Map<string, Promise<SnapshotFailure[]>>;
  /** Files a call first seen finished wrote, whose "before" nobody saw: what the diff shows and what could be put back. */
  unverified: Map<string, { shown: Content; facts: UnverifiedBase }>;
}

/** A path whose "before" could not be kept, and why. */
export interface SnapshotFailure {
  path: string;
  why: string;
}

export interface DirectSourceOptions {
  /** Paths worth a snapshot when a turn starts (open documents). */
  knownPaths(): string[];
  /** `now` at `path` is what another source's review of this session put there (a staged write it landed). */
  handledElsewhere?(sessionId: string, path: string, now: Content): boolean;
  /** When the file last changed (ms since the epoch), if known: a late watcher event for a file made before the turn is not the agent's. */
  modifiedAt?(path: string): Promise<number | undefined>;
  /** The folder a command runs in when it names none (the project). */
  projectRoot?(): string | undefined;
  /** What a path is on disk; lstat by default (tests may stand in). */
  pathKind?(path: string): Promise<PathKind>;
  /** A snapshot failed outside any approval (turn start, an announced call): tell the person once. */
  failed?(sessionId: string, failure: SnapshotFailure): void;
  /** The project folder holding `path` (undefined: outside every one). Without it, every path counts as in the project. */
  projectFolder?(path: string): string | undefined;
  /** What the person's git holds for `path`: a version to offer when the agent did not show the file's "before". */
  gitVersion?(path: string): Promise<GitVersion>;
}

export class DirectDiskSource implements TurnAwareSource {
  readonly origin = 'direct' as const;
  private readonly active = new Map<string, ActiveTurn>();
  /** sessionId → its last ended turn: a staged write that arrives late still finds the snapshots. */
  private readonly ended = new Map<string, ActiveTurn>();
  /** sessionId → paths touched in its earlier turns: worth a snapshot at its next turn's start. */
  private readonly touched = new Map<string, Map<string, true>>();

  constructor(
    private readonly sink: ChangeSink,
    private readonly tree: RealTree,
    private readonly options: DirectSourceOptions,
  ) {}

  async beginTurn(sessionId: string, turnId: string): Promise<void> {
    const turn: ActiveTurn = { turnId, startedAt: Date.now(), snapshots: new Map(), trees: new Set(), failed: new Map(), taking: new Map(), unverified: new Map() };
    this.ended.delete(sessionId);
    const touched = new Set(this.touched.get(sessionId)?.keys() ?? []);
    // Files only: a folder touched before gets its snapshot again when a call names it. An open
    // document that cannot be kept (a link the person opened) is only worth a word once the agent names it.
    for (const path of new Set([...this.options.knownPaths(), ...touched])) {
      const failures = await this.snapshot(turn, path, false);
      if (touched.has(path)) this.report(sessionId, failures);
    }
    // Active only once the snapshots exist: a watcher event in between must not be taken for the agent's.
    this.active.set(sessionId, turn);
  }

  async toolCall(sessionId: string, turnId: string, call: ToolCallFacts): Promise<void> {
    const turn = this.turnOf(sessionId, turnId);
    if (!turn) return;
    if (!isFinished(call)) {
      this.report(sessionId, await this.prepareTurn(sessionId, turn, call));
    } else {
      // Once it ran, the agent's own oldText is only a claim about what was there (one per edit of the file).
      const claims = new Map<string, Claim[]>();
      for (const { path, oldText, newText } of diffBlocks(call)) claims.set(path, [...(claims.get(path) ?? []), { oldText, newText }]);
      for (const [path, claim] of claims) {
        this.remember(sessionId, path);
        if (!turn.snapshots.has(path) && !turn.failed.has(path) && !turn.unverified.has(path)) this.report(sessionId, await this.judgeUnseen(turn, path, claim));
      }
      for (const path of touchedPaths(call)) {
        this.remember(sessionId, path);
        await this.collectPath(sessionId, turn, path);
      }
    }
  }

  /**
   * Before a permission request is answered: every path the call may write
   * has its "before". Returns what could not be kept (empty: all reviewable).
   */
  async prepare(sessionId: string, turnId: string, call: ToolCallFacts): Promise<SnapshotFailure[]> {
    const turn = this.turnOf(sessionId, turnId);
    if (!turn) return [{ path: '(this call)', why: 'no turn of this session is running, so nothing was snapshotted' }];
    try {
      return await this.prepareTurn(sessionId, turn, call);
    } catch (error) {
      // Kept as each path's failure, so the call's completion cannot take its oldText: null for "absent".
      const why = error instanceof Error ? error.message : String(error);
      const failures = touchedPaths(call).filter((path) => !turn.snapshots.has(path) && !turn.trees.has(path)).flatMap((path) => this.fail(turn, path, why));
      return failures.length > 0 ? failures : [{ path: '(this call)', why }];
    }
  }

  /** The earliest "before" this session's running turn holds for `path` (a staged write of the same file uses it). */
  snapshotOf(sessionId: string, path: string): { content: Content } | undefined {
    const turn = this.active.get(sessionId) ?? this.ended.get(sessionId);
    return turn?.snapshots.has(path) ? { content: turn.snapshots.get(path)! } : undefined;
  }

  /** Keeps `content` as `path`'s "before" in the session's running turn, unless an earlier one is kept. */
  keep(sessionId: string, path: string, content: Content): void {
    const turn = this.active.get(sessionId);
    if (!turn || turn.snapshots.has(path)) return;
    turn.snapshots.set(path, content);
    this.remember(sessionId, path);
  }

  /** Why the running turn of `sessionId` could not keep `path`'s "before", if it could not. */
  failureOf(sessionId: string, path: string): string | undefined {
    return this.active.get(sessionId)?.failed.get(path);
  }

  /**
   * The file watcher saw `path` created, changed or deleted. Attributed to a
   * running turn that has a snapshot of it, or a folder snapshot around it. A
   * file created with no snapshot is an addition when exactly one direct turn
   * is running (otherwise whose it is cannot be told). A change to a file with
   * no snapshot has no known base and is left alone.
   */
  async fileChanged(path: string, event: 'created' | 'changed' | 'deleted'): Promise<void> {
    const held = (turn: ActiveTurn) => turn.snapshots.has(path) || turn.unverified.has(path);
    const claimed = [...this.active].filter(([, turn]) => held(turn) || [...turn.trees].some((dir) => isUnder(dir, path)));
    if (claimed.length > 0) {
      // New under a folder whose every regular file was kept: an addition, unless it is a link or folder the snapshot left out.
      const kind = claimed.some(([, turn]) => !held(turn)) ? await (this.options.pathKind ?? pathKind)(path).catch(() => 'other' as const) : 'file';
      for (const [sessionId, turn] of claimed) {
        if (!held(turn)) {
          if (kind !== 'file' || !(await this.madeDuring(turn, path))) continue;
          this.claimNew(turn, path);
          if (!turn.snapshots.has(path)) continue; // its snapshot is still being taken: the call's completion collects it
        }
        await this.collect(sessionId, turn, path);
      }
      return;
    }
    if (event !== 'created' || this.active.size !== 1) return;
    const [sessionId, turn] = [...this.active][0]!;
    // Only a new regular file can be an addition: agents make folders too (codex-acp makes .codex and .agents where its command runs).
    if ((await (this.options.pathKind ?? pathKind)(path).catch(() => 'other' as const)) !== 'file') return;
    const now = await this.tree.read(path);
    if (now === null || !(await this.madeDuring(turn, path))) return;
    // "Created" is the watcher's word, not proof the path was empty (an atomic write over a file is reported
    // so too): a file git tracks is taken as one whose "before" nobody saw, never as the agent's addition.
    const git = await this.gitOf(path);
    if (git?.tracked === true && this.unclaimed(turn, path)) {
      turn.unverified.set(path, { shown: git.content, facts: { shown: 'git', git: { content: git.content, from: git.from } } });
      this.remember(sessionId, path);
      await this.collect(sessionId, turn, path);
      return;
    }
    if (!this.claimNew(turn, path)) {
      // A call's snapshot was taken while this event was looked at: that is the file's "before".
      if (turn.snapshots.has(path)) await this.collect(sessionId, turn, path);
      return;
    }
    this.remember(sessionId, path);
    await this.collect(sessionId, turn, path);
  }

  async endTurn(sessionId: string, turnId: string): Promise<void> {
    const turn = this.turnOf(sessionId, turnId);
    if (!turn) return;
    // Files that appeared under a kept folder and the watcher has not reported (yet).
    for (const dir of turn.trees) await this.newFilesUnder(turn, dir);
    for (const path of new Set([...turn.snapshots.keys(), ...turn.unverified.keys()])) await this.collect(sessionId, turn, path);
    this.active.delete(sessionId);
    this.ended.set(sessionId, turn);
  }

  forgetSession(sessionId: string): void {
    this.active.delete(sessionId);
    this.ended.delete(sessionId);
    this.touched.delete(sessionId);
  }

  private turnOf(sessionId: string, turnId: string): ActiveTurn | undefined {
    const turn = this.active.get(sessionId);
    return turn && turn.turnId === turnId ? turn : undefined;
  }

  /** Snapshots of every path a call that has not run yet may write. */
  private async prepareTurn(sessionId: string, turn: ActiveTurn, call: ToolCallFacts): Promise<SnapshotFailure[]> {
    const failures: SnapshotFailure[] = [];
    for (const path of touchedPaths(call)) {
      this.remember(sessionId, path);
      failures.push(...(await this.snapshot(turn, path, true)));
    }
    if (mayWriteAnywhere(call)) {
      // Its working folder: the one it names, else a folder among its locations (already kept above), else the project.
      const named = commandCwd(call);
      if (named === undefined && touchedPaths(call).some((p) => turn.trees.has(p))) return failures;
      const dir = named ?? this.options.projectRoot?.();
      if (dir === undefined) failures.push({ path: '(working folder)', why: 'the call names no folder and no project is open' });
      else failures.push(...(await this.snapshot(turn, dir, true)));
    }
    return failures;
  }

  /** Keeps `path`'s "before" in the turn (the first one taken wins); a folder keeps each file under it. */
  private async snapshot(turn: ActiveTurn, path: string, folders: boolean): Promise<SnapshotFailure[]> {
    if (turn.snapshots.has(path) || turn.trees.has(path)) return [];
    // Asked again while it is being taken: the same answer, once the snapshot exists.
    const under = turn.taking.get(path);
    if (under) return under;
    const taking = this.takeSnapshot(turn, path, folders).finally(() => turn.taking.delete(path));
    turn.taking.set(path, taking);
    return taking;
  }

  private async takeSnapshot(turn: ActiveTurn, path: string, folders: boolean): Promise<SnapshotFailure[]> {
    try {
      const kind = await (this.options.pathKind ?? pathKind)(path);
      const why = unsnapshottable(kind);
      if (why) return this.fail(turn, path, why);
      if (kind === 'directory') return folders ? await this.snapshotFolder(turn, path) : [];
      turn.snapshots.set(path, kind === 'missing' ? null : await this.tree.read(path));
      turn.failed.delete(path);
      return [];
    } catch (error) {
      return this.fail(turn, path, error instanceof Error ? error.message : String(error));
    }
  }

  private async snapshotFolder(turn: ActiveTurn, dir: string): Promise<SnapshotFailure[]> {
    const listing = await listTree(dir);
    if (listing.tooBig) return this.fail(turn, dir, `Accord keeps no copy of a folder this big (${listing.tooBig})`);
    const failures: SnapshotFailure[] = [];
    for (const file of listing.files) {
      if (turn.snapshots.has(file)) continue;
      try {
        turn.snapshots.set(file, await this.tree.read(file));
      } catch (error) {
        failures.push(...this.fail(turn, file, error instanceof Error ? error.message : String(error)));
      }
    }
    turn.trees.add(dir);
    turn.failed.delete(dir);
    return failures;
  }

  /** Files under a kept folder that it did not hold and that were made during the turn: the agent's additions. */
  private async newFilesUnder(turn: ActiveTurn, dir: string): Promise<void> {
    const listing = await listTree(dir).catch(() => undefined);
    for (const file of listing?.files ?? []) {
      if (!turn.snapshots.has(file) && (await this.madeDuring(turn, file))) this.claimNew(turn, file);
    }
  }

  /**
   * Whether a file with no snapshot was made after the turn began, so it may be the agent's. Whole
   * milliseconds on both sides: a file the person wrote in the same millisecond the turn began is
   * theirs (no agent acts that fast), so equal means before. A file whose time cannot be read is not
   * claimed. Without a clock (unit tests), every file counts.
   */
  private async madeDuring(turn: ActiveTurn, path: string): Promise<boolean> {
    if (!this.options.modifiedAt) return true;
    const modified = await this.options.modifiedAt(path).catch(() => undefined);
    return modified !== undefined && modified > turn.startedAt;
  }

  /**
   * Takes `path` as made by the agent during the turn (its "before" is absent). Decided only now, after
   * the caller's awaits: a snapshot taken or begun meanwhile (a call naming the file, answered before
   * the agent could write) is the real "before", and a path that could not be kept stays unreviewable.
   * Taking either as absent would make Reject delete the person's file.
   */
  private claimNew(turn: ActiveTurn, path: string): boolean {
    if (!this.unclaimed(turn, path)) return false;
    turn.snapshots.set(path, null);
    return true;
  }

  /** No "before" of `path` is kept, failed, unverified or being taken. */
  private unclaimed(turn: ActiveTurn, path: string): boolean {
    if (turn.snapshots.has(path) || turn.failed.has(path) || turn.unverified.has(path)) return false;
    return ![...turn.taking.keys()].some((taken) => taken === path || isUnder(taken, path));
  }

  /** Git's version of a path in the project (none outside it, or without git). */
  private async gitOf(path: string): Promise<GitVersion | undefined> {
    if (this.options.projectFolder && this.options.projectFolder(path) === undefined) return undefined;
    return this.options.gitVersion?.(path).catch((error: Error) => ({ tracked: 'unknown' as const, why: error.message }));
  }

  private fail(turn: ActiveTurn, path: string, why: string): SnapshotFailure[] {
    turn.failed.set(path, why);
    return [{ path, why }];
  }

  private report(sessionId: string, failures: SnapshotFailure[]): void {
    for (const failure of failures) this.options.failed?.(sessionId, failure);
  }

  private remember(sessionId: string, path: string): void {
    mapFor(this.touched, sessionId).set(path, true);
  }

  private async collectPath(sessionId: string, turn: ActiveTurn, path: string): Promise<void> {
    if (turn.trees.has(path)) {
      await this.newFilesUnder(turn, path);
      for (const file of [...turn.snapshots.keys()].filter((f) => isUnder(path, f))) await this.collect(sessionId, turn, file);
      return;
    }
    if (turn.snapshots.has(path) || turn.unverified.has(path)) await this.collect(sessionId, turn, path);
  }

  /**
   * A file a call first seen finished wrote, with no snapshot: its "before" is
   * known only when a folder kept whole lacked it (absent then) or the agent's
   * claim equals git's version; otherwise it is kept as unverified. A link, or a
   * folder, on the way is not reviewed at all. Returns what could not be kept.
   */
  private async judgeUnseen(turn: ActiveTurn, path: string, claims: Claim[]): Promise<SnapshotFailure[]> {
    const kind = await (this.options.pathKind ?? pathKind)(path).catch(() => 'other' as const);
    const folder = this.options.projectFolder?.(path);
    const inProject = !this.options.projectFolder || folder !== undefined;
    const why = kind === 'file' || kind === 'missing' ? await linkOnTheWay(path, folder).catch((error: Error) => error.message) : (unsnapshottable(kind) ?? 'it is a folder');
    if (why) return this.fail(turn, path, why);
    if (kind === 'file' && [...turn.trees].some((dir) => isUnder(dir, path)) && (await this.madeDuring(turn, path)) && this.claimNew(turn, path)) return [];
    let now: Content;
    try {
      now = await this.tree.read(path);
    } catch (error) {
      return this.fail(turn, path, error instanceof Error ? error.message : String(error));
    }
    const git = await this.gitOf(path);
    // Taken meanwhile (a watcher event, another call): that "before" stands.
    if (!this.unclaimed(turn, path)) return [];
    const judged = judgeBase(claims, now, git, inProject);
    if ('known' in judged) turn.snapshots.set(path, judged.known);
    else turn.unverified.set(path, { shown: judged.shown, facts: judged.unverified });
    return [];
  }

  private async collect(sessionId: string, turn: ActiveTurn, path: string): Promise<void> {
    // An unverified "before" counts only while no real one is kept (a later call's snapshot is the agent's own text).
    const unverified = turn.snapshots.has(path) ? undefined : turn.unverified.get(path);
    if (!turn.snapshots.has(path) && !unverified) return;
    const base = unverified ? unverified.shown : (turn.snapshots.get(path) ?? null);
    let now: Content;
    try {
      now = await this.tree.read(path);
    } catch {
      return; // became a folder or unreadable: nothing to review as a file
    }
    if (this.options.handledElsewhere?.(sessionId, path, now)) return;
    const existing = this.sink.get(fileId({ sessionId, turnId: turn.turnId, path }));
    // The review's own writes (a rejection restoring the snapshot) come back
    // through the watcher; they are not the agent's. The event can come before
    // the review has recorded the write as landed, so what its decisions ask
    // for counts as its own too.
    if (existing && (sameContent(existing.landed.get(path) ?? null, now) || sameContent(desiredTree(existing).get(path) ?? null, now))) return;
    if (!existing && sameContent(base, now)) return;
    this.sink.propose({ origin: 'direct', sessionId, turnId: turn.turnId, path, base, proposed: now, ...(unverified ? { unverified: unverified.facts } : {}) });
  }

  dispose(): void {
    this.active.clear();
    this.ended.clear();
    this.touched.clear();
  }
}
