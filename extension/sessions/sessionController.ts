// The panel's session: new, load (replay rendered once), prompt, cancel and
// config options, over whichever agent the session belongs to. Calls only
// what the agent advertised. One turn at a time per session (ACP v1 leaves
// concurrent prompts undefined).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { methods, type ContentBlock, type SessionConfigOption, type SessionInfo, type SetSessionConfigOptionRequest } from '@agentclientprotocol/sdk/unstable';
import type { AgentHost } from '../agents/agentHost';
import type { ApprovalService } from '../approvals/approvalService';
import type { UpdateRouter } from '../client/updateRouter';
import type { AgentFailure, HostMessage, PromptCapabilities, StopReason, WebviewMessageOf } from '../../webview/protocol';
import { bundledAgentMode, modelSetting, reasoningEffort } from '../settings/settings';
import { quotedForNotification } from '../text/agentText';
import { sessionNotices, setupMetaOf } from './sessionNotices';
import { durableAnswerMeta } from '../approvals/durableAnswers';
import { authChoices, isAuthRequired, signIn } from '../agents/signIn';

export interface CurrentSession {
  host: AgentHost;
  sessionId: string;
  epoch: number;
  configOptions: SessionConfigOption[];
  turnInFlight: boolean;
}

export interface TurnOutcome {
  sessionId: string;
  stopReason: StopReason;
  /** For a person: why the turn failed. */
  error?: string;
}

export interface SessionControllerDeps {
  router: UpdateRouter;
  approvals: ApprovalService;
  workspaceRoot: () => string | undefined;
  onTurnEnded: (session: CurrentSession, stopReason: StopReason, error?: string) => void;
  /** The agent the panel is about changed (a session, or an attempt at one, with another agent). */
  onViewHostChanged?: (host: AgentHost) => void;
  /** The panel now shows another session (possibly of another agent). */
  onSessionChanged: (session: CurrentSession) => void;
  /** The diff review follows each turn (extension/review/sessionReviews.ts). */
  turns?: TurnHooks;
  /** Keeps the panel's session across a window reload (workspace state); undefined forgets it. */
  rememberOpenSession?: (session: { agent: string; sessionId: string } | undefined) => void;
}

/** session/load `_meta` (Accord's daemon): the session is mid-turn, started by another client or an earlier window. */
const RUNNING_META_KEY = 'accord/running';

export interface TurnHooks {
  /** Before the prompt is sent; returns a note for the agent to read before the person's text (what they rejected or undid). */
  begin(session: CurrentSession): Promise<string | undefined>;
  /** Before a prompt that carries no text for the model (a durable approval's answer): the turn is followed, the note kept for the next one. */
  resume?(session: CurrentSession): Promise<void>;
  /** After the turn ended, however it ended. */
  end(session: CurrentSession): Promise<void>;
  /** A past session was reopened (`session/load` answered): its agent may hold changes this window never reviewed. */
  loaded(session: CurrentSession): Promise<void>;
}

export class SessionController implements vscode.Disposable {
  private readonly panelEmitter = new vscode.EventEmitter<HostMessage>();
  /** News for the chat panel (the panel bridge writes it). */
  readonly onPanelMessage = this.panelEmitter.event;
  private readonly recordEmitter = new vscode.EventEmitter<HostMessage>();
  /** For a rebuilt panel only: the live panel already shows it (the person's own prompt). */
  readonly onPanelRecord = this.recordEmitter.event;
  private epochValue = 0;
  /** The first prompt of a session being created for it. */
  private startingPrompt: { cancelled: boolean } | undefined;
  private currentValue: CurrentSession | undefined;
  private loading: string | undefined;
  /** Waits for the newest session's setup notices; replaced by the next new session. */
  private setupListener: { dispose(): void } | undefined;
  /** The panel's session is running a turn this window did not send (its end comes as a notification). */
  private remoteTurn: string | undefined;
  /** The turn the agent's exit ended, to show again once the reloaded session has replaced the panel's transcript. */
  private lostTurn: { sessionId: string; error: string } | undefined;
  /** How the last turn ended (tests and notifications read it). */
  lastOutcome: TurnOutcome | undefined;
  private viewHostValue: AgentHost | undefined;
  /** The last failure shown in the panel (tests read it). */
  lastFailure: AgentFailure | undefined;

