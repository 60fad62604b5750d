// Keeps the Sessions view and the panel's history list in step with each
// agent's `session/list`.
import * as vscode from 'vscode';
import type { HostMessage } from '../../webview/protocol';
import type { AgentHost } from '../agents/agentHost';
import type { AgentRegistry } from '../agents/agentRegistry';
import { forLog } from '../text/agentText';
import type { SessionController } from './sessionController';
import type { SessionsView } from './sessionsView';

/** The panel's history list cap (webview/protocol.ts `sessionList`). */
const MAX_PANEL_SESSIONS = 200;

export class SessionLists implements vscode.Disposable {
  private readonly panelEmitter = new vscode.EventEmitter<HostMessage>();
  /** The history list for the panel (the panel bridge writes it). */
  readonly onPanelMessage = this.panelEmitter.event;

  constructor(
    private readonly controller: SessionController,
    private readonly registry: AgentRegistry,
    private readonly view: SessionsView,
    private readonly log: (message: string) => void,
  ) {}

  async refresh(host: AgentHost): Promise<void> {
    try {
      const sessions = await this.controller.listSessions(host);
      this.registry.noteSessions(host, sessions.map((s) => s.sessionId));
      const list = host.info?.agentCapabilities?.sessionCapabilities?.list;
      const canList = list !== undefined && list !== null;
      const current = this.controller.current?.sessionId;
      this.view.set(host.name, sessions, current, canList ? vscode.l10n.t('No past sessions yet.') : vscode.l10n.t('{0} does not list its sessions.', host.name));
      this.panelEmitter.fire({
        type: 'sessionList',
        sessions: sessions.slice(0, MAX_PANEL_SESSIONS).map((s) => ({ sessionId: s.sessionId, title: s.title ?? null, updatedAt: s.updatedAt ?? null, cwd: s.cwd })),
        ...(current ? { currentSessionId: current } : {}),
      });
    } catch (error) {
      this.log(`session/list failed: ${forLog(error instanceof Error ? error.message : String(error))}`);
    }
  }

  dispose(): void {
    this.panelEmitter.dispose();
  }
}
