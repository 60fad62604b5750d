// The chat panel's intents become ACP calls; ACP session updates and pending
// approvals go to the panel. The panel holds no agent logic.
import * as vscode from 'vscode';
import type { ApprovalService, PendingApproval } from '../approvals/approvalService';
import type { RoutedUpdate } from '../client/updateRouter';
import type { FailureAction, HostMessage, WebviewMessage } from '../../webview/protocol';
import type { SessionController } from '../sessions/sessionController';
import type { AgentHost } from '../agents/agentHost';
import type { SetupService } from '../setup/setupService';
import { hideThoughts } from '../settings/settings';
import { fileCompletions, openLink } from './panelServices';
import type { SessionReviews } from '../review/sessionReviews';
import { forLog, quotedForNotification } from '../text/agentText';

export interface ChatRelayDeps {
  controller: SessionController;
  approvals: ApprovalService;
  /** The agent new sessions from the panel use. */
  defaultHost: () => AgentHost;
  /** The agent for a new session the person asked for ("+"): asks when several are configured. */
  pickHost: () => Promise<AgentHost | undefined>;
  hostFor: (sessionId: string) => AgentHost | undefined;
  log: (message: string) => void;
  reviews: SessionReviews;
  /** The agent the panel is about (failure actions act on it). */
  viewHost: () => AgentHost;
  /** The setup card and the model picker before a session. */
  setup?: SetupService;
}

export class ChatRelay implements vscode.Disposable {
  private readonly panelEmitter = new vscode.EventEmitter<HostMessage>();
  /** Updates, approvals and answers for the panel (the panel bridge writes them). */
  readonly onPanelMessage = this.panelEmitter.event;

  constructor(private readonly deps: ChatRelayDeps) {}

  dispose(): void {
    this.panelEmitter.dispose();
  }

  /** The settings the panel renders with changed. */
  settingsChanged(): void {
    this.post({ type: 'settings', hideThoughts: hideThoughts() });
  }

  private post(message: HostMessage): void {
    this.panelEmitter.fire(message);
  }

  async receive(message: WebviewMessage): Promise<void> {
    const { controller, approvals } = this.deps;
    try {
      switch (message.type) {
        case 'ready':
          this.replayState();
          return await this.deps.setup?.refresh();
        case 'setupAction':
          return await this.deps.setup?.act(message.action, message.baseUrl);
        case 'pickModel':
          return await this.deps.setup?.pick(message.value);
        case 'sendPrompt':
          await controller.prompt(controller.current?.host ?? this.deps.defaultHost(), message);
          return;
        case 'cancelTurn':
          return await controller.cancelTurn();
        case 'failureAction':
          return await this.failureAction(message.action);
        case 'authenticate':
          return void (await this.deps.controller.authenticate(this.deps.viewHost(), message.methodId));
        case 'answerApproval':
          if (!approvals.answer(message.requestId, message.optionId)) this.deps.log(`ignored an answer to approval ${message.requestId}: already answered or not a once-only option`);
          return;
        case 'setConfigOption':
          return await controller.setConfigOption(message);
        case 'newSession': {
          const host = await this.deps.pickHost();
          if (host) await controller.newSession(host);
          return;
        }
        case 'loadSession': {
          const host = this.deps.hostFor(message.sessionId) ?? controller.current?.host ?? this.deps.defaultHost();
          return await controller.loadSession(host, message.sessionId);
        }
        case 'openLocation':
          return await openLocation(message.path, message.line);
        case 'openLink':
          return await openLink(message.href);
        case 'requestFileCompletions':
          this.post({ type: 'fileCompletions', query: message.query, items: await fileCompletions(message.query) });
          return;
        case 'copyText':
          return await vscode.env.clipboard.writeText(message.text);
        case 'log':
          return this.deps.log(`[panel] ${message.message}`);
        case 'reviewDiff': {
          const session = controller.current;
          if (!session || session.epoch !== message.epoch) return;
          return await this.deps.reviews.openFromToolCall(session.sessionId, message.toolCallId, message.path);
        }
        case 'reviewFile':
          if (controller.current?.epoch !== message.epoch) return;
          return await this.deps.reviews.openFile(message.fileId, message.inFile === true);
      }
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.deps.log(`panel request ${message.type} failed: ${forLog(text)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Accord: {0}', quotedForNotification(text, 400)));
    }
  }

  /** Relays an ACP update verbatim when it belongs to the panel's session. */
  relayUpdate(routed: RoutedUpdate): void {
    const session = this.deps.controller.current;
    // A child session's updates go to its parent's panel, which nests them by their own session id.
    if (!session || (session.sessionId !== routed.sessionId && session.sessionId !== routed.parentSessionId)) return;
    this.post({ type: 'sessionUpdate', epoch: session.epoch, sessionId: routed.sessionId, update: routed.update });
  }

  relayApproval(approval: PendingApproval, settled: boolean): void {
    const session = this.deps.controller.current;
    if (!session || session.sessionId !== approval.sessionId) return;
    if (!settled) {
      this.post({
        type: 'approvalPending',
        epoch: session.epoch,
        requestId: approval.requestId,
        toolCall: approval.params.toolCall,
        agentName: approval.agentName.slice(0, 200),
        options: approval.choices.buttons.map((b) => ({ optionId: b.optionId, name: b.label, kind: b.kind })),
      });
      return;
    }
    const outcome = approval.outcome;
    this.post({
      type: 'approvalResolved',
      epoch: session.epoch,
      requestId: approval.requestId,
      outcome: outcome?.optionId ? 'selected' : 'cancelled',
      ...(outcome?.optionId ? { optionId: outcome.optionId } : {}),
    });
  }

  private async failureAction(action: FailureAction): Promise<void> {
    const host = this.deps.viewHost();
    switch (action) {
      case 'showLog':
        return host.showLog();
      case 'showTraffic':
        return void (await vscode.commands.executeCommand('accord.showAcpTraffic'));
      case 'editSettings':
        // The bundled agent's settings are Accord's own; a configured agent lives in accord.agents.
        return void (await vscode.commands.executeCommand('workbench.action.openSettings', host.definition === 'bundled' ? 'accord.' : 'accord.agents'));
      case 'dismiss':
        return this.deps.controller.clearFailure();
    }
  }

  /**
   * After the panel (re)loads. The chat view already replayed its journal (the
   * session, its transcript and the approvals still waiting); what is left is
   * state that is read fresh.
   */
  private replayState(): void {
    this.settingsChanged();
    if (this.deps.controller.current) this.deps.reviews.postNow();
  }
}

async function openLocation(path: string, line?: number): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
  const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(position, position), preview: true });
}
