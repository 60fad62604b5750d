// Connects live agent sessions to the review. Each session gets the change
// source its agent needs: the bundled agent (it lists Accord's
// `_accord/changes/*` methods in `initialize`) works in an isolated workspace; any other agent's
// `fs/write_text_file` is staged and its straight-to-disk writes are caught by
// snapshots and a watcher. Turns come from the session controller, tool calls
// from the update router, and the panel hears what is under review
// (reviewPanelNews.ts).
import * as vscode from 'vscode';
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { diffBlocks, readsOnly, touchedPaths, type ToolCallFacts, type TurnAwareSource } from './changeSource';
import type { DirectDiskSource, SnapshotFailure } from './directSource';
import { servesChanges, type IsolatedWorkspaceSource } from './isolatedSource';
import type { ReviewController } from './reviewController';
import { reviewForPath } from './reviewSummary';
import { ReviewPanelNews } from './reviewPanelNews';
import { pathsToDiscard } from './reviewStates';
import type { StagedWriteSource } from './stagedSource';
import { projectTop } from './projectTop';
import type { HostMessage } from '../../webview/protocol';
import { quotedForNotification } from '../text/agentText';

/** What the wiring needs of an agent: its name, what it advertised, a way to call it. */
export interface ReviewAgent {
  readonly name: string;
  readonly info?: { agentCapabilities?: { _meta?: Record<string, unknown> | null } | null };
  readonly connection?: { agent: { request(method: string, params: unknown): Promise<unknown> } };
}

export interface SessionReviewsDeps {
  review: ReviewController;
  /** The session the panel shows, if any. */
  panelSession(): { sessionId: string; epoch: number } | undefined;
  projectRoot(): string | undefined;
  log(message: string): void;
}

export { servesChanges } from './isolatedSource';

/** The turn id for changes found in a reopened session's copy. */
const RECOVERED_TURN = 'earlier';

interface SessionState {
  agent: ReviewAgent;
  source: TurnAwareSource;
  isolated?: IsolatedWorkspaceSource;
  turns: number;
  /** The running turn, else the last one (a late staged write joins it). */
  turnId: string;
  inTurn: boolean;
  /** toolCallId → path as the agent named it → the ACP diff content, when it sent some. */
  toolPaths: Map<string, Map<string, { path: string; oldText: string | null; newText: string } | undefined>>;
  /** toolCallId → the turn it ran in, so its card shows that turn's review of a file. */
  toolTurns: Map<string, string>;
  /** toolCallId → its kind, as last announced (an update may leave it out). */
  toolKinds: Map<string, string>;
  /** What each tool card's badge last showed. */
  posted: Map<string, string>;
  /**
   * The source sees a session's events one at a time, in order: a call's
   * snapshot (taken when it is announced) must exist before its completion is
   * collected, and the turn ends after its last call.
   */
  queue: Promise<void>;
  /** The person's path for each path the agent named. */
  projectPaths: Map<string, string>;
}

export class SessionReviews implements vscode.Disposable {
  private readonly sessions = new Map<string, SessionState>();
  private readonly news: ReviewPanelNews;
  /** What the panel shows of the review (the panel bridge writes it). */
  readonly onPanelMessage: vscode.Event<HostMessage>;
  private readonly isolatedByAgent = new WeakMap<ReviewAgent, IsolatedWorkspaceSource>();
  private readonly staged: StagedWriteSource;
  private readonly direct: DirectDiskSource;
  /** session + path of discards under way, so a store change meanwhile does not send them twice. */
  private readonly discarding = new Set<string>();
  private readonly warned = new Set<string>();
  private readonly subscription: { dispose(): void };

