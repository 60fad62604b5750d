// After a window reload or an extension-host restart: if the panel's session
// is still running a turn in the bundled agent's daemon, or a session's last
// turn ended `waiting` on a durable approval, show it again. The load
// replays the turn so far, streams the rest, and the agent asks this window
// any approval still waiting (dialog, panel card, status bar).
import * as vscode from 'vscode';
import type { AgentHost } from '../agents/agentHost';
import { BUNDLED_AGENT_NAME } from '../settings/settings';
import type { SessionController } from './sessionController';

/** workspaceState key: the panel's session, so a reloaded window can reattach to it. */
export const OPEN_SESSION_KEY = 'accord.panelSession';

/** workspaceState key: a session whose last turn ended `waiting` on a durable approval (it never lapses, so it is reopened). */
export const WAITING_SESSION_KEY = 'accord.waitingSession';

export interface OpenSession {
  agent: string;
  sessionId: string;
}

export async function reattachRunningSession(state: vscode.Memento, bundled: AgentHost, controller: SessionController, log: vscode.LogOutputChannel): Promise<void> {
  const bundledOnly = (s: OpenSession | undefined) => (s?.agent === BUNDLED_AGENT_NAME ? s : undefined);
  const remembered = bundledOnly(state.get<OpenSession>(OPEN_SESSION_KEY));
  const waiting = bundledOnly(state.get<OpenSession>(WAITING_SESSION_KEY));
  if ((!remembered && !waiting) || !vscode.workspace.isTrusted) return;
  const which = (remembered ?? waiting)!.sessionId;
  try {
    await bundled.ensureStarted();
    const sessions = await controller.listSessions(bundled);
    const running = remembered && sessions.find((s) => s.sessionId === remembered.sessionId && (s._meta as Record<string, unknown> | undefined | null)?.['accord/running'] === true);
    // A durable approval does not lapse: the load makes the agent ask this window again.
    const target = running ?? (waiting && sessions.find((s) => s.sessionId === waiting.sessionId));
    if (!target || controller.current) return;
    log.info(`reattaching session ${target.sessionId}, ${running ? 'still running' : 'waiting for an approval'} in the agent`);
    await controller.loadSession(bundled, target.sessionId);
  } catch (error) {
    log.warn(`could not reattach session ${which}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The panel opened in a window that shows no session yet (a new window, or
 * VS Code started again): reopen the last session of this folder, when its
 * agent still lists it. `after` is the running-turn reattach, which wins.
 */
export async function reopenLastSession(
  state: vscode.Memento,
  hostOf: (name: string) => AgentHost | undefined,
  controller: SessionController,
  log: vscode.LogOutputChannel,
  after: Promise<void>,
): Promise<void> {
  await after;
  const remembered = state.get<OpenSession>(OPEN_SESSION_KEY);
  if (!remembered || controller.current || !vscode.workspace.isTrusted) return;
  const host = hostOf(remembered.agent);
  if (!host) return;
  try {
    await host.ensureStarted();
    if (!host.info?.agentCapabilities?.loadSession) return;
    // Only a session the agent still has: a deleted one would greet the person with an error.
    const listed = (await controller.listSessions(host)).some((s) => s.sessionId === remembered.sessionId);
    if (!listed || controller.current) return;
    log.info(`reopening session ${remembered.sessionId}, the last one of this folder`);
    await controller.loadSession(host, remembered.sessionId);
  } catch (error) {
    log.warn(`could not reopen session ${remembered.sessionId}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
