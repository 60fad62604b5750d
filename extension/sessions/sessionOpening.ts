// Opening the panel's session: a new one (after a sign-in if the agent wants
// one), a past one with `session/load` (its replay rendered once), the list
// of past sessions, closing one, its config options, and reloading it after
// the agent restarts. Calls only what the agent advertised.
import * as vscode from 'vscode';
import { methods, type SessionInfo, type SetSessionConfigOptionRequest } from '@agentclientprotocol/sdk/unstable';
import type { AgentHost } from '../agents/agentHost';
import type { WebviewMessageOf } from '../../webview/protocol';
import { modelSetting } from '../settings/settings';
import { quotedForNotification } from '../text/agentText';
import { setupMetaOf } from './sessionNotices';
import { signIn } from '../agents/signIn';
import { showSetupNotices } from './failureNotices';
import { optionToSet, wantedSettings } from './settingsOptions';
import { PanelSession } from './panelSession';
import type { CurrentSession } from './sessionTypes';

/** session/load `_meta` (Accord's daemon): the session is mid-turn, started by another client or an earlier window. */
const RUNNING_META_KEY = 'accord/running';

export class SessionOpening extends PanelSession {
  private loading: string | undefined;
  /** Waits for the newest session's setup notices; replaced by the next new session. */
  private setupListener: { dispose(): void } | undefined;

  override dispose(): void {
    this.setupListener?.dispose();
    super.dispose();
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
    showSetupNotices(response._meta);
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
      showSetupNotices(meta);
    });
    this.setupListener = listener;
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
    if (running) this.turns.remoteStarted(host, sessionId);
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

  async agentReconnected(host: AgentHost): Promise<void> {
    const session = this.currentValue;
    if (session?.host !== host) return;
    const lost = this.turns.takeLost(session.sessionId);
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

  /** The model and reasoning-effort settings, applied through config options when the agent offers matching ones. */
  async applySettings(session: CurrentSession): Promise<void> {
    // One at a time, each against the options as the last answer left them (a model can change which efforts exist).
    for (const [category, value] of wantedSettings(session)) {
      const configId = optionToSet(session, category, value);
      if (configId) await this.setConfigOption({ type: 'setConfigOption', epoch: session.epoch, configId, value }).catch(() => {});
    }
  }

}
