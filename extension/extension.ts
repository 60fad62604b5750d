// The extension's entry. Its own imports are few and light; the rest of the
// extension (extension/main.ts: the ACP SDK, zod and every schema, about
// 100 ms of evaluation) is loaded only after the bundled agent has been
// started, so the agent's start (a Node process, and the daemon's when none
// runs) runs meanwhile (issue 17: opening the view to "connected").
// First: its load time is when the bundle began to run (it has no imports of its own).
import { startupMark } from './startup/startupMarks';
import './zodJitless'; // before any schema exists (main.ts's are built later, but the setting is process-wide and cheap)
import * as vscode from 'vscode';
import { ApiKeys } from './secrets/apiKeys';
import { bundledAgentSpawnCommand } from './agents/agentCommand';
import { startEarly, type EarlyAgent } from './startup/earlyAgent';
import type { AccordApi } from './main';

export type { AccordApi } from './main';

export async function activate(context: vscode.ExtensionContext): Promise<AccordApi> {
  startupMark('activate start');
  const apiKeys = new ApiKeys(context.secrets);
  let early: EarlyAgent | undefined;
  // The same start activateMain() asks for (bundled.ensureStarted()), only sooner; restricted workspaces start no agent.
  if (vscode.workspace.isTrusted) {
    try {
      const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      early = startEarly(await bundledAgentSpawnCommand(context.extensionUri, () => apiKeys.environment(), cwd));
      startupMark('agent spawned early');
    } catch {
      // The regular start tries again and reports whatever is wrong.
    }
  }
  // A require, not an import: esbuild evaluates main.ts and everything only it needs here, not when the bundle loads.
  const main = require('./main') as typeof import('./main');
  try {
    return main.activateMain(context, { apiKeys, early });
  } catch (error) {
    early?.child.kill();
    throw error;
  }
}

export function deactivate(): void {}
