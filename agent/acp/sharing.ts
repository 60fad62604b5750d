// How the adapter lets sessions outlive one connection (the daemon): each
// connection gets its own view, and the adapter asks it instead of owning
// updates, approvals and session lifetime itself.
import type { AgentContext, ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { PermissionAsker } from '../core/gate';
import type { ClientFeatures } from './clientView';
import type { ReplayCursor } from '../log/cursor';
import type { Session } from '../core/session';
import type { DurableAnswer } from '../core/durable';

/** A shared session's durable approvals (--durable-requests). */
export interface DurableSharing {
  /** Asks every attached client without waiting. */
  asker: PermissionAsker;
  /** A prompt answered `requestId`: every open dialog for it is withdrawn. */
  settled(requestId: string, optionId: DurableAnswer): void;
}

/** What the connection that created a session granted it (recorded with the session; never widened by another client). */
export interface SessionFlags {
  alwaysApprove?: boolean;
  durableRequests?: boolean;
}

export interface SessionSharing {
  /** Flags for sessions this connection creates. */
  readonly flags: SessionFlags;
  /** Model for sessions this connection creates, if the person chose one. */
  readonly model?: string;
  /** Directory for a session/new that names none (empty or "."). */
  readonly project?: string;
  /** The session is live in this process (perhaps mid-turn): load/resume join it instead of reopening its log. */
  isLive(sessionId: string): boolean;
  /** Resolves once a session that left memory has released its log and workspace (at once if none is leaving): a load must not open a log still held. */
  released(sessionId: string): Promise<void>;
  /**
   * Joins a live session: replays its log to `client` (for load) and forwards
   * what follows, each update shaped for what the client can read
   * (`features`, see clientView.ts); re-asks pending approvals. `cursor`
   * (an offset the client resumes after) is checked against the log before
   * anything is sent.
   */
  join(sessionId: string, cwd: string, client: AgentContext, replay: boolean, features: ClientFeatures, cursor?: ReplayCursor): Promise<{ _meta?: Record<string, unknown> }>;
  /** A new or reopened session: this connection watches it from now on (updates shaped for `features`). */
  attach(session: Session, client: AgentContext, flags: SessionFlags, features: ClientFeatures): Promise<void>;
  /** Asks every attached client and waits; the first answer wins. */
  permissions(session: Session): PermissionAsker;
  /** The session's durable approvals, if its creator asked for them (--durable-requests). */
  durable(session: Session): DurableSharing | undefined;
  /** What this connection does when its client answers a durable approval from its dialog (continue the turn). */
  answerDurableWith(handler: (session: Session, requestId: string, optionId: DurableAnswer) => void): void;
  /** A turn no prompt started (a durable approval answered from a dialog): every attached client is told it started / ended. */
  backgroundTurn(session: Session, phase: { started: true } | { ended: string }): void;
  /** A prompt from this connection, shown to every other attached client as a user message (`offset`: its log record's). */
  promptStarted(session: Session, prompt: ContentBlock[], offset?: number): void;

  /** The turn a prompt from this connection started has ended; the other clients are told. */
  turnEnded(session: Session, stopReason: string): void;
  /** session/close from this connection: it stops watching; the session and its turn go on. */
  detach(sessionId: string): Promise<void>;
  /** `_meta` entries every client sees for the session (its flags). */
  meta(sessionId: string): Record<string, unknown>;
}

export const FLAGS_CONFIG_KEY = 'accord/flags';

/** To clients with no prompt request of their own for a turn: it started / ended in a session they watch. */
export const TURN_STARTED_METHOD = '_accord/turn_started';
export const TURN_ENDED_METHOD = '_accord/turn_ended';

export function flagsMeta(flags: SessionFlags): Record<string, unknown> {
  return {
    ...(flags.alwaysApprove ? { 'accord/alwaysApprove': true } : {}),
    ...(flags.durableRequests ? { 'accord/durableRequests': true } : {}),
  };
}
