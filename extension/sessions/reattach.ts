// After a window reload or an extension-host restart: if the panel's session
// is still running a turn in the bundled agent's daemon, show it again. The
// load replays the turn so far, streams the rest, and the daemon asks this
// window any approval still waiting.
import * as vscode from 'vscode';
import type { AgentHost } from '../agents/agentHost';
import { BUNDLED_AGENT_NAME } from '../settings/settings';
import type { SessionController } from './sessionController';

/** workspaceState key: the panel's session, so a reloaded window can reattach to it. */
export const OPEN_SESSION_KEY = 'accord.panelSession';

export interface OpenSession {
  agent: string;
  sessionId: string;
}

export async function reattachRunningSession(state: vscode.Memento, bundled: AgentHost, controller: SessionController, log: vscode.LogOutputChannel): Promise<void> {
  const remembered = state.get<OpenSession>(OPEN_SESSION_KEY);
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
