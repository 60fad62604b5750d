// Third-party agents that write straight to disk (the Claude adapter, Codex…).
// The extension cannot stop the write, so it keeps what the file was: a
// snapshot at turn start for files already known, and on each tool call for
// the paths it names (the diff's `oldText` when the agent sends one). A file
// watcher reports the writes; each becomes a change against its snapshot, and
// rejecting it puts the snapshot back.
import { fileId, type Content } from './fileReview';
import { diffBlocks, isFinished, touchedPaths, type ChangeSink, type ToolCallFacts, type TurnAwareSource } from './changeSource';
import { sameContent, type RealTree } from './reviewStore';

interface ActiveTurn {
  turnId: string;
  /** Date.now() when the turn began. */
  startedAt: number;
  /** path → content before the agent's change. */
  snapshots: Map<string, Content>;
}

export interface DirectSourceOptions {
  /** Paths worth a snapshot when a turn starts (open documents, files touched earlier). */
  knownPaths(): string[];
  /** A path another source already reviews for this session (a staged write the review itself landed). */
  handledElsewhere?(sessionId: string, path: string): boolean;
  /** When the file last changed (ms since the epoch), if known: a late watcher event for a file made before the turn is not the agent's. */
  modifiedAt?(path: string): Promise<number | undefined>;
}

export class DirectDiskSource implements TurnAwareSource {
  readonly origin = 'direct' as const;
  private readonly active = new Map<string, ActiveTurn>();
  /** Paths touched in earlier turns: worth a snapshot at the next turn's start. */
  private readonly touched = new Set<string>();

  constructor(
    private readonly sink: ChangeSink,
    private readonly tree: RealTree,
    private readonly options: DirectSourceOptions,
  ) {}

  async beginTurn(sessionId: string, turnId: string): Promise<void> {
    const turn: ActiveTurn = { turnId, startedAt: Date.now(), snapshots: new Map() };
    for (const path of new Set([...this.options.knownPaths(), ...this.touched])) {
      turn.snapshots.set(path, await this.tree.read(path));
    }
    // Active only once the snapshots exist: a watcher event in between must not be taken for the agent's.
    this.active.set(sessionId, turn);
  }

  async toolCall(sessionId: string, turnId: string, call: ToolCallFacts): Promise<void> {
    const turn = this.active.get(sessionId);
    if (!turn || turn.turnId !== turnId) return;
    const oldTexts = new Map(diffBlocks(call).map((d) => [d.path, d.oldText]));
    for (const path of touchedPaths(call)) {
      this.touched.add(path);
      if (turn.snapshots.has(path)) continue;
      // Before the call runs, the file on disk is the base. Once it ran, the
      // agent's own oldText is the only record of what was there.
      if (!isFinished(call)) turn.snapshots.set(path, await this.tree.read(path));
      else if (oldTexts.has(path)) {
        const oldText = oldTexts.get(path);
        turn.snapshots.set(path, oldText === null || oldText === undefined ? null : new TextEncoder().encode(oldText));
      }
    }
    if (isFinished(call)) for (const path of touchedPaths(call)) await this.collect(sessionId, turn, path);
  }

  /**
   * The file watcher saw `path` created, changed or deleted. Attributed to a
   * running turn that has a snapshot of it. A file created with no snapshot is
   * an addition when exactly one direct turn is running (otherwise whose it is
   * cannot be told). A change to a file with no snapshot has no known base and
   * is left alone.
   */
  async fileChanged(path: string, event: 'created' | 'changed' | 'deleted'): Promise<void> {
    const claimed = [...this.active].filter(([, turn]) => turn.snapshots.has(path));
    if (claimed.length > 0) {
      for (const [sessionId, turn] of claimed) await this.collect(sessionId, turn, path);
      return;
    }
    if (event !== 'created' || this.active.size !== 1) return;
    const [sessionId, turn] = [...this.active][0]!;
    const now = await this.tree.read(path);
    if (now === null) return;
    const modified = await this.options.modifiedAt?.(path);
    // Whole milliseconds on both sides: a file the person wrote in the same millisecond the turn began
    // is theirs (no agent acts that fast), so equal means before.
    if (modified !== undefined && modified <= turn.startedAt) return;
    turn.snapshots.set(path, null);
    this.touched.add(path);
    await this.collect(sessionId, turn, path);
  }

  async endTurn(sessionId: string, turnId: string): Promise<void> {
    const turn = this.active.get(sessionId);
    if (!turn || turn.turnId !== turnId) return;
    for (const path of turn.snapshots.keys()) await this.collect(sessionId, turn, path);
    this.active.delete(sessionId);
  }

  private async collect(sessionId: string, turn: ActiveTurn, path: string): Promise<void> {
    if (this.options.handledElsewhere?.(sessionId, path)) return;
    const base = turn.snapshots.get(path) ?? null;
    const now = await this.tree.read(path);
    const existing = this.sink.get(fileId({ sessionId, turnId: turn.turnId, path }));
    // The review's own writes (a rejection restoring the snapshot) come back
    // through the watcher; they are not the agent's.
    if (existing ? sameContent(existing.landed.get(path) ?? null, now) : sameContent(base, now)) return;
    this.sink.propose({ origin: 'direct', sessionId, turnId: turn.turnId, path, base, proposed: now });
  }

  dispose(): void {
    this.active.clear();
  }
}
