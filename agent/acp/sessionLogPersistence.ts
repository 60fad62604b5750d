// Records every session of the adapter in its log (the SessionPersistence
// hooks) and keeps the books of which logs this process holds open: reopening
// one for a load, releasing one whose session left memory, closing them all
// when the connection (or the daemon) ends.
import { resolve } from 'node:path';
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { PermissionAsker } from '../core/gate';
import type { Session } from '../core/session';
import type { SessionStore as LiveSessions } from '../core/sessionStore';
import type { TurnObserver } from '../core/turn';
import type { StopReason } from '../core/updates';
import type { PendingPermission } from '../core/durable';
import type { IsolatedWorkspace } from '../session/isolated';
import type { SessionWorkspaces } from '../session/workspaces';
import { LogError, LogWriteError, SessionRecorder, type SessionStore, titleFromPrompt, type ContentBlockJson, type SessionLog } from '../log';
import type { Env } from '../models/credentials';
import { FLAGS_CONFIG_KEY, type SessionFlags } from './sharing';
import { flagsFromConfig, settingsFrom } from './recordedConfig';
import { reattachWorkspace } from './recordedWorkspace';
import type { PreparingWorkspace, SessionPersistence } from './sessionPersistence';

export class SessionLogPersistence implements SessionPersistence {
  private readonly recorders = new Map<string, SessionRecorder>();
  /** Hooks find the recorder by the Session object: after a reload under the same id, a finishing old turn must not write into the new recorder. */
  private readonly bySession = new WeakMap<Session, SessionRecorder>();
  /** Sessions whose title the client already knows (from a first prompt or a loaded log). */
  private readonly titled = new Set<string>();
  /** Loads in progress: the connection can end while one is still sending its replay. */
  private readonly reopening = new Set<Promise<Session>>();

  constructor(
    readonly logs: SessionStore,
    private readonly agentVersion: string,
  ) {}

  async sessionCreated(session: Session, workspace?: IsolatedWorkspace | PreparingWorkspace, flags: SessionFlags = {}): Promise<void> {
    const log = await this.logs.create({
      id: session.id,
      cwd: session.cwd,
      agentVersion: this.agentVersion,
      // The creator's grants travel with the session: a later load (another client, a new daemon) keeps them.
      config: { ...session.settings, ...(Object.keys(flags).length > 0 ? { [FLAGS_CONFIG_KEY]: { ...flags } } : {}) },
      ...(workspace ? { workspace: { ...workspace } } : {}),
    });
    this.track(session, new SessionRecorder(log, session));
  }

  async workspaceMade(session: Session, workspace: IsolatedWorkspace): Promise<void> {
    const recorder = this.bySession.get(session);
    if (!recorder) throw new Error(`session ${session.id} has no log to record its workspace in`);
    // Durable before any tool runs in the copy: after a crash, a load finds the copy its changes are in.
    await recorder.log.append({ type: 'workspace', workspace: { ...workspace } }, { durable: true }).committed;
  }

  private track(session: Session, recorder: SessionRecorder): void {
    this.recorders.set(session.id, recorder);
    this.bySession.set(session, recorder);
    // Nothing may happen unrecorded: a broken log stops the turn at once; turnEnded then reports why.
    recorder.log.onFailure(() => session.cancel());
  }

  turnStarted(session: Session, prompt: ContentBlock[]): number | undefined {
    const recorder = this.bySession.get(session);
    if (!recorder) return undefined;
    const offset = clearly(() => recorder.turnStarted(prompt as ContentBlockJson[]));
    // The first prompt names the session, as session/list will show it.
    const title = this.titled.has(session.id) ? undefined : titleFromPrompt(prompt as ContentBlockJson[]);
    if (title) {
      this.titled.add(session.id);
      void session.updates.emit({ sessionUpdate: 'session_info_update', title, updatedAt: new Date().toISOString() } as never);
    }
    return offset;
  }

  async turnEnded(session: Session, stopReason: StopReason): Promise<void> {
    const recorder = this.bySession.get(session);
    if (recorder) await clearly(() => recorder.turnEnded(stopReason));
  }

  configChanged(session: Session): void {
    this.bySession.get(session)?.record({ type: 'config_change', config: { ...session.settings } });
  }

  permissions(session: Session, asker: PermissionAsker): PermissionAsker {
    const recorder = this.bySession.get(session);
    if (!recorder) return asker;
    return {
      async ask(toolCall, signal) {
        if (recorder.log.failure) return 'cancelled';
        recorder.permissionAsked(toolCall.toolCallId, { toolCall });
        const answer = await asker.ask(toolCall, signal);
        // A durable request is answered later; its answer is recorded then (observer.answered).
        if (typeof answer === 'object') return answer;
        // An approval that could not be recorded is not acted on (the broken log has already stopped the turn).
        const recorded = await recorder.permissionAnswered(toolCall.toolCallId, { answer }).then(() => true, () => false);
        return recorded ? answer : 'cancelled';
      },
    };
  }

