// The panel's session and what the session controller is given, shared by
// the controller's parts (sessionController.ts, panelTurns.ts).
import type { SessionConfigOption } from '@agentclientprotocol/sdk/unstable';
import type { AgentHost } from '../agents/agentHost';
import type { ApprovalService } from '../approvals/approvalService';
import type { UpdateRouter } from '../client/updateRouter';
import type { StopReason } from '../../webview/protocol';

export interface CurrentSession {
  host: AgentHost;
  sessionId: string;
  epoch: number;
  configOptions: SessionConfigOption[];
  turnInFlight: boolean;
}

export interface TurnOutcome {
  sessionId: string;
  stopReason: StopReason;
  /** For a person: why the turn failed. */
  error?: string;
}

export interface SessionControllerDeps {
  router: UpdateRouter;
  approvals: ApprovalService;
  workspaceRoot: () => string | undefined;
  onTurnEnded: (session: CurrentSession, stopReason: StopReason, error?: string) => void;
  /** The agent the panel is about changed (a session, or an attempt at one, with another agent). */
  onViewHostChanged?: (host: AgentHost) => void;
  /** The panel now shows another session (possibly of another agent). */
  onSessionChanged: (session: CurrentSession) => void;
  /** The diff review follows each turn (extension/review/sessionReviews.ts). */
  turns?: TurnHooks;
  /** Keeps the panel's session across a window reload (workspace state); undefined forgets it. */
  rememberOpenSession?: (session: { agent: string; sessionId: string } | undefined) => void;
}

export interface TurnHooks {
  /** Before the prompt is sent; returns a note for the agent to read before the person's text (what they rejected or undid). */
  begin(session: CurrentSession): Promise<string | undefined>;
  /** Before a prompt that carries no text for the model (a durable approval's answer): the turn is followed, the note kept for the next one. */
  resume?(session: CurrentSession): Promise<void>;
  /** After the turn ended, however it ended. */
  end(session: CurrentSession): Promise<void>;
  /** A past session was reopened (`session/load` answered): its agent may hold changes this window never reviewed. */
  loaded(session: CurrentSession): Promise<void>;
}
