// The panel's session as the panel sees it: which session and agent it
// shows (with an epoch bumped on each switch), the news it is sent, and the
// failure notice. The controller's other parts open sessions
// (sessionOpening.ts) and run turns (sessionController.ts, panelTurns.ts).
import * as vscode from 'vscode';
import type { SessionConfigOption } from '@agentclientprotocol/sdk/unstable';
import type { AgentHost } from '../agents/agentHost';
import type { AgentFailure, HostMessage, PromptCapabilities } from '../../webview/protocol';
import { failureNotice, showAnswerRefused } from './failureNotices';
import { PanelTurns } from './panelTurns';
import type { CurrentSession, SessionControllerDeps, TurnOutcome } from './sessionTypes';

export class PanelSession implements vscode.Disposable {
  private readonly panelEmitter = new vscode.EventEmitter<HostMessage>();
  /** News for the chat panel (the panel bridge writes it). */
  readonly onPanelMessage = this.panelEmitter.event;
  protected readonly recordEmitter = new vscode.EventEmitter<HostMessage>();
  /** For a rebuilt panel only: the live panel already shows it (the person's own prompt). */
  readonly onPanelRecord = this.recordEmitter.event;
  protected epochValue = 0;
  protected currentValue: CurrentSession | undefined;
  /** Draws the panel session's turns, whoever starts them. */
  protected readonly turns: PanelTurns;
  protected viewHostValue: AgentHost | undefined;
  /** The last failure shown in the panel (tests read it). */
  lastFailure: AgentFailure | undefined;

  constructor(protected readonly deps: SessionControllerDeps) {
    this.turns = new PanelTurns({
      post: (message) => this.post(message),
      current: () => this.currentValue,
      ...(deps.turns ? { turns: deps.turns } : {}),
      onTurnEnded: deps.onTurnEnded,
      answerRefused: showAnswerRefused,
    });
  }

  /** How the last turn ended (tests and notifications read it). */
  get lastOutcome(): TurnOutcome | undefined {
    return this.turns.lastOutcome;
  }

  /** The panel's session epoch: bumped each time the panel switches session. */
  get epoch(): number {
    return this.epochValue;
  }

  dispose(): void {
    this.panelEmitter.dispose();
    this.recordEmitter.dispose();
  }

  protected post(message: HostMessage): void {
    this.panelEmitter.fire(message);
  }

  get current(): CurrentSession | undefined {
    return this.currentValue;
  }

  /**
   * The agent the panel is about: the one of its session, or the one a person
   * last tried to use even when that failed, so the header, "Show Agent Log"
   * and the failure notice all name the same agent.
   */
  get viewHost(): AgentHost | undefined {
    return this.viewHostValue;
  }

  protected view(host: AgentHost): void {
    if (this.viewHostValue === host) return;
    this.viewHostValue = host;
    this.deps.onViewHostChanged?.(host);
  }

  /** Says in the panel that the agent failed, with its name, the error and actions; a notification too, escaped. */
  protected fail(host: AgentHost, stage: AgentFailure['stage'], error: unknown): void {
    this.lastFailure = failureNotice(host, stage, error);
    this.view(host);
    this.post({ type: 'agentFailure', failure: this.lastFailure });
  }

  /** The failure notice is over (a session started, or the agent came back). */
  clearFailure(): void {
    if (!this.lastFailure) return;
    this.lastFailure = undefined;
    this.post({ type: 'agentFailure', failure: null });
  }
  protected adopt(host: AgentHost, sessionId: string, configOptions: SessionConfigOption[], origin: 'new' | 'load'): CurrentSession {
    const previous = this.currentValue;
    if (previous && previous.sessionId !== sessionId) this.deps.router.untrack(previous.sessionId);
    const session: CurrentSession = { host, sessionId, epoch: ++this.epochValue, configOptions, turnInFlight: false };
    this.currentValue = session;
    this.view(host);
    this.lastFailure = undefined; // the panel clears its notice on sessionStarted
    if (previous?.sessionId !== sessionId) this.turns.sessionChanged();
    this.deps.rememberOpenSession?.({ agent: host.name, sessionId });
    this.deps.router.track(sessionId, host.name);
    this.post({ type: 'sessionStarted', epoch: session.epoch, sessionId, origin });
    this.post({ type: 'configOptions', epoch: session.epoch, configOptions });
    const caps = host.info?.agentCapabilities?.promptCapabilities ?? {};
    const capabilities: PromptCapabilities = { image: caps.image ?? false, audio: caps.audio ?? false, embeddedContext: caps.embeddedContext ?? false };
    this.post({ type: 'promptCapabilities', epoch: session.epoch, capabilities });
    if (previous?.sessionId !== sessionId || previous.host !== host) this.deps.onSessionChanged(session);
    return session;
  }

  protected async connect(host: AgentHost) {
    this.view(host);
    await host.ensureStarted();
    const connection = host.connection;
    if (!connection && host.status.state !== 'untrusted') {
      this.fail(host, host.startFailure?.stage ?? 'start', host.startFailure?.message ?? host.status.message ?? `${host.name} is not running.`);
    }
    return connection;
  }

  protected cwd(): string | undefined {
    const root = this.deps.workspaceRoot();
    if (!root) void vscode.window.showWarningMessage(vscode.l10n.t('Open a folder first: Accord sessions work inside a workspace folder.'));
    return root;
  }
}
