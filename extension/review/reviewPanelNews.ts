// What the chat panel hears of the review of its session: the Changes list
// (within the protocol's caps) and each tool card's diff badge, sent a
// moment after the store changes (changes in one burst go as one message).
import * as vscode from 'vscode';
import { fileLineCounts, kindOf, type FileReview } from './fileReview';
import type { ReviewStore } from './reviewStore';
import { reviewForPath, reviewState, summarize } from './reviewSummary';
import type { HostMessage } from '../../webview/protocol';

/** The panel's Changes list caps (webview/protocol.ts `reviewChanges`). */
const MAX_TURNS = 1000;
const MAX_FILES_PER_TURN = 2000;

/** What the badges need of a session's review wiring. */
export interface ToolCardState {
  /** toolCallId → path as the agent named it → its ACP diff, when it sent one. */
  toolPaths: Map<string, Map<string, unknown>>;
  /** toolCallId → the turn it ran in, so its card shows that turn's review of a file. */
  toolTurns: Map<string, string>;
  /** The person's path for each path the agent named. */
  projectPaths: Map<string, string>;
  /** What each tool card's badge last showed. */
  posted: Map<string, string>;
}

export class ReviewPanelNews implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<HostMessage>();
  readonly onMessage = this.emitter.event;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly store: ReviewStore,
    private readonly panelSession: () => { sessionId: string; epoch: number } | undefined,
    private readonly stateOf: (sessionId: string) => ToolCardState | undefined,
  ) {}

  /** Sends soon, once for everything that changes meanwhile. */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.post();
    }, 30);
  }

  /** The panel shows another session, or reloaded: send it that session's review state, badges included. */
  postNow(): void {
    const panel = this.panelSession();
    if (!panel) return;
    this.stateOf(panel.sessionId)?.posted.clear();
    this.post();
  }

  private post(): void {
    const panel = this.panelSession();
    if (!panel) return;
    const files = this.store.inSession(panel.sessionId);
    const state = this.stateOf(panel.sessionId);
    if (state) this.postToolStates(panel.epoch, state, files);
    const { turns, pending } = summarize(files);
    // Within the protocol's caps (a bigger list would be dropped whole): the latest turns, the first files of each.
    const capped = turns.slice(-MAX_TURNS).map((t) => ({ ...t, files: t.files.slice(0, MAX_FILES_PER_TURN) }));
    this.emitter.fire({ type: 'reviewChanges', epoch: panel.epoch, pending, turns: capped });
  }

  /** Each tool card's diff badge, when its file's review state changed. */
  private postToolStates(epoch: number, state: ToolCardState, files: FileReview[]): void {
    for (const [toolCallId, paths] of state.toolPaths) {
      for (const agentPath of paths.keys()) {
        const file = reviewForPath(files, state.projectPaths.get(agentPath) ?? agentPath, state.toolTurns.get(toolCallId));
        if (!file) continue;
        const key = `${toolCallId}\u0000${agentPath}`;
        // The same numbers as the Changes list: the review's, not the agent's diff.
        const { added, removed } = fileLineCounts(file);
        const unknownBase = file.unverified !== undefined;
        const message = { type: 'diffReview' as const, epoch, toolCallId, path: agentPath, state: reviewState(file), kind: kindOf(file), added, removed, ...(unknownBase ? { unknownBase } : {}) };
        const value = JSON.stringify([message.state, message.kind, added, removed, unknownBase]);
        if (state.posted.get(key) === value) continue;
        state.posted.set(key, value);
        this.emitter.fire(message);
      }
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.emitter.dispose();
  }
}