  constructor(private readonly deps: SessionControllerDeps) {}

  /** The panel's session epoch: bumped each time the panel switches session. */
  get epoch(): number {
    return this.epochValue;
  }

  dispose(): void {
    this.setupListener?.dispose();
    this.panelEmitter.dispose();
    this.recordEmitter.dispose();
  }

  private post(message: HostMessage): void {
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

  private view(host: AgentHost): void {
    if (this.viewHostValue === host) return;
    this.viewHostValue = host;
    this.deps.onViewHostChanged?.(host);
  }

  /** Says in the panel that the agent failed, with its name, the error and actions; a notification too, escaped. */
  private fail(host: AgentHost, stage: AgentFailure['stage'], error: unknown): void {
    const message = (error instanceof Error ? error.message : typeof error === 'string' ? error : String((error as { message?: unknown })?.message ?? error)) || 'no reason given';
    // The agent wants a sign-in first: the panel offers the ways it named in initialize.
    const offered = isAuthRequired(error) || stage === 'authenticate' ? authChoices(host.info?.authMethods) : [];
    const failure: AgentFailure = { agentName: host.name.slice(0, 200), stage, message: message.slice(0, 4000), ...(offered.length ? { authMethods: offered } : {}) };
    this.lastFailure = failure;
    this.view(host);
    this.post({ type: 'agentFailure', failure });
    // A failed turn already says so in the transcript and (per accord.notifications) in the turn-ended notification;
    // a sign-in the panel offers needs no second notification.
    if (stage === 'session/prompt' || offered.length > 0) return;
    void vscode.window.showErrorMessage(vscode.l10n.t('Accord: {0} failed ({1}): {2}', quotedForNotification(host.name, 80), stage, quotedForNotification(message, 400)), vscode.l10n.t('Show Log'), vscode.l10n.t('Show ACP Traffic'))
      .then((choice) => {
        if (choice === vscode.l10n.t('Show Log')) host.showLog();
        if (choice === vscode.l10n.t('Show ACP Traffic')) void vscode.commands.executeCommand('accord.showAcpTraffic');
      });
  }

  /** The failure notice is over (a session started, or the agent came back). */
  clearFailure(): void {
    if (!this.lastFailure) return;
    this.lastFailure = undefined;
    this.post({ type: 'agentFailure', failure: null });
  }

  /**
   * Signs in to `host` with a method it offered, then starts the session the
   * sign-in was for. A failure says why in the panel and offers the methods again.
   */
  async authenticate(host: AgentHost, methodId: string): Promise<boolean> {
    this.view(host);
    // The sign-in was for a session that could not start, or the panel has none with this agent yet.
    const wantsSession = this.lastFailure?.stage === 'session/new' || this.lastFailure?.stage === 'authenticate' || this.current?.host !== host;
    const result = await signIn(host, methodId, this.deps.workspaceRoot());
    if (!result.ok) {
      this.fail(host, 'authenticate', result.message);
      return false;
    }
    this.clearFailure();
    void vscode.window.showInformationMessage(vscode.l10n.t('Accord: signed in to {0}.', quotedForNotification(host.name, 80)));
    if (wantsSession) return (await this.newSession(host)) !== undefined;
    return true;
  }

  async newSession(host: AgentHost): Promise<CurrentSession | undefined> {
    const connection = await this.connect(host);
    const cwd = this.cwd();
    if (!connection || !cwd) return undefined;
    let response;
    try {
      response = await connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    } catch (error) {
      this.fail(host, 'session/new', error);
      return undefined;
    }
    const session = this.adopt(host, response.sessionId, response.configOptions ?? [], 'new');
    this.showNotices(response._meta);
    this.noticesLater(response.sessionId);
    await this.applySettings(session);
    return session;
  }

  /** The notices the agent sends once the session's copy is ready (it answers session/new first). */
  private noticesLater(sessionId: string): void {
    this.setupListener?.dispose();
    const listener = this.deps.router.onUpdate(({ sessionId: id, update, replay }) => {
      const meta = id === sessionId && !replay ? setupMetaOf(update) : undefined;
      if (!meta) return;
      listener.dispose();
      this.showNotices(meta);
    });
    this.setupListener = listener;
  }

  /** A broken policy or failed MCP server, said once per new session; the agent's wording only ever in a modal's plain-text detail. */
  private showNotices(meta: unknown): void {
    for (const notice of sessionNotices(meta)) {
      void vscode.window.showWarningMessage(notice.headline, vscode.l10n.t('Details')).then((choice) => {
        if (choice === vscode.l10n.t('Details')) void vscode.window.showWarningMessage(notice.headline, { modal: true, detail: notice.detail });
      });
    }
  }

  /** Opens a past session with `session/load`: the transcript is cleared and the agent's replay renders once. */
  async loadSession(host: AgentHost, sessionId: string): Promise<void> {
    const connection = await this.connect(host);
    const cwd = this.cwd();
    if (!connection || !cwd) return;
    if (!host.info?.agentCapabilities?.loadSession) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Accord: {0} cannot reopen past sessions (it does not support session/load).', quotedForNotification(host.name, 80)));
      return;
    }
    if (this.loading === sessionId) return; // a second click while replaying would render the history twice
    this.loading = sessionId;
    let running = false;
    try {
      const session = this.adopt(host, sessionId, [], 'load');
      this.deps.router.beginReplay(sessionId);
      this.post({ type: 'replayBegin', epoch: session.epoch });
      let response;
      try {
        response = await connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
      } catch (error) {
        this.fail(host, 'session/load', error);
        return;
      }
      session.configOptions = response?.configOptions ?? [];
      this.post({ type: 'configOptions', epoch: session.epoch, configOptions: session.configOptions });
      void this.deps.turns?.loaded(session);
      running = (response?._meta as Record<string, unknown> | undefined)?.[RUNNING_META_KEY] === true;
    } finally {
      this.deps.router.endReplay(sessionId);
      if (this.currentValue?.sessionId === sessionId) this.post({ type: 'replayEnd', epoch: this.currentValue.epoch });
      this.loading = undefined;
    }
    // Reattached mid-turn (after a window reload): the panel shows the live turn until the agent says it ended.
    if (running) this.remoteTurnStarted(host, sessionId);
  }

