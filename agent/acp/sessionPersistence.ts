// What the ACP adapter tells a persistence layer as sessions are created and
// run: the adapter depends on this contract only, the session log
// (sessionLogPersistence.ts) implements it.
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { PermissionAsker } from '../core/gate';
import type { Session } from '../core/session';
import type { TurnObserver } from '../core/turn';
import type { StopReason } from '../core/updates';
import type { IsolatedWorkspace } from '../session/isolated';
import type { SessionFlags } from './sharing';

/** What the adapter tells a persistence layer; every hook is awaited where the adapter calls it. */
export interface SessionPersistence {
  /**
   * `workspace`: the session's isolated workspace, recorded so a later load
   * re-attaches it; `preparing` when the log starts before the copy is made
   * (`workspaceMade` records it then).
   */
  sessionCreated(session: Session, workspace?: IsolatedWorkspace | PreparingWorkspace, flags?: SessionFlags): Promise<void>;
  /** Durably records the workspace of a session created `preparing`; a load re-attaches it from then on. */
  workspaceMade(session: Session, workspace: IsolatedWorkspace): Promise<void>;
  /** Returns the offset of the prompt's record (its replay cursor), if recorded. */
  turnStarted(session: Session, prompt: ContentBlock[]): number | undefined;
  turnEnded(session: Session, stopReason: StopReason): Promise<void>;
  configChanged(session: Session): void;
  permissions(session: Session, asker: PermissionAsker): PermissionAsker;
  /** Records each tool call's input and output as the model saw them, and each request's usage. */
  observer(session: Session): TurnObserver;
}

/** session_created's `workspace` while the copy is still being made (`inPlace`: the session asked to work in place). */
export interface PreparingWorkspace {
  preparing: true;
  inPlace: boolean;
}
