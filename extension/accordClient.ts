// Builds Accord's ACP client side — agents, approvals, client services,
// sessions, status bar, settings, secrets — and registers its commands.
// extension.ts calls this once; everything here is disposed with the extension.
import * as vscode from 'vscode';
import { AgentHost } from './agents/agentHost';
import { approvalHeadline, ApprovalService } from './approvals/approvalService';
import { DiffPreview } from './approvals/diffPreview';
import { ChatRelay } from './chat/chatRelay';
import type { ChatViewProvider } from './chat/chatViewProvider';
import { FsService } from './client/fsService';
import type { ReviewController } from './review/reviewController';
import { SessionReviews } from './review/sessionReviews';
import { ToolCalls } from './client/toolCalls';
import { UpdateRouter } from './client/updateRouter';
import { ApiKeys } from './secrets/apiKeys';
import { SessionController } from './sessions/sessionController';
import { SessionsView, type SessionItem } from './sessions/sessionsView';
import { configuredAgents, defaultAgentName, approvalTimeoutMinutes, hideThoughts, notificationMode, BUNDLED_AGENT_NAME } from './settings/settings';
import { StatusBar } from './status/statusBar';
import { agentEnvironment } from './agents/agentEnv';
import { TerminalService } from './terminal/terminalService';
import { TrafficLog } from './traffic/trafficLog';
import type { StopReason } from '../webview/protocol';
import { forIconLabel, forLog, quotedForNotification } from './text/agentText';
import { currentText } from './approvals/currentText';

export interface AccordClient {
  readonly bundled: AgentHost;
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
  /** The host for an agent by name (created on first use); undefined if no such agent is configured. */
  host(name: string): AgentHost | undefined;
  /** The agent the panel is about (its session's, or the one last tried), else the default one. */
  viewHost(): AgentHost;
}

/** workspaceState key: the panel's session, so a reloaded window can reattach to it. */
const OPEN_SESSION_KEY = 'accord.panelSession';

