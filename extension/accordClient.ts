// Builds Accord's ACP client side — agents, approvals, client services,
// sessions, status bar, review wiring — and connects their events: every
// message for the chat panel goes through the PanelBridge. extension.ts calls
// this once; everything here is disposed with the extension.
import * as vscode from 'vscode';
import type { AgentHost } from './agents/agentHost';
import { AgentRegistry } from './agents/agentRegistry';
import { agentEnvironment } from './agents/agentEnv';
import { approvalHeadline, ApprovalService } from './approvals/approvalService';
import { currentText } from './approvals/currentText';
import { DiffPreview } from './approvals/diffPreview';
import { ChatRelay } from './chat/chatRelay';
import type { ChatViewProvider } from './chat/chatViewProvider';
import type { PanelBridge } from './chat/panelBridge';
import { FsService } from './client/fsService';
import { ToolCalls } from './client/toolCalls';
import { UpdateRouter } from './client/updateRouter';
import { registerCommands } from './commands';
import type { ReviewController } from './review/reviewController';
import { SessionReviews } from './review/sessionReviews';
import { ApiKeys } from './secrets/apiKeys';
import { SetupService } from './setup/setupService';
import { OPEN_SESSION_KEY, reattachRunningSession, reopenLastSession, WAITING_SESSION_KEY } from './sessions/reattach';
import { SessionController } from './sessions/sessionController';
import { SessionLists } from './sessions/sessionLists';
import { SessionsView } from './sessions/sessionsView';
import { notifyTurnEnded } from './sessions/turnNotices';
import { approvalTimeoutMinutes, BUNDLED_AGENT_NAME, configuredAgents, notificationMode } from './settings/settings';
import { StatusBar } from './status/statusBar';
import { TerminalService } from './terminal/terminalService';
import { TerminalRelay } from './terminal/terminalRelay';
import { forLog } from './text/agentText';
import { TrafficLog } from './traffic/trafficLog';
import type { AgentStatus, HostMessage, StopReason } from '../webview/protocol';

export interface AccordClient {
  readonly bundled: AgentHost;
  readonly registry: AgentRegistry;
  readonly approvals: ApprovalService;
  readonly controller: SessionController;
  readonly router: UpdateRouter;
  readonly statusBar: StatusBar;
  readonly sessionsView: SessionsView;
  readonly traffic: TrafficLog;
  readonly fs: FsService;
  readonly terminals: TerminalService;
  /** Which change source each session's agent gets, and what the panel hears of the review. */
  readonly reviews: SessionReviews;
  /** The setup card and the model picker before a session. */
  readonly setup: SetupService;
  /** The host for an agent by name (created on first use); undefined if no such agent is configured. */
  host(name: string): AgentHost | undefined;
  /** The agent the panel is about (its session's, or the one last tried), else the default one. */
  viewHost(): AgentHost;
}