  constructor(private readonly deps: SessionReviewsDeps) {
    this.news = new ReviewPanelNews(deps.review.store, deps.panelSession, (sessionId) => this.sessions.get(sessionId));
    this.onPanelMessage = this.news.onMessage;
    // A write staged after the agent already wrote the file itself keeps the snapshot taken before the call ran.
    this.staged = deps.review.createStagedSource({
      snapshotOf: (sessionId, path) => this.direct.snapshotOf(sessionId, path),
      keep: (sessionId, path, content) => this.direct.keep(sessionId, path, content),
      projectFolder: (path) => vscode.workspace.getWorkspaceFolder(vscode.Uri.file(path))?.uri.fsPath,
    });
    this.direct = deps.review.createDirectSource({
      failed: (sessionId, { path, why }) =>
        this.warnOnce(
          `${sessionId}:snapshot:${path}`,
          `Accord could not keep a copy of ${quotedForNotification(path, 300)} before the agent could change it (${quotedForNotification(why, 300)}); a change the agent makes to it will not be reviewable.`,
        ),
    });
    this.subscription = deps.review.store.onDidChange(() => {
      void this.syncDiscards();
      this.news.schedule();
    });
  }

  /**
   * A prompt turn starts in `sessionId`: snapshots are taken before the agent
   * can act. Returns the review note for the agent (rejections, undone turns),
   * to go before the person's prompt, when there is one.
   */
  async beginTurn(agent: ReviewAgent, sessionId: string, takeNote = true): Promise<string | undefined> {
    const state = this.session(agent, sessionId);
    state.turnId = String(++state.turns);
    state.inTurn = true;
    const turnId = state.turnId;
    await this.enqueue(state, sessionId, () => state.source.beginTurn(sessionId, turnId));
    // A turn that sends the model no text (a durable approval's answer) leaves the note for the next prompt.
    return takeNote ? this.deps.review.takeContextNote(sessionId) : undefined;
  }

  /** The turn ended (any stop reason): late changes are collected. */
  async endTurn(sessionId: string): Promise<void> {
    const state = this.sessions.get(sessionId);
    if (!state?.inTurn) return;
    state.inTurn = false;
    const turnId = state.turnId;
    await this.enqueue(state, sessionId, () => state.source.endTurn(sessionId, turnId));
  }

  /** A past session reopened: changes in the bundled agent's copy that the person's tree lacks come back for review. */
  async sessionLoaded(agent: ReviewAgent, sessionId: string): Promise<void> {
    const state = this.session(agent, sessionId);
    const isolated = state.isolated;
    if (isolated) await this.enqueue(state, sessionId, () => isolated.recover(sessionId, RECOVERED_TURN));
    // Rejections made while the agent was down reach its copy now.
    await this.syncDiscards();
    // The panel cleared its review state when the session restarted in it; what recovery found unchanged is not re-sent otherwise.
    this.postNow();
  }

