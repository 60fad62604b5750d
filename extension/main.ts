// Wires the extension together; the parts live in their own files. Loaded
// by extension.ts's activate() once it has started the bundled agent, so
// that this module's evaluation (the ACP SDK, zod and every schema) runs
// while the agent starts.
import './zodJitless'; // before any schema exists (extension.ts imported it already; kept for loading this module alone)
import { setStartupLog, startupMark } from './startup/startupMarks';
import * as vscode from 'vscode';
import { activateClient, type AccordClient } from './accordClient';
import type { ApiKeys } from './secrets/apiKeys';
import type { EarlyAgent } from './startup/earlyAgent';
import type { AgentHost } from './agents/agentHost';
import { ChatViewProvider } from './chat/chatViewProvider';
import { PanelBridge } from './chat/panelBridge';
import { ReviewController } from './review/reviewController';
import { registerTestCommands } from './testCommands';
import { registerTestApprovalCommand } from './approvals/testApprovalCommand';
import { addAgent } from './agents/addAgent';
import { authChoices } from './agents/signIn';
import { forIconLabel, quotedForNotification } from './text/agentText';
import { useTranslation } from './text/l10n';

/** What activate() returns; the extension-host tests use it to look inside. */
export interface AccordApi {
  /** The bundled agent. */
  readonly agent: AgentHost;
  readonly chat: ChatViewProvider;
  /** The only writer of chat panel messages; `onDidPost` shows each one. */
  readonly panel: PanelBridge;
  readonly client: AccordClient;
  /** Diff review of agent changes (extension/review). */
  readonly review: ReviewController;
}

/** What extension.ts's activate() prepared: the provider keys it read and the bundled agent it started (if it did). */
export interface EarlyStart {
  apiKeys: ApiKeys;
  early?: EarlyAgent;
}

export function activateMain(context: vscode.ExtensionContext, start: EarlyStart): AccordApi {
  startupMark('main evaluated');
  useTranslation((message, ...args) => vscode.l10n.t(message, ...args));
  const log = vscode.window.createOutputChannel('Accord', { log: true });
  setStartupLog((line) => log.info(line));
  let client: AccordClient | undefined;
  const panel = new PanelBridge({
    epoch: () => client?.controller.epoch ?? 0,
    status: () => client?.viewHost().status ?? { state: 'stopped' },
  });
  const chat = new ChatViewProvider(context.extensionUri, log, panel);
  context.subscriptions.push(log, panel, chat, vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chat, {
    // Hiding the view (another side bar view, a collapsed side bar) keeps the live panel: no rebuild, scroll position kept.
    // A panel that is created again anyway is rebuilt from the chat view's journal.
    webviewOptions: { retainContextWhenHidden: true },
  }));
  const review = new ReviewController();
  context.subscriptions.push(review);
  client = activateClient(context, chat, panel, log, review, start.apiKeys);
  const { bundled } = client;
  if (start.early) bundled.adoptEarly(start.early);
  context.subscriptions.push(
    // The log of the agent the panel is about, even when it failed before it had a session.
    vscode.commands.registerCommand('accord.showAgentLog', () => (client?.viewHost() ?? bundled).showLog()),
    vscode.commands.registerCommand('accord.addAgent', () => addAgent({ log: (m) => log.info(m) })),
    vscode.commands.registerCommand('accord.signIn', async () => {
      const host = client!.viewHost();
      await host.ensureStarted();
      const choices = authChoices(host.info?.authMethods);
      if (choices.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Accord: {0} offers no sign-in.', quotedForNotification(host.name, 80)));
        return;
      }
      const pick = await vscode.window.showQuickPick(
        choices.map((c) => ({ label: forIconLabel(c.name, 80), description: c.terminal ? vscode.l10n.t('in a terminal') : '', detail: c.description ? forIconLabel(c.description, 300) : undefined, methodId: c.methodId })),
        { title: vscode.l10n.t('Accord: sign in to {0}', forIconLabel(host.name, 60)) },
      );
      if (pick) await client!.controller.authenticate(host, pick.methodId);
    }),
  );
  if (context.extensionMode === vscode.ExtensionMode.Test || process.env.ACCORD_TEST_COMMANDS === '1') {
    registerTestCommands(context, client.approvals);
    registerTestApprovalCommand(context, client.approvals);
  }
  // Restricted workspaces: ensureStarted() refuses and the panel says why; trust starts it (see activateClient).
  void bundled.ensureStarted();
  startupMark('activate end');
  return { agent: bundled, chat, panel, client, review };
}
