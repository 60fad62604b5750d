// Each session's isolated workspace, sandboxed runner and policy gate, by
// session id, for the lifetime of one agent connection. Prepared in the
// background from session/new on (the answer does not wait for the copy;
// every consumer awaits `ready`), re-attached (never re-created) at session/load and
// session/resume from what the log recorded, released on session/close and
// when the connection ends. The copies themselves stay on disk: a later load
// continues in them and the person can still review and apply their changes.
import { WorkspaceError, type IsolatedWorkspace } from './isolated';
import { reattachIsolatedSession, setUpIsolatedSession, type IsolatedSession, type WorkspacePlan } from './isolatedSession';

export interface IsolationSettings {
  /** The agent's data directory (never its config directory: that holds credentials). */
  dataDir: string;
  /** `accord acp --always-approve`: ask becomes allow; deny still applies. */
  alwaysApprove: boolean;
  /** Run commands without the OS sandbox, with this reason (e.g. ACCORD_SANDBOX=off). */
  withoutSandbox?: string;
  /** Awaited before a new session's copy is made (tests hold the copy back with it). */
  beforeSetUp?: (sessionId: string) => Promise<void>;
  /** Awaited once the root and policy are known, before the copy is made (tests hold a copy back while its first turn runs). */
  afterPlan?: (sessionId: string) => Promise<void>;
  /** When a prompt's hold on a copy ends (agent/acp/copyPacing.ts; its defaults unless set: tests set extremes instead of racing a clock). */
  copyPacing?: { quietMs: number; latestMs: number };
}

interface Preparing {
  promise: Promise<IsolatedSession>;
  /** The root and policy, known before the copy (a model request can start with them). */
  plan: Promise<WorkspacePlan>;
  /** Closed before the copy was ready: the copy is removed as soon as it exists. */
  abandoned: boolean;
}

export class SessionWorkspaces {
  private readonly sessions = new Map<string, IsolatedSession>();
  private readonly preparing = new Map<string, Preparing>();
  /** Why a session's copy could not be made: every later use fails with it, never falls back to the person's tree. */
  private readonly failed = new Map<string, Error>();
  /** What a copy waits for once its plan is known (a prompt's model going quiet, or needing the copy): see holdUntil. */
  private readonly holds = new Map<string, Promise<void>>();

  /** `setUp`: how a new session's workspace is made (the real copy; the bookkeeping's model test swaps it). */
  constructor(
    readonly settings: IsolationSettings,
    private readonly setUp: typeof setUpIsolatedSession = setUpIsolatedSession,
  ) {}

  /**
   * `alwaysApprove`: this session's own grant (the daemon's connections
   * differ); default: the agent-wide one.
   * Starts making a new session's workspace and returns at once; `ready(id)`
   * and the returned promise settle when it is usable. `onReady` runs before
   * the session is handed out (the log records the workspace there).
   * `after`: the making starts once it settles (the session is known, and
   * waited for, from now on).
   */
  prepare(sessionId: string, projectRoot: string, inPlace: boolean, alwaysApprove?: boolean, onReady?: (session: IsolatedSession) => Promise<void>, after?: Promise<void>): Promise<IsolatedSession> {
    const entry: Preparing = { abandoned: false, promise: Promise.resolve(undefined as never), plan: Promise.resolve(undefined as never) };
    let planned: (plan: WorkspacePlan) => void = () => undefined;
    const plan = new Promise<WorkspacePlan>((resolve) => (planned = resolve));
    entry.promise = (async () => {
      // `after`: the work starts then (session/new's answer goes out first: the copy's first spawn would hold it up).
      await after;
      await this.settings.beforeSetUp?.(sessionId);
      if (entry.abandoned) throw closedWhilePreparing(sessionId);
      const session = await this.setUp({ ...this.base(alwaysApprove), sessionId, projectRoot, inPlace }, async (plan) => {
        planned(plan);
        // A prompt waiting on this plan gets its model's first words out before the copy's and the sandbox's children start.
        await this.holds.get(sessionId);
        await this.settings.afterPlan?.(sessionId);
      });
      try {
        if (entry.abandoned) throw closedWhilePreparing(sessionId);
        await onReady?.(session);
      } catch (error) {
        await session.dispose(true).catch(() => undefined);
        throw error;
      }
      this.sessions.set(sessionId, session);
      return session;
    })();
    // A setUp that never reports a plan (or fails first) settles it with its outcome.
    entry.plan = Promise.race([plan, entry.promise.then((session) => ({ root: session.workspace.root, policy: session.policy }))]);
    entry.plan.catch(() => undefined);
    this.preparing.set(sessionId, entry);
    entry.promise.then(
      () => this.preparing.delete(sessionId),
      (error: unknown) => {
        this.preparing.delete(sessionId);
        if (!entry.abandoned) this.failed.set(sessionId, error instanceof Error ? error : new Error(String(error)));
      },
    );
    return entry.promise;
  }