export function activateClient(context: vscode.ExtensionContext, chat: ChatViewProvider, log: vscode.LogOutputChannel, review: ReviewController): AccordClient {
  const workspaceRoot = () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const apiKeys = new ApiKeys(context.secrets);
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
  });
  const reviews = new SessionReviews({
    review,
    panelSession: () => controller.current,
    post: (m) => chat.post(m),
    projectRoot: workspaceRoot,
    log: (m) => log.warn(m),
  });
  const fs = new FsService(reviews);
  // A terminal an agent opens runs with that agent's own environment (minimal + its env, or inherited if it opted in), without stored keys.
  const terminals = new TerminalService(workspaceRoot, (name) => {
    const definition = configuredAgents().find((a) => a.name === name);
    return agentEnvironment({ host: process.env, kind: 'configured', inheritEnv: definition?.inheritEnv, own: definition?.env });
  });
  const statusBar = new StatusBar();
  const sessionsView = new SessionsView();
  const services = {
    router, approvals, fs, terminals,
    remoteTurns: {
      started: (agentName: string, sessionId: string) => {
        const h = hosts.get(agentName);
        if (h) controller.remoteTurnStarted(h, sessionId);
      },
      ended: (agentName: string, sessionId: string, stopReason: string) => {
        const h = hosts.get(agentName);
        if (h) controller.remoteTurnEnded(h, sessionId, stopReason as StopReason);
      },
    },
  };
  const hosts = new Map<string, AgentHost>();
  const sessionHosts = new Map<string, AgentHost>();

  const host = (name: string): AgentHost | undefined => {
    const existing = hosts.get(name);
    if (existing) return existing;
    const definition = name === BUNDLED_AGENT_NAME ? 'bundled' : configuredAgents((p) => log.warn(p)).find((a) => a.name === name);
    if (!definition) return undefined;
    const created = new AgentHost(definition, { extensionUri: context.extensionUri, services, traffic, apiKeyEnv: () => apiKeys.environment(), workspaceRoot });
    hosts.set(name, created);
    created.onDidChangeStatus((status) => {
      if (viewHost() === created) {
        chat.postStatus(status);
        statusBar.setStatus(status);
      }
    });
    created.onDidExit(({ message }) => {
      approvals.cancelAll(created.name);
      terminals.releaseAgent(created.name);
      controller.agentExited(created, message);
    });
    created.onDidConnect(({ restarted }) => {
      if (controller.viewHost === created) controller.clearFailure();
      if (restarted) void controller.agentReconnected(created);
      void refreshSessions(created);
    });
    return created;
  };
  const bundled = host(BUNDLED_AGENT_NAME)!;
  const defaultHost = () => {
    const name = defaultAgentName();
    const found = host(name);
    if (!found) log.warn(`"accord.defaultAgent" names "${name}", which is not configured; using ${BUNDLED_AGENT_NAME}.`);
    return found ?? bundled;
  };
  const viewHost = () => controller.viewHost ?? defaultHost();

  const controller = new SessionController({
    router,
    approvals,
    post: (m) => chat.post(m),
    remember: (m) => chat.journal.record(m),
    nextEpoch: () => ++chat.epoch,
    workspaceRoot,
    turns: {
      begin: (session) => reviews.beginTurn(session.host, session.sessionId),
      end: (session) => reviews.endTurn(session.sessionId),
      loaded: (session) => reviews.sessionLoaded(session.host, session.sessionId),
    },
    onSessionChanged: (session) => {
      reviews.postNow();
      statusBar.resetUsage();
      statusBar.setStatus(session.host.status);
      chat.postStatus(session.host.status);
    },
    onViewHostChanged: (h) => {
      chat.postStatus(h.status);
      statusBar.setStatus(h.status);
    },
    onTurnEnded: (session, stopReason, error) => {
      notifyTurnEnded(session.host.name, stopReason, error);
      void refreshSessions(session.host);
    },
    rememberOpenSession: (session) => void context.workspaceState.update(OPEN_SESSION_KEY, session),
  });
  void reattachRunningSession();
  const relay = new ChatRelay({
    controller, approvals, post: (m) => chat.post(m), defaultHost, log: (m) => log.info(m),
    hostFor: (sessionId) => sessionHosts.get(sessionId),
    reviews,
    viewHost,
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

  async function refreshSessions(h: AgentHost): Promise<void> {
    try {
      const sessions = await controller.listSessions(h);
      for (const s of sessions) sessionHosts.set(s.sessionId, h);
      const canList = h.info?.agentCapabilities?.sessionCapabilities?.list !== undefined && h.info?.agentCapabilities?.sessionCapabilities?.list !== null;
      sessionsView.set(h.name, sessions, controller.current?.sessionId, canList ? 'No past sessions yet.' : `${h.name} does not list its sessions.`);
      chat.post({
        type: 'sessionList',
        sessions: sessions.slice(0, 200).map((s) => ({ sessionId: s.sessionId, title: s.title ?? null, updatedAt: s.updatedAt ?? null, cwd: s.cwd })),
        ...(controller.current ? { currentSessionId: controller.current.sessionId } : {}),
      });
    } catch (error) {
      log.warn(`session/list failed: ${forLog(error instanceof Error ? error.message : String(error))}`);
    }
  }

  /**
   * After a window reload or an extension-host restart: if the panel's session
   * is still running a turn in the bundled agent's daemon, show it again. The
   * load replays the turn so far, streams the rest, and the daemon asks this
   * window any approval still waiting.
   */
  async function reattachRunningSession(): Promise<void> {
    const remembered = context.workspaceState.get<{ agent: string; sessionId: string }>(OPEN_SESSION_KEY);
    if (!remembered || remembered.agent !== BUNDLED_AGENT_NAME || !vscode.workspace.isTrusted) return;
    try {
      await bundled.ensureStarted();
      const running = (await controller.listSessions(bundled)).find(
        (s) => s.sessionId === remembered.sessionId && (s._meta as Record<string, unknown> | undefined | null)?.['accord/running'] === true,
      );
      if (!running || controller.current) return;
      log.info(`reattaching session ${remembered.sessionId}, still running in the agent`);
      await controller.loadSession(bundled, remembered.sessionId);
    } catch (error) {
      log.warn(`could not reattach session ${remembered.sessionId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  function notifyTurnEnded(agentName: string, stopReason: StopReason, error?: string): void {
    const mode = notificationMode();
    if (mode === 'never' || (mode === 'whenUnfocused' && vscode.window.state.focused)) return;
    // The error is the agent's text (often its JSON-RPC message): quoted, one line, no live link.
    const text = error
      ? `Accord: the turn with ${quotedForNotification(agentName, 80)} failed: ${quotedForNotification(error, 400)}`
      : `Accord: ${quotedForNotification(agentName, 80)} finished (${stopReason.replace(/_/g, ' ')}).`;
    void vscode.window.showInformationMessage(text, 'Show Chat').then((c) => c && vscode.commands.executeCommand('accord.chat.focus'));
  }

  const pickAgent = async (): Promise<AgentHost | undefined> => {
    const names = [BUNDLED_AGENT_NAME, ...configuredAgents((p) => void vscode.window.showWarningMessage(p)).map((a) => a.name)];
    if (names.length === 1) return bundled;
    const pick = await vscode.window.showQuickPick(names.map((n) => ({ label: forIconLabel(n, 120), name: n, description: n === defaultAgentName() ? 'default' : '' })), { title: 'Accord: which agent for this session?' });
    return pick ? host(pick.name) : undefined;
  };

  const sessionFromItem = (item?: SessionItem) => item ?? undefined;
  context.subscriptions.push(
    traffic, diffs, approvals, reviews, terminals, statusBar, sessionsView,
    { dispose: () => hosts.forEach((h) => h.dispose()) },
    chat.onDidReceiveMessage((m) => void relay.receive(m)),
    vscode.window.registerTreeDataProvider('accord.sessions', sessionsView),
    vscode.commands.registerCommand('accord.newSession', async () => {
      const h = await pickAgent();
      if (h) await controller.newSession(h);
    }),
    vscode.commands.registerCommand('accord.cancelTurn', () => controller.cancelTurn()),
    vscode.commands.registerCommand('accord.showAcpTraffic', () => traffic.show()),
    vscode.commands.registerCommand('accord.showPendingApproval', () => approvals.showPending()),
    vscode.commands.registerCommand('accord.restartAgent', () => viewHost().restart()),
    vscode.commands.registerCommand('accord.setApiKey', async () => {
      if (!(await apiKeys.prompt())) return;
      const choice = await vscode.window.showInformationMessage('Key saved. Restart the bundled agent to use it?', 'Restart');
      if (choice === 'Restart') await bundled.restart();
    }),
    vscode.commands.registerCommand('accord.refreshSessions', () => refreshSessions(controller.current?.host ?? defaultHost())),
    vscode.commands.registerCommand('accord.openSession', async (item?: SessionItem) => {
      const target = sessionFromItem(item);
      if (!target) return;
      await controller.loadSession(host(target.agentName) ?? bundled, target.info.sessionId);
      await vscode.commands.executeCommand('accord.chat.focus');
    }),
    vscode.commands.registerCommand('accord.copySessionId', async (item?: SessionItem) => {
      const id = item?.info.sessionId ?? controller.current?.sessionId;
      if (id) await vscode.env.clipboard.writeText(id);
    }),
    vscode.commands.registerCommand('accord.closeSession', async (item?: SessionItem) => {
      const id = item?.info.sessionId ?? controller.current?.sessionId;
      const h = item ? host(item.agentName) : controller.current?.host;
      if (!id || !h) return;
      if (!h.info?.agentCapabilities?.sessionCapabilities?.close) {
        void vscode.window.showInformationMessage(`Accord: ${quotedForNotification(h.name, 80)} does not support closing sessions.`);
        return;
      }
      await controller.closeSession(h, id);
      await refreshSessions(h);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('accord.hideThoughts')) chat.post({ type: 'settings', hideThoughts: hideThoughts() });
      if (e.affectsConfiguration('accord.agents')) {
        configuredAgents((p) => void vscode.window.showWarningMessage(`Accord: ${p}`));
        // Agents whose definition may have changed start afresh on next use; the one in use keeps running.
        for (const [name, h] of hosts) {
          if (h !== bundled && h !== controller.current?.host) {
            h.dispose();
            hosts.delete(name);
          }
        }
      }
      if ((e.affectsConfiguration('accord.model') || e.affectsConfiguration('accord.reasoningEffort')) && controller.current) {
        void controller.applySettings(controller.current);
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void defaultHost().ensureStarted()),
  );
  statusBar.setStatus(bundled.status);

  return { bundled, approvals, controller, router, statusBar, sessionsView, traffic, fs, terminals, reviews, host, viewHost };
}