  /** Every live (not replayed) session update of a tracked session. */
  onUpdate(sessionId: string, update: SessionUpdate): void {
    if (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update') return;
    const state = this.sessions.get(sessionId);
    if (!state) return;
    const call = update as ToolCallFacts;
    this.remember(state, sessionId, call);
    const turnId = state.turnId;
    if (state.inTurn) void this.enqueue(state, sessionId, () => state.source.toolCall(sessionId, turnId, call));
  }

  /** `fs/write_text_file`: held for review; resolves once staged so the agent can be answered. */
  async stageWrite(sessionId: string, path: string, content: string): Promise<void> {
    const state = this.sessions.get(sessionId);
    const stage = () => this.staged.stage(sessionId, state?.turnId ?? '1', path, content);
    if (!state) return stage();
    // In arrival order with the session's calls (after their snapshots, before the turn's end): an agent
    // that wrote the file itself keeps the "before" taken when it announced the call.
    const step = state.queue.then(stage);
    state.queue = step.catch(() => undefined);
    await step;
  }

  /** Whether the session's agent changes the person's files itself (not an isolated copy): its claims about them can be checked on disk. */
  writesToDisk(sessionId: string): boolean {
    return !this.sessions.get(sessionId)?.isolated;
  }

  /**
   * A permission request is about to be shown: every file the call may write
   * gets its "before" now, while nothing can have written it. Returns what
   * could not be kept, so the dialog can say the change would not be
   * reviewable; empty when all of it is (or the agent works in an isolated
   * copy, where nothing lands without review anyway).
   */
  async prepareApproval(sessionId: string, call: ToolCallFacts): Promise<SnapshotFailure[]> {
    const state = this.sessions.get(sessionId);
    if (!state || state.isolated) return [];
    if (!state.inTurn) return [{ path: '(this call)', why: 'it came outside a prompt turn, so Accord took no snapshot' }];
    const turnId = state.turnId;
    let failures: SnapshotFailure[] = [];
    const done = await this.enqueue(state, sessionId, async () => {
      failures = await this.direct.prepare(sessionId, turnId, call);
    });
    return done ? failures : [{ path: '(this call)', why: 'taking its snapshots failed' }];
  }

  /** `fs/read_text_file`: the session's own staged text while it waits for review. */
  readStaged(sessionId: string, path: string): string | undefined {
    return this.staged.readStaged(sessionId, path);
  }

  /** The panel's "Review" on a tool card's diff: the review of that file, else the tool call's own diff. */
  async openFromToolCall(sessionId: string, toolCallId: string, agentPath: string): Promise<void> {
    const state = this.sessions.get(sessionId);
    const path = state?.projectPaths.get(agentPath) ?? (await this.projectPath(state, sessionId, agentPath));
    const file = reviewForPath(this.deps.review.store.inSession(sessionId), path, state?.toolTurns.get(toolCallId));
    if (file) return this.deps.review.open(file);
    const diff = state?.toolPaths.get(toolCallId)?.get(agentPath);
    if (diff) return this.deps.review.toolDiffs.open(`${sessionId}\u0000${toolCallId}\u0000${agentPath}`, { ...diff, path });
    void vscode.window.showInformationMessage(vscode.l10n.t('Accord has no change to review for {0} yet.', quotedForNotification(path, 300)));
  }

  /** The panel's "Changes" list: open one file's review in the diff editor, or review it inside the file. */
  async openFile(fileId: string, inFile = false): Promise<void> {
    if (inFile) {
      await vscode.commands.executeCommand('accord.review.reviewInFile', fileId);
      return;
    }
    await this.deps.review.open(this.deps.review.store.get(fileId));
  }

  /** The panel shows another session, or reloaded: send it that session's review state. */
  postNow(): void {
    this.news.postNow();
  }

  private session(agent: ReviewAgent, sessionId: string): SessionState {
    let state = this.sessions.get(sessionId);
    if (state) return state;
    const isolated = servesChanges(agent) ? this.isolatedFor(agent) : undefined;
    state = {
      agent,
      source: isolated ?? this.direct,
      ...(isolated ? { isolated } : {}),
      turns: 0,
      turnId: '1',
      inTurn: false,
      toolPaths: new Map(),
      toolTurns: new Map(),
      toolKinds: new Map(),
      posted: new Map(),
      projectPaths: new Map(),
      queue: Promise.resolve(),
    };
    this.sessions.set(sessionId, state);
    const started = new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    this.deps.review.labelSession(sessionId, `${agent.name} session of ${started}`);
    return state;
  }

  private isolatedFor(agent: ReviewAgent): IsolatedWorkspaceSource {
    let source = this.isolatedByAgent.get(agent);
    if (!source) {
      const root = this.deps.projectRoot() ?? '/';
      source = this.deps.review.createIsolatedSource(
        async (method, params) => {
          const connection = agent.connection;
          if (!connection) throw new Error(`${agent.name} is not running.`);
          return connection.agent.request(method, params);
        },
        root,
        {
          projectTop: (mode) => (mode === 'git-clone' ? projectTop(root) : Promise.resolve(root)),
          skipped: (sessionId, path, why) => this.warnOnce(`${sessionId}:${path}`, `Accord cannot review ${quotedForNotification(path, 300)} from ${agent.name}: ${quotedForNotification(why, 300)}.`),
        },
      );
      this.isolatedByAgent.set(agent, source);
    }
    return source;
  }

  /** Keeps each tool call's paths (as the agent named them) and diff content, for its card and "Review". */
  private remember(state: SessionState, sessionId: string, call: ToolCallFacts): void {
    // A read names the file it read (claude-agent-acp's Read, qwen's read_file): the edit after it is not its change.
    // Its kind may come in an earlier update than its locations.
    if (call.kind) state.toolKinds.set(call.toolCallId, call.kind);
    if (readsOnly(state.toolKinds.get(call.toolCallId))) {
      state.toolPaths.delete(call.toolCallId);
      return;
    }
    const paths = touchedPaths(call);
    if (paths.length === 0) return;
    if (!state.toolTurns.has(call.toolCallId)) state.toolTurns.set(call.toolCallId, state.turnId);
    const known = state.toolPaths.get(call.toolCallId) ?? new Map();
    state.toolPaths.set(call.toolCallId, known);
    const diffs = new Map(diffBlocks(call).map((d) => [d.path, d]));
    for (const path of paths) {
      known.set(path, diffs.get(path) ?? known.get(path));
      if (!state.projectPaths.has(path)) void this.projectPath(state, sessionId, path).then(() => this.news.schedule());
    }
    this.news.schedule();
  }

  private async projectPath(state: SessionState | undefined, sessionId: string, agentPath: string): Promise<string> {
    if (!state?.isolated) return agentPath;
    const path = await state.isolated.projectPath(sessionId, agentPath).catch(() => agentPath);
    state.projectPaths.set(agentPath, path);
    return path;
  }

  /**
   * A file every change of which the person rejected (or undid) in every turn
   * goes back to the base in the agent's isolated copy too. A file with
   * anything accepted keeps the agent's version; its note says what was not taken.
   */
  private async syncDiscards(): Promise<void> {
    for (const [sessionId, state] of this.sessions) {
      if (!state.isolated) continue;
      // A move is discarded by its new path: the agent puts the old file back and removes the new one.
      const paths = pathsToDiscard(this.deps.review.store.inSession(sessionId)).filter((p) => !this.discarding.has(`${sessionId}\u0000${p}`));
      if (paths.length === 0) continue;
      const keys = paths.map((p) => `${sessionId}\u0000${p}`);
      for (const key of keys) this.discarding.add(key);
      // An agent that is down gets the discard on the next sync, after it is back.
      const done = await this.guard(state, sessionId, () => state.isolated!.discard(sessionId, paths));
      for (const key of keys) this.discarding.delete(key);
      if (done) this.deps.review.store.discarded(sessionId, paths);
    }
  }

  /** Runs `run` after the session's earlier review steps; resolves false when it failed (already reported). */
  private enqueue(state: SessionState, sessionId: string, run: () => Promise<unknown>): Promise<boolean> {
    const step = state.queue.then(() => this.guard(state, sessionId, run));
    state.queue = step.then(() => undefined);
    return step;
  }

  /** Runs one step of a session's review; false when it failed (logged, and told to the person unless the agent is down). */
  private async guard(state: SessionState, sessionId: string, run: () => Promise<unknown>): Promise<boolean> {
    try {
      await run();
      return true;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.deps.log(`review of session ${sessionId}: ${text}`);
      // A stopped agent is already reported by its host, and reloading the session after the restart
      // collects its changes again: a second warning here would only mislead.
      if (state.agent.connection) this.warnOnce(`${sessionId}:${text}`, `Accord could not collect the agent's changes for review: ${quotedForNotification(text, 400)}`);
      return false;
    }
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    void vscode.window.showWarningMessage(message);
  }

  dispose(): void {
    this.subscription.dispose();
    this.news.dispose();
  }
}