  /**
   * The session's workspace once it is usable; rejects with the reason its
   * copy could not be made; undefined for a session this connection has no
   * workspace for.
   */
  async ready(sessionId: string): Promise<IsolatedSession | undefined> {
    const pending = this.preparing.get(sessionId);
    if (pending) await pending.promise;
    const failure = this.failed.get(sessionId);
    if (failure) throw failure;
    return this.sessions.get(sessionId);
  }

  /**
   * What a first model request needs before the copy exists: the root the
   * workspace will have and the project's policy. Rejects like `ready`;
   * undefined for a session this connection has no workspace for.
   */
  async plan(sessionId: string): Promise<WorkspacePlan | undefined> {
    const ready = this.sessions.get(sessionId);
    if (ready) return { root: ready.workspace.root, policy: ready.policy };
    const failure = this.failed.get(sessionId);
    if (failure) throw failure;
    return this.preparing.get(sessionId)?.plan;
  }

  /**
   * The copy of a session being prepared (and its sandbox) goes on from its
   * plan only once `until` settles: a prompt that runs before the copy
   * exists sends its first model request and gets its first words out first,
   * without ~20 children forking the agent meanwhile. Whoever holds must settle `until` on every
   * way out (and before it waits for `ready` itself). A hold placed after
   * the plan is known changes nothing.
   */
  holdUntil(sessionId: string, until: Promise<void>): void {
    if (!this.preparing.has(sessionId)) return;
    const held = until.catch(() => undefined);
    this.holds.set(sessionId, held);
    void held.then(() => {
      if (this.holds.get(sessionId) === held) this.holds.delete(sessionId);
    });
  }

  /** Whether a hold is placed on the session's copy now (tests wait for it). */
  isHeld(sessionId: string): boolean {
    return this.holds.has(sessionId);
  }

  /** Whether the session's copy is being made now. */
  isPreparing(sessionId: string): boolean {
    return this.preparing.has(sessionId);
  }

  /** Whether the session's workspace is usable now (no waiting). */
  isReady(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Settles when every copy being made now is ready or failed (a session is logged, so listed, once its copy exists). */
  async preparations(): Promise<void> {
    await Promise.allSettled([...this.preparing.values()].map((p) => p.promise));
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
    await this.abandon(sessionId);
    const session = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    await session?.dispose(false);
  }

  /** Deletes a session's workspace (a session/new whose log could not be started). */
  async discard(sessionId: string): Promise<void> {
    await this.abandon(sessionId);
    const session = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    await session?.dispose(true);
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...new Set([...this.sessions.keys(), ...this.preparing.keys(), ...this.failed.keys()])].map((id) => this.release(id)));
  }

  /** A copy still being made is removed once its making stops; nothing half-made stays behind. */
  private async abandon(sessionId: string): Promise<void> {
    this.failed.delete(sessionId);
    const pending = this.preparing.get(sessionId);
    if (!pending) return;
    pending.abandoned = true;
    await pending.promise.catch(() => undefined);
  }

  private base(alwaysApproveSession?: boolean) {
    const { dataDir, withoutSandbox } = this.settings;
    const alwaysApprove = alwaysApproveSession ?? this.settings.alwaysApprove;
    return { dataDir, alwaysApprove, ...(withoutSandbox ? { withoutSandbox } : {}) };
  }
}

function closedWhilePreparing(sessionId: string): WorkspaceError {
  return new WorkspaceError(`Session ${sessionId} was closed while its workspace was being prepared.`);
}