export function activateClient(context: vscode.ExtensionContext, chat: ChatViewProvider, bridge: PanelBridge, log: vscode.LogOutputChannel, review: ReviewController, apiKeys = new ApiKeys(context.secrets)): AccordClient {
  const workspaceRoot = () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const traffic = new TrafficLog(() => apiKeys.knownValues());
  const router = new UpdateRouter((m) => log.debug(m));
  const diffs = new DiffPreview();
  const toolCalls = new ToolCalls();
  router.onUpdate(({ sessionId, update }) => toolCalls.record(sessionId, update));
  const approvals = new ApprovalService({
    diffs, timeoutMinutes: approvalTimeoutMinutes, panelVisible: () => chat.isVisible, log: (m) => log.info(m),
    completeToolCall: (sessionId, toolCall) => toolCalls.complete(sessionId, toolCall),
    announcedToolCall: (sessionId, toolCallId) => toolCalls.announced(sessionId, toolCallId),
    prepareReview: (sessionId, toolCall) => reviews.prepareApproval(sessionId, toolCall),
    readCurrent: async (sessionId, path) => (reviews.writesToDisk(sessionId) ? currentText(path) : undefined),
    // Only the bundled agent runs with --durable-requests; another agent's `_meta` cannot make its requests outlive the timeout.
    answerDurable: (approval, optionId) => {
      const h = registry.running(approval.agentName);
      if (h && approval.durable) void controller.answerDurable(h, approval.sessionId, approval.durable, optionId);
    },
    durableFrom: (agentName) => agentName === BUNDLED_AGENT_NAME,
  });
  const reviews = new SessionReviews({ review, panelSession: () => controller.current, projectRoot: workspaceRoot, log: (m) => log.warn(m) });
  const fs = new FsService(reviews);
  // A terminal an agent opens runs with that agent's own environment (minimal + its env, or inherited if it opted in), without stored keys.
  const terminals = new TerminalService(workspaceRoot, (name) => {
    const definition = configuredAgents().find((a) => a.name === name);
    return agentEnvironment({ host: process.env, kind: 'configured', inheritEnv: definition?.inheritEnv, own: definition?.env });
  });
  const statusBar = new StatusBar();
  const sessionsView = new SessionsView();
  const registry = new AgentRegistry({
    extensionUri: context.extensionUri,
    traffic,
    apiKeyEnv: () => apiKeys.environment(),
    workspaceRoot,
    log: (m) => log.warn(m),
    services: {
      router, approvals, fs, terminals,
      remoteTurns: {
        started: (agentName, sessionId) => {
          const h = registry.running(agentName);
          if (h) controller.remoteTurnStarted(h, sessionId);
        },
        ended: (agentName, sessionId, stopReason) => {
          const h = registry.running(agentName);
          if (h) controller.remoteTurnEnded(h, sessionId, stopReason as StopReason);
        },
      },
      // The dialog closed because another client answered: say so, so a vanished question is not a mystery.
      settledElsewhere: (agentName: string, settled: { sessionId: string; toolCallId: string; outcome: unknown }) => {
        const how = settled.outcome === 'allow' ? 'allowed' : settled.outcome === 'reject' ? 'rejected' : 'withdrawn';
        log.info(`${agentName}: an approval in session ${JSON.stringify(settled.sessionId.slice(0, 100))} was ${how} in another client.`);
        // One whole sentence per outcome: translators need the sentence, not a word spliced into one.
        const message =
          how === 'allowed'
            ? vscode.l10n.t('$(shield) Accord: an approval was allowed in another window')
            : how === 'rejected'
              ? vscode.l10n.t('$(shield) Accord: an approval was rejected in another window')
              : vscode.l10n.t('$(shield) Accord: an approval was withdrawn in another window');
        void vscode.window.setStatusBarMessage(message, 8000);
      },
    },
  });
  const { bundled } = registry;
  const viewHost = () => controller.viewHost ?? registry.defaultHost();
  // The header and the status bar follow the agent the panel is about.
  const viewStatus = new vscode.EventEmitter<AgentStatus>();
  const controller = new SessionController({
    router,
    approvals,
    workspaceRoot,
    turns: {
      begin: (session) => reviews.beginTurn(session.host, session.sessionId),
      resume: async (session) => void (await reviews.beginTurn(session.host, session.sessionId, false)),
      end: (session) => reviews.endTurn(session.sessionId),
      loaded: (session) => reviews.sessionLoaded(session.host, session.sessionId),
    },
    onSessionChanged: (session) => {
      reviews.postNow();
      statusBar.resetUsage();
      viewStatus.fire(session.host.status);
    },
    onViewHostChanged: (h) => viewStatus.fire(h.status),
    onTurnEnded: (session, stopReason, error) => {
      const waiting = context.workspaceState.get<{ agent: string; sessionId: string }>(WAITING_SESSION_KEY);
      if (stopReason === 'waiting') void context.workspaceState.update(WAITING_SESSION_KEY, { agent: session.host.name, sessionId: session.sessionId });
      else if (waiting?.sessionId === session.sessionId) void context.workspaceState.update(WAITING_SESSION_KEY, undefined);
      notifyTurnEnded(session.host.name, stopReason, error);
      void lists.refresh(session.host);
    },
    rememberOpenSession: (session) => void context.workspaceState.update(OPEN_SESSION_KEY, session),
  });
  const lists = new SessionLists(controller, registry, sessionsView, (m) => log.warn(m));
  const setup = new SetupService({
    storedKeys: () => apiKeys.environment(),
    setApiKey: async () => void (await vscode.commands.executeCommand('accord.setApiKey')),
    log: (m) => log.info(m),
  });
  const relay = new ChatRelay({
    controller, approvals, defaultHost: () => registry.defaultHost(), pickHost: () => registry.pick(), log: (m) => log.info(m),
    hostFor: (sessionId) => registry.hostFor(sessionId),
    reviews,
    viewHost,
    setup,
  });

  bridge.listen(controller.onPanelMessage);
  bridge.record(controller.onPanelRecord);
  bridge.listen(reviews.onPanelMessage);
  bridge.listen(relay.onPanelMessage);
  bridge.listen(lists.onPanelMessage);
  const terminalRelay = new TerminalRelay(terminals, () => controller.current);
  bridge.listen(terminalRelay.onPanelMessage);
  bridge.listen(setup.onPanelMessage);
  bridge.listen(mapEvent(viewStatus.event, (status) => ({ type: 'agentStatus', status })));

  registry.onDidChangeStatus(({ host, status }) => {
    if (viewHost() === host) viewStatus.fire(status);
  });
  registry.onDidExit(({ host, message }) => {
    approvals.cancelAll(host.name);
    terminals.releaseAgent(host.name);
    controller.agentExited(host, message);
  });
  registry.onDidConnect(({ host, restarted }) => {
    if (controller.viewHost === host) controller.clearFailure();
    if (restarted) void controller.agentReconnected(host);
    void lists.refresh(host);
  });
  viewStatus.event((status) => statusBar.setStatus(status));
  // The view title's Stop shows only while the panel's session runs a turn.
  let turnRunning = false;
  controller.onPanelMessage((m) => {
    if (m.type !== 'turnStarted' && m.type !== 'turnEnded' && m.type !== 'sessionStarted') return;
    const running = controller.current?.turnInFlight === true;
    if (running === turnRunning) return;
    turnRunning = running;
    void vscode.commands.executeCommand('setContext', 'accord.turnRunning', running);
  });
  router.onUpdate((routed) => {
    if (!routed.replay) reviews.onUpdate(routed.sessionId, routed.update);
    relay.relayUpdate(routed);
    if (controller.current?.sessionId === routed.sessionId && !routed.replay) statusBar.onUpdate(routed.update);
    if (routed.update.sessionUpdate === 'usage_update' && routed.replay) statusBar.onUpdate(routed.update);
  });
  approvals.onDidChange(({ approval, settled }) => {
    relay.relayApproval(approval, settled);
    const pending = approvals.pendingApprovals;
    statusBar.setPendingApprovals(pending.length, pending[0] && approvalHeadline(pending[0]));
    if (!settled && !vscode.window.state.focused && notificationMode() !== 'never') {
      // The approval's own notification is already showing; this only makes sure a person away from the window hears about it.
      log.info(`approval waiting while the window is unfocused: ${forLog(approvalHeadline(approval))}`);
    }
  });
  const reattached = reattachRunningSession(context.workspaceState, bundled, controller, log);
  // When the panel first opens, it shows this folder's last session again.
  const firstReady = chat.onDidReceiveMessage((m) => {
    if (m.type !== 'ready') return;
    firstReady.dispose();
    void reopenLastSession(context.workspaceState, (name) => registry.host(name), controller, log, reattached);
  });

  context.subscriptions.push(
    traffic, diffs, approvals, reviews, terminals, statusBar, sessionsView, registry, controller, relay, lists, viewStatus, firstReady, terminalRelay,
    chat.onDidReceiveMessage((m) => void relay.receive(m)),
    vscode.window.registerTreeDataProvider('accord.sessions', sessionsView),
    setup, ...setup.registerCommands(),
    ...registerCommands({ registry, controller, approvals, traffic, apiKeys, lists, viewHost, setup }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('accord.hideThoughts')) relay.settingsChanged();
      if (e.affectsConfiguration('accord.agents')) {
        configuredAgents((p) => void vscode.window.showWarningMessage(vscode.l10n.t('Accord: {0}', p)));
        registry.forgetAllBut(controller.current?.host);
      }
      if ((e.affectsConfiguration('accord.model') || e.affectsConfiguration('accord.reasoningEffort') || e.affectsConfiguration('accord.mode')) && controller.current) {
        void controller.applySettings(controller.current);
      }
      // The bundled agent reads accord.model when it starts: with no session of the panel's, it restarts to use the new model
      // at once (a session in the panel switches through its config option above instead).
      if (e.affectsConfiguration('accord.model') && controller.current?.host !== bundled && bundled.status.state === 'connected') {
        void bundled.restart();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void registry.defaultHost().ensureStarted()),
  );
  statusBar.setStatus(bundled.status);

  return { bundled, registry, approvals, controller, router, statusBar, sessionsView, traffic, fs, terminals, reviews, setup, host: (name) => registry.host(name), viewHost };
}

function mapEvent<T>(event: vscode.Event<T>, map: (value: T) => HostMessage): vscode.Event<HostMessage> {
  return (listener, thisArgs, disposables) => event((value) => listener.call(thisArgs, map(value)), undefined, disposables);
}
