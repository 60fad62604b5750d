// The ACP client side: what Accord answers when an agent calls it. Each
// capability advertised in CLIENT_CAPABILITIES has its handler here, and
// nothing else is advertised.
import { methods, RequestError, type ClientApp, type ClientCapabilities } from '@agentclientprotocol/sdk/unstable';
import { accordNotifications, type AccordNotificationParams } from '../../protocol/accordMethods';
import type { ApprovalService } from '../approvals/approvalService';
import type { TerminalService } from '../terminal/terminalService';
import type { FsService } from './fsService';
import type { UpdateRouter } from './updateRouter';

export const CLIENT_CAPABILITIES: ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  // The panel draws compactions and child sessions (nested under the tool call that started them); the router follows children.
  session: { compaction: {} },
  subagents: {},
  // Sign-in by running the agent's own login screen in a VS Code terminal (extension/agents/signIn.ts).
  auth: { terminal: true },
  // Agents that run commands themselves (claude-agent-acp, codex-acp) stream the output in tool calls' _meta; the panel draws it as a terminal.
  _meta: { terminal_output: true },
};

export interface ClientServices {
  router: UpdateRouter;
  approvals: ApprovalService;
  fs: FsService;
  terminals: TerminalService;
  /** Turns in a watched session that another client started (Accord's daemon tells every attached client). */
  remoteTurns?: { started(agentName: string, sessionId: string): void; ended(agentName: string, sessionId: string, stopReason: string): void };
  /** An approval this window was asked was answered in another client (its dialog was withdrawn). */
  settledElsewhere?(agentName: string, settled: AccordNotificationParams<'_accord/permission_settled'>): void;
}

/** An `_accord/*` notification's params checked against its shared schema; undefined for anything else (agents are untrusted). */
function accordNotification<M extends keyof typeof accordNotifications>(method: M, received: string, params: unknown): AccordNotificationParams<M> | undefined {
  if (received !== method) return undefined;
  const parsed = accordNotifications[method].params.safeParse(params);
  return parsed.success ? (parsed.data as AccordNotificationParams<M>) : undefined;
}

/**
 * Refuses a request naming a session this window holds for another agent: session ids are in
 * the session logs any agent process can read, and an approval, a staged write or a terminal
 * would otherwise be shown as that session's.
 */
function ownSession(s: ClientServices, agentName: string, sessionId: string): void {
  const owner = s.router.ownerOf(sessionId);
  if (owner !== undefined && owner !== agentName) throw RequestError.invalidParams({ sessionId }, `Session ${sessionId.slice(0, 100)} is not one of this agent's sessions.`);
}

export function registerClientHandlers(app: ClientApp, agentName: string, s: ClientServices): ClientApp {
  return app
    .onNotification(methods.client.session.update, ({ params }) => {
      s.router.route(params, agentName);
    })
    .onRequest(methods.client.session.requestPermission, ({ params, signal }) => {
      ownSession(s, agentName, params.sessionId);
      return s.approvals.request(params, agentName, signal);
    })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => {
      ownSession(s, agentName, params.sessionId);
      return s.fs.read(params);
    })
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      ownSession(s, agentName, params.sessionId);
      return s.fs.write(params);
    })
    .onRequest(methods.client.terminal.create, ({ params }) => {
      ownSession(s, agentName, params.sessionId);
      return s.terminals.create(params, agentName);
    })
    .onRequest(methods.client.terminal.output, ({ params }) => s.terminals.output(params.terminalId))
    .onRequest(methods.client.terminal.waitForExit, ({ params, signal }) => s.terminals.waitForExit(params.terminalId, signal))
    .onRequest(methods.client.terminal.kill, ({ params }) => s.terminals.kill(params.terminalId))
    .onRequest(methods.client.terminal.release, ({ params }) => s.terminals.release(params.terminalId))
    .onNotification('*', ({ method, params }) => {
      const started = accordNotification('_accord/turn_started', method, params);
      if (started) s.remoteTurns?.started(agentName, started.sessionId);
      const ended = accordNotification('_accord/turn_ended', method, params);
      if (ended) s.remoteTurns?.ended(agentName, ended.sessionId, ended.stopReason);
      const settled = accordNotification('_accord/permission_settled', method, params);
      if (settled) s.settledElsewhere?.(agentName, settled);
    });
}
