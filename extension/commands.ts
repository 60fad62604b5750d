// Accord's commands (package.json `contributes.commands`), over the client's parts.
import * as vscode from 'vscode';
import type { AgentRegistry } from './agents/agentRegistry';
import type { ApprovalService } from './approvals/approvalService';
import type { ApiKeys } from './secrets/apiKeys';
import type { SetupService } from './setup/setupService';
import type { SessionController } from './sessions/sessionController';
import type { SessionLists } from './sessions/sessionLists';
import type { SessionItem } from './sessions/sessionsView';
import type { TrafficLog } from './traffic/trafficLog';
import type { AgentHost } from './agents/agentHost';
import { quotedForNotification } from './text/agentText';

export interface CommandDeps {
  registry: AgentRegistry;
  controller: SessionController;
  approvals: ApprovalService;
  traffic: TrafficLog;
  apiKeys: ApiKeys;
  lists: SessionLists;
  viewHost: () => AgentHost;
  setup: SetupService;
}

export function registerCommands({ registry, controller, approvals, traffic, apiKeys, lists, viewHost, setup }: CommandDeps): vscode.Disposable[] {
  const { bundled } = registry;
  return [
    vscode.commands.registerCommand('accord.newSession', async () => {
      const h = await registry.pick();
      if (h) await controller.newSession(h);
    }),
    vscode.commands.registerCommand('accord.cancelTurn', () => controller.cancelTurn()),
    vscode.commands.registerCommand('accord.showAcpTraffic', () => traffic.show()),
    vscode.commands.registerCommand('accord.showPendingApproval', () => approvals.showPending()),
    vscode.commands.registerCommand('accord.restartAgent', () => viewHost().restart()),
    vscode.commands.registerCommand('accord.setApiKey', async () => {
      if (!(await apiKeys.prompt())) return;
      void setup.refresh();
      // The key reaches the bundled agent when it starts: with no session of the panel's to lose, restart it now.
      if (controller.current?.host !== bundled) {
        if (bundled.status.state === 'connected') await bundled.restart();
        return;
      }
      const restart = vscode.l10n.t('Restart');
      const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Key saved. Restart the bundled agent to use it?'), restart);
      if (choice === restart) await bundled.restart();
    }),
    vscode.commands.registerCommand('accord.refreshSessions', () => lists.refresh(controller.current?.host ?? registry.defaultHost())),
    vscode.commands.registerCommand('accord.openSession', async (item?: SessionItem) => {
      if (!item) return;
      await controller.loadSession(registry.host(item.agentName) ?? bundled, item.info.sessionId);
      await vscode.commands.executeCommand('accord.chat.focus');
    }),
    vscode.commands.registerCommand('accord.copySessionId', async (item?: SessionItem) => {
      const id = item?.info.sessionId ?? controller.current?.sessionId;
      if (id) await vscode.env.clipboard.writeText(id);
    }),
    vscode.commands.registerCommand('accord.closeSession', async (item?: SessionItem) => {
      const id = item?.info.sessionId ?? controller.current?.sessionId;
      const h = item ? registry.host(item.agentName) : controller.current?.host;
      if (!id || !h) return;
      if (!h.info?.agentCapabilities?.sessionCapabilities?.close) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Accord: {0} does not support closing sessions.', quotedForNotification(h.name, 80)));
        return;
      }
      await controller.closeSession(h, id);
      await lists.refresh(h);
    }),
  ];
}
