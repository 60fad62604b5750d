// One conversation: its directory, settings, the model-facing history and the
// update stream. History changes only through `appendHistory`, so a session
// log can persist it and rebuild a session from it.
import path from 'node:path';
import type { ModelMessage } from 'ai';
import { UpdateEmitter } from './emitter';
import type { PendingPermission } from './durable';
import type { PlanEntry } from '../tools/tool';
import type { ModeId } from './modes';

export type ReasoningEffort = 'off' | 'low' | 'medium' | 'high';

export interface SessionSettings {
  /** `provider:model`, or undefined when no model is configured. */
  model: string | undefined;
  reasoningEffort: ReasoningEffort;
  /** How much runs unasked (modes.ts); absent = the default mode. */
  mode?: ModeId;
}

export type HistoryListener = (messages: readonly ModelMessage[]) => void;
/** The whole history was replaced (a refusal dropped an exchange, a compaction summarised). */
export type HistoryResetListener = (messages: readonly ModelMessage[], reason: HistoryResetReason) => void;
export type HistoryResetReason = 'refusal' | 'compaction';

export class Session {
  readonly updates = new UpdateEmitter();
  plan: PlanEntry[] = [];
  /** Cumulative USD cost; undefined once any request could not be priced. */
  cost: number | undefined = 0;
  /** Durable approvals asked and not yet answered, by request id (--durable-requests). */
  readonly pendingPermissions = new Map<string, PendingPermission>();
  /** The context gauge as last reported (tokens in the window, window size); undefined before any request. */
  context: { used: number; size: number } | undefined;
  private readonly messages: ModelMessage[] = [];
  private readonly historyListeners = new Set<HistoryListener>();
  private readonly resetListeners = new Set<HistoryResetListener>();
  private turn: AbortController | undefined;
  /** Tool calls running now (announced, not yet ended), each cancellable on its own. */
  private readonly calls = new Map<string, AbortController>();
  /** Prompts waiting for the running turn, in arrival order; a cancel empties it. */
  private queueTail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private queueGeneration = 0;

  /** Where the tools work: the session's isolated workspace, or `cwd` itself. */
  private workspaceRoot: string;

  constructor(
    readonly id: string,
    /** Absolute, existing directory: the folder the client opened (the log records it; load compares it). */
    readonly cwd: string,
    public settings: SessionSettings,
    root?: string,
  ) {
    this.workspaceRoot = root ?? cwd;
  }

  get root(): string {
    return this.workspaceRoot;
  }

  /** The isolated workspace prepared after session/new answered; set before any tool may run. */
  workIn(root: string): void {
    this.workspaceRoot = root;
  }

  /**
   * A path inside the workspace as the person knows it: the same file in
   * their project (`cwd`), so a location or diff the client shows opens the
   * person's file. Paths outside the workspace are returned unchanged.
   */
  clientPath(absolute: string): string {
    if (this.root === this.cwd) return absolute;
    const relative = path.relative(this.root, absolute);
    if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return absolute;
    return relative ? path.join(this.cwd, relative) : this.cwd;
  }

  get history(): readonly ModelMessage[] {
    return this.messages;
  }

  appendHistory(...messages: ModelMessage[]): void {
    this.messages.push(...messages);
    for (const listener of this.historyListeners) listener(messages);
  }

  /** Replaces the whole model history; listeners (the log) record the new one. */
  resetHistory(messages: readonly ModelMessage[], reason: HistoryResetReason): void {
    this.messages.splice(0, this.messages.length, ...messages);
    for (const listener of this.resetListeners) listener(this.messages, reason);
  }

  onHistoryReset(listener: HistoryResetListener): () => void {
    this.resetListeners.add(listener);
    return () => this.resetListeners.delete(listener);
  }

  onHistoryAppend(listener: HistoryListener): () => void {
    this.historyListeners.add(listener);
    return () => this.historyListeners.delete(listener);
  }

  get turnRunning(): boolean {
    return this.turn !== undefined;
  }

  /** Starts a turn; its signal reaches the model stream, every tool and child process. */
  beginTurn(): AbortSignal {
    if (this.turn) throw new Error('A turn is already running in this session; cancel it or wait for it to end.');
    this.turn = new AbortController();
    return this.turn.signal;
  }

  endTurn(): void {
    this.turn = undefined;
  }

  /** A tool call starts: its signal fires with the turn's or on `cancelCall`; `done` once it has ended. */
  trackCall(toolCallId: string, turnSignal: AbortSignal): { signal: AbortSignal; done(): void } {
    const own = new AbortController();
    this.calls.set(toolCallId, own);
    return {
      signal: AbortSignal.any([turnSignal, own.signal]),
      done: () => {
        if (this.calls.get(toolCallId) === own) this.calls.delete(toolCallId);
      },
    };
  }

  /** Stops one running tool call (its result tells the model it was cancelled; the turn goes on). False: no such call is running. */
  cancelCall(toolCallId: string): boolean {
    const own = this.calls.get(toolCallId);
    if (!own) return false;
    own.abort(new Error('The person cancelled this tool call.'));
    return true;
  }

  /** Prompts waiting behind the running turn. */
  get waitingPrompts(): number {
    return this.queued;
  }

  /**
   * Runs `work` after every earlier queued prompt has finished, so a second
   * prompt during a turn runs next instead of being refused. A cancel while it
   * waits resolves it with `onCancelled()` without running it: the person
   * asked everything to stop.
   */
  enqueue<T>(work: () => Promise<T>, onCancelled: () => T): Promise<T> {
    const generation = this.queueGeneration;
    this.queued++;
    const result = this.queueTail.then(() => {
      this.queued--;
      return generation === this.queueGeneration ? work() : onCancelled();
    });
    this.queueTail = result.catch(() => undefined);
    return result;
  }

  /** Stops the running turn and every prompt queued behind it. */
  cancel(): void {
    this.queueGeneration++;
    this.turn?.abort();
  }
}
