// Each session's isolated workspace, sandboxed runner and policy gate, by
// session id, for the lifetime of one agent connection. Created at
// session/new, re-attached (never re-created) at session/load and
// session/resume from what the log recorded, released on session/close and
// when the connection ends. The copies themselves stay on disk: a later load
// continues in them and the person can still review and apply their changes.
import type { IsolatedWorkspace } from './isolated';
import { reattachIsolatedSession, setUpIsolatedSession, type IsolatedSession } from './isolatedSession';

export interface IsolationSettings {
  /** The agent's data directory (never its config directory: that holds credentials). */
  dataDir: string;
  /** `accord acp --always-approve`: ask becomes allow; deny still applies. */
  alwaysApprove: boolean;
  /** Run commands without the OS sandbox, with this reason (e.g. ACCORD_SANDBOX=off). */
  withoutSandbox?: string;
}

export class SessionWorkspaces {
  private readonly sessions = new Map<string, IsolatedSession>();

  constructor(readonly settings: IsolationSettings) {}

  /** `alwaysApprove`: this session's own grant (the daemon's connections differ); default: the agent-wide one. */
  async create(sessionId: string, projectRoot: string, inPlace: boolean, alwaysApprove?: boolean): Promise<IsolatedSession> {
    const session = await setUpIsolatedSession({ ...this.base(alwaysApprove), sessionId, projectRoot, inPlace });
    this.sessions.set(sessionId, session);
    return session;
  }

  /** Throws WorkspaceError (a message for the person) when the recorded workspace is gone. */
  async reattach(workspace: IsolatedWorkspace, projectRoot: string, alwaysApprove?: boolean): Promise<IsolatedSession> {
    await this.release(workspace.sessionId);
    const session = await reattachIsolatedSession(workspace, { ...this.base(alwaysApprove), projectRoot });
    this.sessions.set(workspace.sessionId, session);
    return session;
  }

  get(sessionId: string): IsolatedSession | undefined {
    return this.sessions.get(sessionId);
  }

  /** Stops the session's sandbox resources; its workspace stays for a later load. */
  async release(sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    await session?.dispose(false);
  }

  /** Deletes a session's workspace (a session/new whose log could not be started). */
  async discard(sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    await session?.dispose(true);
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.release(id)));
  }

  private base(alwaysApproveSession?: boolean) {
    const { dataDir, withoutSandbox } = this.settings;
    const alwaysApprove = alwaysApproveSession ?? this.settings.alwaysApprove;
    return { dataDir, alwaysApprove, ...(withoutSandbox ? { withoutSandbox } : {}) };
  }
}