  /** Another client (or this window before a reload) runs a turn in the panel's session. */
  remoteTurnStarted(host: AgentHost, sessionId: string): void {
    const session = this.currentValue;
    if (session?.host !== host || session.sessionId !== sessionId || session.turnInFlight) return;
    session.turnInFlight = true;
    this.remoteTurn = sessionId;
    this.post({ type: 'turnStarted', epoch: session.epoch });
  }

  /** That turn ended (the agent's `_accord/turn_ended`). */
  remoteTurnEnded(host: AgentHost, sessionId: string, stopReason: StopReason): void {
    const session = this.currentValue;
    if (session?.host !== host || session.sessionId !== sessionId || this.remoteTurn !== sessionId) return;
    this.remoteTurn = undefined;
    void this.deps.turns?.end(session);
    this.endTurn(session, stopReason);
  }

  async listSessions(host: AgentHost): Promise<SessionInfo[]> {
    const connection = host.connection;
    if (!connection || !host.info?.agentCapabilities?.sessionCapabilities?.list) return [];
    const sessions: SessionInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await connection.agent.request(methods.agent.session.list, { cwd: this.cwd(), ...(cursor ? { cursor } : {}) });
      sessions.push(...page.sessions);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && sessions.length < 1000);
    return sessions;
  }

  async closeSession(host: AgentHost, sessionId: string): Promise<void> {
    const connection = host.connection;
    if (!connection || !host.info?.agentCapabilities?.sessionCapabilities?.close) return;
    this.deps.approvals.cancelSession(sessionId);
    await connection.agent.request(methods.agent.session.close, { sessionId });
    this.deps.router.untrack(sessionId);
    if (this.currentValue?.sessionId === sessionId) {
      this.currentValue = undefined;
      this.deps.rememberOpenSession?.(undefined);
    }
  }

  /** Runs one turn; resolves with how it ended (undefined when no turn started). */
  async prompt(host: AgentHost, message: WebviewMessageOf<'sendPrompt'>): Promise<TurnOutcome | undefined> {
    let session = this.currentValue;
    if (session && session.epoch !== message.epoch) return; // typed into a session the panel no longer shows
    if (!session || session.host !== host) {
      // The panel already shows "Working…" and Stop: a Stop while the session starts keeps the prompt from being sent.
      const waiting = { cancelled: false };
      this.startingPrompt = waiting;
      try {
        session = await this.newSession(host);
      } finally {
        if (this.startingPrompt === waiting) this.startingPrompt = undefined;
      }
      if (!session) return this.notSent('error', vscode.l10n.t('The prompt was not sent: {0} has no session.', host.name));
      if (waiting.cancelled) return this.notSent('cancelled');
    }
    if (session.turnInFlight) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Accord is still working on the previous prompt. Cancel it (Escape) or wait.'));
      return;
    }
    const connection = session.host.connection;
    if (!connection) return this.endTurn(session, 'error', `${session.host.name} is not running.`);
    session.turnInFlight = true;
    this.lostTurn = undefined;
    // The panel drew the prompt itself and the agent's echo is not relayed; a rebuilt panel needs it from the journal.
    const own = (content: Record<string, unknown>) =>
      this.recordEmitter.fire({ type: 'sessionUpdate', epoch: session.epoch, sessionId: session.sessionId, update: { sessionUpdate: 'user_message_chunk', content } });
    own({ type: 'text', text: message.text });
    for (const m of message.mentions) {
      const uri = vscode.Uri.file(m.path);
      own({ type: 'resource_link', uri: (m.range ? uri.with({ fragment: `L${m.range.startLine}-L${m.range.endLine}` }) : uri).toString(), name: m.name });
    }
    this.post({ type: 'turnStarted', epoch: session.epoch });
    const turns = this.deps.turns;
    try {
      const note = await turns?.begin(session);
      const prompt = [...(note ? [{ type: 'text' as const, text: note }] : []), ...this.promptBlocks(session, message)];
      const response = await connection.agent.request(methods.agent.session.prompt, { sessionId: session.sessionId, prompt });
      await turns?.end(session);
      return this.endTurn(session, response.stopReason);
    } catch (error) {
      await turns?.end(session).catch(() => undefined);
      if (!session.turnInFlight) return this.lastOutcome; // already ended: the agent exited mid-turn
      const reason = error instanceof Error ? error.message : String(error);
      const lost = connection.signal.aborted || !session.host.connection;
      if (lost) return this.loseTurn(session, `${session.host.name} stopped during the turn; the turn was lost (${reason}).`);
      this.fail(session.host, 'session/prompt', error);
      return this.endTurn(session, 'error', `The turn ended with an error: ${reason}`);
    }
  }

  /**
   * The person answered a durable approval (its turn ended `waiting`): the
   * answer goes on the session's next prompt. In the panel's session it is a
   * turn like any other (running, then its stop reason); elsewhere, or
   * behind a running turn (the agent queues it), it is sent without one.
   */
  async answerDurable(host: AgentHost, sessionId: string, requestId: string, optionId: string): Promise<TurnOutcome | undefined> {
    const connection = host.connection;
    const params = { sessionId, prompt: [], _meta: durableAnswerMeta(requestId, optionId) };
    const refused = (error: unknown) =>
      void vscode.window.showWarningMessage(vscode.l10n.t('Accord: {0} did not take the answer to its approval: {1}', quotedForNotification(host.name, 80), quotedForNotification(error instanceof Error ? error.message : String(error), 400)));
    if (!connection) return void refused(new Error(`${host.name} is not running; the approval stays pending and is asked again when it is.`));
    const session = this.currentValue;
    if (session?.host !== host || session.sessionId !== sessionId || session.turnInFlight) {
      await connection.agent.request(methods.agent.session.prompt, params).catch(refused);
      return;
    }
    session.turnInFlight = true;
    this.lostTurn = undefined;
    this.post({ type: 'turnStarted', epoch: session.epoch });
    try {
      await this.deps.turns?.resume?.(session);
      const response = await connection.agent.request(methods.agent.session.prompt, params);
      await this.deps.turns?.end(session);
      return this.endTurn(session, response.stopReason);
    } catch (error) {
      await this.deps.turns?.end(session).catch(() => undefined);
      if (!session.turnInFlight) return this.lastOutcome;
      const reason = error instanceof Error ? error.message : String(error);
      if (connection.signal.aborted || !session.host.connection) return this.loseTurn(session, `${session.host.name} stopped during the turn; the turn was lost (${reason}).`);
      refused(error);
      return this.endTurn(session, 'error', `The answer to the approval was not taken: ${reason}`);
    }
  }

  /** Cancels the current turn: pending approvals answer `cancelled`, then `session/cancel`. */
  async cancelTurn(): Promise<void> {
    if (this.startingPrompt) this.startingPrompt.cancelled = true;
    const session = this.currentValue;
    if (!session?.turnInFlight) return;
    this.deps.approvals.cancelSession(session.sessionId);
    await session.host.connection?.agent.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
  }

  /** The agent process died: end the turn with a clear error; after a restart, reload the session if the agent can. */
  agentExited(host: AgentHost, message: string): void {
    if (this.viewHostValue === host) {
      this.lastFailure = { agentName: host.name.slice(0, 200), stage: 'exit', message: message.slice(0, 4000) };
      this.post({ type: 'agentFailure', failure: this.lastFailure });
    }
    const session = this.currentValue;
    if (session?.host !== host) return;
    this.deps.approvals.cancelSession(session.sessionId);
    if (session.turnInFlight) this.loseTurn(session, `${message} The turn was lost.`);
  }

  private loseTurn(session: CurrentSession, error: string): TurnOutcome {
    this.lostTurn = { sessionId: session.sessionId, error };
    return this.endTurn(session, 'error', error);
  }

  async agentReconnected(host: AgentHost): Promise<void> {
    const session = this.currentValue;
    if (session?.host !== host) return;
    const lost = this.lostTurn?.sessionId === session.sessionId ? this.lostTurn : undefined;
    this.lostTurn = undefined;
    if (host.info?.agentCapabilities?.loadSession) {
      await this.loadSession(host, session.sessionId).catch((error) =>
        void vscode.window.showWarningMessage(vscode.l10n.t('Accord: {0} restarted but could not reload the session: {1}', quotedForNotification(host.name, 80), quotedForNotification(String(error?.message ?? error), 400))));
      const shown = this.currentValue;
      // The reload cleared the panel, and the log's replay does not say the last turn died: say it again.
      if (lost && shown?.sessionId === lost.sessionId) this.post({ type: 'turnEnded', epoch: shown.epoch, stopReason: 'error', error: lost.error.slice(0, 4000) });
    } else {
      this.currentValue = undefined;
      void vscode.window.showInformationMessage(vscode.l10n.t('Accord: {0} restarted. It cannot reload sessions, so your next prompt starts a new one.', quotedForNotification(host.name, 80)));
    }
  }

  async setConfigOption(message: WebviewMessageOf<'setConfigOption'>): Promise<void> {
    const session = this.currentValue;
    if (!session || session.epoch !== message.epoch || !session.configOptions.some((o) => o.id === message.configId)) return;
    const connection = session.host.connection;
    if (!connection) return;
    const params: SetSessionConfigOptionRequest = typeof message.value === 'boolean'
      ? { sessionId: session.sessionId, configId: message.configId, type: 'boolean', value: message.value }
      : { sessionId: session.sessionId, configId: message.configId, value: message.value };
    const response = await connection.agent.request(methods.agent.session.setConfigOption, params);
    session.configOptions = response.configOptions;
    this.post({ type: 'configOptions', epoch: session.epoch, configOptions: session.configOptions });
    // A model picked in the panel persists: new sessions (and a new window) start with it.
    const option = session.configOptions.find((o) => o.id === message.configId);
    if (option?.category === 'model' && typeof message.value === 'string' && message.value && modelSetting() !== message.value) {
      await vscode.workspace.getConfiguration('accord').update('model', message.value, vscode.ConfigurationTarget.Global);
    }
  }

  private adopt(host: AgentHost, sessionId: string, configOptions: SessionConfigOption[], origin: 'new' | 'load'): CurrentSession {
    const previous = this.currentValue;
    if (previous && previous.sessionId !== sessionId) this.deps.router.untrack(previous.sessionId);
    const session: CurrentSession = { host, sessionId, epoch: ++this.epochValue, configOptions, turnInFlight: false };
    this.currentValue = session;
    this.view(host);
    this.lastFailure = undefined; // the panel clears its notice on sessionStarted
    if (previous?.sessionId !== sessionId) this.remoteTurn = undefined;
    this.deps.rememberOpenSession?.({ agent: host.name, sessionId });
    this.deps.router.track(sessionId);
    this.post({ type: 'sessionStarted', epoch: session.epoch, sessionId, origin });
    this.post({ type: 'configOptions', epoch: session.epoch, configOptions });
    const caps = host.info?.agentCapabilities?.promptCapabilities ?? {};
    const capabilities: PromptCapabilities = { image: caps.image ?? false, audio: caps.audio ?? false, embeddedContext: caps.embeddedContext ?? false };
    this.post({ type: 'promptCapabilities', epoch: session.epoch, capabilities });
    if (previous?.sessionId !== sessionId || previous.host !== host) this.deps.onSessionChanged(session);
    return session;
  }

  /** The model and reasoning-effort settings, applied through config options when the agent offers matching ones. */
  async applySettings(session: CurrentSession): Promise<void> {
    const wanted: [string, string][] = [];
    const model = modelSetting();
    const effort = reasoningEffort();
    if (model) wanted.push(['model', model]);
    if (effort !== 'default') wanted.push(['thought_level', effort]);
    // Only the bundled agent: another agent's "auto" may mean something else entirely (e.g. approve every command).
    if (session.host.definition === 'bundled') wanted.push(['mode', bundledAgentMode()]);
    for (const [category, value] of wanted) {
      const option = session.configOptions.find((o) => o.category === category && o.type === 'select');
      const values = option && option.type === 'select' ? option.options.flatMap((o) => ('options' in o ? o.options : [o])).map((o) => o.value) : [];
      if (!option || !values.includes(value) || option.currentValue === value) continue;
      await this.setConfigOption({ type: 'setConfigOption', epoch: session.epoch, configId: option.id, value }).catch(() => {});
    }
  }

  private promptBlocks(session: CurrentSession, message: WebviewMessageOf<'sendPrompt'>): ContentBlock[] {
    const caps = session.host.info?.agentCapabilities?.promptCapabilities ?? {};
    const blocks: ContentBlock[] = [{ type: 'text', text: message.text }];
    for (const m of message.mentions) {
      const range = m.range;
      if (range) {
        const startLine = Math.min(range.startLine, range.endLine);
        const endLine = Math.max(range.startLine, range.endLine);
        const uri = vscode.Uri.file(m.path).with({ fragment: `L${startLine}-L${endLine}` }).toString();
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === m.path);
        const text = doc?.getText(new vscode.Range(startLine - 1, 0, endLine, 0));
        // Embedded context is the preferred form when the agent accepts it; a link (always allowed) otherwise.
        if (caps.embeddedContext && text !== undefined) blocks.push({ type: 'resource', resource: { uri, text, mimeType: 'text/plain' } });
        else blocks.push({ type: 'resource_link', uri, name: m.name || path.basename(m.path) });
        continue;
      }
      blocks.push({ type: 'resource_link', uri: vscode.Uri.file(m.path).toString(), name: m.name || path.basename(m.path) });
    }
    if (caps.image) for (const image of message.images) blocks.push({ type: 'image', mimeType: image.mimeType, data: image.data });
    return blocks;
  }

  /** The panel showed a prompt as running that never reached the agent: end it there, saying why. */
  private notSent(stopReason: 'error' | 'cancelled', error?: string): undefined {
    this.post({ type: 'turnEnded', epoch: this.epochValue, stopReason, ...(error ? { error: error.slice(0, 4000) } : {}) });
    return undefined;
  }

  private endTurn(session: CurrentSession, stopReason: StopReason, error?: string): TurnOutcome {
    session.turnInFlight = false;
    this.lastOutcome = { sessionId: session.sessionId, stopReason, ...(error ? { error } : {}) };
    this.post({ type: 'turnEnded', epoch: session.epoch, stopReason, ...(error ? { error: error.slice(0, 4000) } : {}) });
    this.deps.onTurnEnded(session, stopReason, error);
    return this.lastOutcome;
  }

  private async connect(host: AgentHost) {
    this.view(host);
    await host.ensureStarted();
    const connection = host.connection;
    if (!connection && host.status.state !== 'untrusted') {
      this.fail(host, host.startFailure?.stage ?? 'start', host.startFailure?.message ?? host.status.message ?? `${host.name} is not running.`);
    }
    return connection;
  }

  private cwd(): string | undefined {
    const root = this.deps.workspaceRoot();
    if (!root) void vscode.window.showWarningMessage(vscode.l10n.t('Open a folder first: Accord sessions work inside a workspace folder.'));
    return root;
  }
}
