// Connects a live session to its log. Every update the session emits and
// every message appended to its model history is recorded as it happens, in
// emit order; the adapter adds what only it sees (the prompt, turn ends,
// approvals). Structural types only, so the log does not depend on the core.
import type { SessionLog } from './sessionLog';
import type { Appended } from './writer';
import type { ContentBlockJson, LogEvent, ModelMessageJson, SessionUpdateJson } from './records';
import { noteLogOffset } from './offsets';

/** What the recorder needs of a session: core/session.ts's Session satisfies it. */
export interface RecordableSession {
  readonly updates: { subscribe(listener: (update: { sessionUpdate: string }) => void | Promise<void>, options?: { phase?: 'record' | 'deliver' }): () => void };
  onHistoryAppend(listener: (messages: readonly object[]) => void): () => void;
  onHistoryReset?(listener: (messages: readonly object[], reason: string) => void): () => void;
}

export class SessionRecorder {
  private readonly detachers: Array<() => void>;
  private attached = true;
  private lastCommit: Promise<void> | undefined;
  private lastQuiet: Promise<void> | undefined;

  /**
   * Starts recording `session` into `log`. Attach after restoring a loaded
   * session's history, or the restored messages are recorded a second time.
   * A broken log (disk full…) is reported once through `log.onFailure`, where
   * the owner stops the session's work; the emitter itself never throws for
   * it, so the failure is not mistaken for a model or tool error. From then on
   * turnStarted/turnEnded throw the LogWriteError. Updates are recorded in
   * the emitter's `record` phase: each update's write (not its sync) finishes
   * before any client is sent it, so after a kill -9 the log holds every
   * update a client saw (a killed process's written bytes survive).
   */
  constructor(
    readonly log: SessionLog,
    session: RecordableSession,
  ) {
    this.detachers = [
      session.updates.subscribe((update) => this.quietly({ type: 'update', update: update as SessionUpdateJson }, update), { phase: 'record' }),
      session.onHistoryAppend((messages) => {
        for (const message of messages) void this.quietly({ type: 'model_message', message: message as ModelMessageJson });
      }),
      ...(session.onHistoryReset
        ? [session.onHistoryReset((messages, reason) => void this.quietly({ type: 'history_reset', messages: [...messages] as ModelMessageJson[], reason }))]
        : []),
    ];
  }

  /** `update`: the live object this event records, tagged with its offset for the clients it goes to. */
  private quietly(event: LogEvent, update?: object): Promise<void> | undefined {
    if (this.log.failure) return undefined; // already reported through onFailure
    let appended: Appended;
    try {
      appended = this.log.append(event);
    } catch {
      return undefined; // the failure reaches the owner through onFailure
    }
    if (update) noteLogOffset(update, appended.offset);
    // Records written together share one commit: one quiet promise per write, not per record.
    if (appended.committed !== this.lastCommit) {
      this.lastCommit = appended.committed;
      this.lastQuiet = appended.committed.catch(() => undefined);
    }
    return this.lastQuiet;
  }

  /** Before the turn runs: the prompt exactly as the client sent it. Returns the prompt record's offset (its replay cursor). */
  turnStarted(prompt: ContentBlockJson[]): number | undefined {
    if (!this.attached) return undefined;
    this.log.append({ type: 'turn_start' });
    return this.log.append({ type: 'user_prompt', prompt }).offset;
  }

  /** Every turn ends here, cancelled ones included; durable before the prompt response goes out. */
  async turnEnded(stopReason: string, error?: string): Promise<void> {
    if (!this.attached) return;
    await this.log.append({ type: 'turn_end', stopReason, ...(error ? { error } : {}) }, { durable: true }).committed;
  }

  permissionAsked(toolCallId: string, request: Record<string, unknown>): void {
    if (this.attached) this.log.append({ type: 'permission_request', toolCallId, request });
  }

  /** Durable: an approval is the decision the audit trail exists for. */
  async permissionAnswered(toolCallId: string, outcome: Record<string, unknown>): Promise<void> {
    if (!this.attached) return;
    await this.log.append({ type: 'permission_answer', toolCallId, outcome }, { durable: true }).committed;
  }

  /** Any other event (tool_io, usage, config_change, title); undefined once detached. */
  record(event: LogEvent): Appended | undefined {
    return this.attached ? this.log.append(event) : undefined;
  }

  /** Stops recording (every hook becomes a no-op); the log stays open. */
  detach(): void {
    this.attached = false;
    for (const detach of this.detachers.splice(0)) detach();
  }

  /** Stops recording and closes the log (synced, lock released). */
  async close(): Promise<void> {
    this.detach();
    await this.log.close();
  }
}

export { withLogOffset } from './offsets';