  observer(session: Session): TurnObserver {
    const record = (event: Parameters<SessionRecorder['record']>[0]) => this.bySession.get(session)?.record(event);
    return {
      toolIo: (io) => record({ type: 'tool_io', ...io }),
      usage: (usage) => record({ type: 'usage', usage }),
      // A durable approval is kept in the log until answered: a restart or a load in a new process keeps it pending.
      deferred: (pending) => record({ type: 'permission_request', toolCallId: pending.toolCallId, request: { durable: { ...pending } } }),
      answered: async (pending, optionId) => {
        await this.bySession.get(session)?.permissionAnswered(pending.toolCallId, { outcome: 'selected', optionId, requestId: pending.requestId });
      },
    };
  }

  /** The flags the session's creator granted, as its log recorded them. */
  flagsOf(sessionId: string): SessionFlags {
    return flagsFromConfig(this.recorders.get(sessionId)?.log.created.config);
  }

  /** Writes (and syncs) everything the session's log has been given, so a replay read sees it. */
  async flush(sessionId: string): Promise<void> {
    await this.recorders.get(sessionId)?.log.sync().catch(() => undefined);
  }

  /** Stops recording a session that leaves memory (its log stays, closed and unlocked). */
  release(sessionId: string): Promise<void> {
    return this.forget(sessionId);
  }

  /** Opens the log (recovering a crashed writer), checks the cwd, rebuilds the session and starts recording again. */
  reopen(...args: Parameters<SessionLogPersistence['reopenNow']>): Promise<Session> {
    const reopened = this.reopenNow(...args);
    this.reopening.add(reopened);
    const done = () => void this.reopening.delete(reopened);
    reopened.then(done, done);
    return reopened;
  }

  private async reopenNow(
    sessionId: string,
    cwd: string,
    live: LiveSessions,
    env: Env,
    isolation: SessionWorkspaces | undefined,
    replayInto: (log: SessionLog) => Promise<{ history: object[]; config: Record<string, unknown>; title: string | undefined; cost: number | undefined; pendingPermissions: Array<{ requestId: string }> }>,
  ): Promise<Session> {
    // A copy being made for this session (its first turn may already have run): finished and logged first, or failed.
    if (isolation?.isPreparing(sessionId)) await isolation.ready(sessionId).catch(() => undefined);
    if (live.get(sessionId)) {
      live.remove(sessionId);
      await this.forget(sessionId);
    }
    let log: SessionLog;
    try {
      log = await this.logs.open(sessionId);
    } catch (error) {
      if (error instanceof LogError && (error.code === 'not_found' || error.code === 'bad_session_id')) throw RequestError.sessionNotFound(sessionId);
      if (error instanceof LogError) throw RequestError.invalidRequest({ sessionId }, error.message);
      throw error;
    }
    try {
      if (resolve(log.created.cwd) !== resolve(cwd)) {
        throw RequestError.invalidParams({ cwd }, `Session ${sessionId} belongs to ${log.created.cwd}; open that folder to load it (got ${cwd}).`);
      }
      const root = await reattachWorkspace(this.logs, log, cwd, isolation);
      const replay = await replayInto(log);
      if (replay.title) this.titled.add(sessionId);
      const session = live.create(cwd, await settingsFrom(replay.config, env), sessionId, root);
      session.appendHistory(...(replay.history as Parameters<Session['appendHistory']>));
      session.cost = replay.cost; // keep adding to what the client last saw, not from zero
      for (const pending of replay.pendingPermissions) session.pendingPermissions.set(pending.requestId, pending as unknown as PendingPermission);
      this.track(session, new SessionRecorder(log, session));
      return session;
    } catch (error) {
      await log.close().catch(() => undefined);
      await isolation?.release(sessionId);
      throw error;
    }
  }

  /** Closes every log; a load still replaying (its client gone) finishes or fails first, so no lock outlives this. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.reopening]);
    await Promise.all([...this.recorders.keys()].map((id) => this.forget(id)));
  }

  private async forget(sessionId: string): Promise<void> {
    const recorder = this.recorders.get(sessionId);
    this.recorders.delete(sessionId);
    this.titled.delete(sessionId);
    await recorder?.close().catch((error: unknown) => console.error(`accord: closing the log of session ${sessionId}: ${(error as Error).message}`));
  }
}

/** A log write failure reaches the client as the error of the request, with the log's own explanation. */
function clearly<T>(write: () => T): T {
  const fail = (error: unknown): never => {
    if (error instanceof LogWriteError) throw RequestError.internalError({ path: error.path, errno: error.errno }, error.message);
    throw error;
  };
  try {
    const result = write();
    return result instanceof Promise ? (result.catch(fail) as T) : result;
  } catch (error) {
    return fail(error);
  }
}
