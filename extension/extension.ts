// Wires the extension together; the parts live in their own files.
import * as vscode from 'vscode';
import { AgentProcess, bundledAgentCommand } from './agentProcess';
import { ChatViewProvider } from './chatViewProvider';
import { registerTestCommands } from './testCommands';

/** What activate() returns; the extension-host tests use it to look inside. */
export interface AccordApi {
  readonly agent: AgentProcess;
  readonly chat: ChatViewProvider;
}

export function activate(context: vscode.ExtensionContext): AccordApi {
  const log = vscode.window.createOutputChannel('Accord Agent', { log: true });
  const agent = new AgentProcess({ agent: bundledAgentCommand(context.extensionUri), log });
  const chat = new ChatViewProvider(context.extensionUri, log, () => agent.status);

  context.subscriptions.push(
    log,
    agent,
    chat,
    agent.onDidChangeStatus((status) => chat.postStatus(status)),
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chat),
    vscode.commands.registerCommand('accord.showAgentLog', () => log.show(true)),
  );
  if (context.extensionMode === vscode.ExtensionMode.Test || process.env.ACCORD_TEST_COMMANDS === '1') {
    registerTestCommands(context);
  }

  if (vscode.workspace.isTrusted) {
    void agent.start();
  } else {
    agent.markUntrusted();
    context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => void agent.start()));
  }
  return { agent, chat };
}

export function deactivate(): void {}
