// Rebuilds a session from its log: the session/update notifications to send
// again on `session/load` (each with the offset of the record it came from),
// the model history to continue the conversation, and the session's settings.
import { LogError } from './errors';
import { continuedUpdate, type ChunkTemplate } from './compact';
import { scanLog, type LogEntry } from './reader';
import type { ModelMessageJson, RecordOf, SessionUpdateJson } from './records';
import { titleFromPrompt } from './title';

export interface ReplayedUpdate {
  /** Offset of the record this update comes from: the adapter's `_meta["accord/logOffset"]`. */
  offset: number;
  update: SessionUpdateJson;
  /** Not in the log as an update: a user prompt's chunk, or a tool call closed by an interruption. */
  synthesized?: true;
}

export interface SessionReplay {
  sessionId: string;
  cwd: string;
  additionalDirectories: string[];
  agentVersion: string;
  /** The configuration at creation with the last config_change applied. */
  config: Record<string, unknown>;
  /** The last explicit title, else the first prompt's start. */
  title: string | undefined;
  createdAt: string;
  updatedAt: string;
  updates: ReplayedUpdate[];
  /** ai SDK ModelMessages; tool calls an interruption left without a result get an error result. */
  history: ModelMessageJson[];
  /** The last turn was ended by a crash (an `interrupted` record), not by turn_end. */
  lastTurnInterrupted: boolean;
  /** The log ends inside a turn: it is being written right now (a live log). */
  turnInProgress: boolean;
  /** Offset just past the last record: the cursor for "what comes next". */
  end: number;
  /** Lines skipped because they were not valid records. */
  invalidLines: number;
  /** The session's cost in USD as its last usage_update gave it (0 before any; undefined when it could not be priced). */
  cost: number | undefined;
  /** Durable approvals asked and never answered (--durable-requests), in the order asked. */
  pendingPermissions: Array<Record<string, unknown> & { requestId: string; toolCallId: string }>;
  /** The workspace a `workspace` record named (made after the log started); undefined: see session_created. */
  workspace?: Record<string, unknown>;
}

export interface ReplayOptions {
  /** Only updates at or after this record offset (v2 `replayFrom`); history and settings still use the whole log. */
  fromOffset?: number;
}

const INTERRUPTED_RESULT =
  'The agent stopped (crashed or was killed) before this tool call finished; whether it had any effect is unknown.';

/** Reads the whole log at `path` and rebuilds the session. */
export async function replaySession(path: string, options: ReplayOptions = {}): Promise<SessionReplay> {
  const from = options.fromOffset ?? 0;
  const builder = new ReplayBuilder(from);
  let fromIsRecord = from === 0;
  await scanLog(
    path,
    {
      entry(entry) {
        if (entry.offset === from) fromIsRecord = true;
        builder.add(entry);
      },
      chunk(offset, next, template, ms, text) {
        if (offset === from) fromIsRecord = true;
        builder.addChunk(offset, next, template, ms, text);
      },
    },
    { onInvalid: () => builder.invalidLines++ },
  );
  const replay = builder.result(path);
  if (!fromIsRecord && from !== replay.end) {
    throw new LogError('bad_offset', `Offset ${from} is not the start of a record in ${path}. Replay from 0 or from an offset the log gave out.`);
  }
  return replay;
}

export class ReplayBuilder {
  invalidLines = 0;
  private created: RecordOf<'session_created'> | undefined;
  private config: Record<string, unknown> = {};
  private explicitTitle: string | undefined;
  private promptTitle: string | undefined;
  private updatedAt = '';
  /** Set when the last record was a compact chunk: its time, formatted only when asked for (updatedAt). */
  private updatedAtMs: number | undefined;
  private end = 0;
  private readonly updates: ReplayedUpdate[] = [];
  private readonly history: ModelMessageJson[] = [];
  /** toolCallId → last known status, for calls not yet completed or failed. */
  private readonly openToolCalls = new Map<string, string>();
  private inTurn = false;
  private interruptedLast = false;
  private cost: number | undefined = 0;
  private workspace: Record<string, unknown> | undefined;
  private readonly pending = new Map<string, Record<string, unknown> & { requestId: string; toolCallId: string }>();

  constructor(private readonly fromOffset = 0) {}

  add(entry: LogEntry): void {
    const lastActivity = entry.record.type === 'interrupted' ? this.lastActivity() : '';
    this.end = entry.next;
    this.updatedAt = entry.record.ts;
    this.updatedAtMs = undefined;
    if (!entry.known) return; // a newer agent's record type: nothing to replay
    const { record, offset } = entry;
    switch (record.type) {
      case 'session_created':
        this.created ??= record;
        this.config = record.config;
        break;
      case 'user_prompt':
        this.promptTitle ??= titleFromPrompt(record.prompt);
        for (const content of record.prompt) this.emit(offset, { sessionUpdate: 'user_message_chunk', content }, true);
        break;
      case 'update':
        this.trackToolCall(record.update);
        this.trackCost(record.update);
        this.emit(offset, record.update);
        break;
      case 'model_message':
        this.history.push(record.message);
        break;
      case 'history_reset':
        this.history.splice(0, this.history.length, ...record.messages);
        break;
      case 'config_change':
        this.config = record.config;
        break;
      case 'title':
        this.explicitTitle = record.title;
        break;
      case 'turn_start':
        this.inTurn = true;
        this.interruptedLast = false;
        break;
      case 'turn_end':
        this.inTurn = false;
        this.interruptedLast = false;
        break;
      case 'interrupted':
        this.interrupt(offset, record.turnOpen, lastActivity, record.ts);
        break;
      case 'permission_request': {
        const durable = record.request.durable as { requestId?: unknown; toolCallId?: unknown } | undefined;
        if (durable && typeof durable.requestId === 'string' && typeof durable.toolCallId === 'string') {
          this.pending.set(durable.requestId, durable as Record<string, unknown> & { requestId: string; toolCallId: string });
        }
        break;
      }
      case 'permission_answer': {
        const requestId = record.outcome.requestId;
        if (typeof requestId === 'string') this.pending.delete(requestId);
        break;
      }
      case 'workspace':
        this.workspace ??= record.workspace;
        break;
      case 'tool_io':
      case 'usage':
        break; // audit only: what the client saw of these is in the update records
    }
  }

  /**
   * A compact text chunk (scanLog): the same as add() with the update record
   * it stands for, without that record being built. A text chunk opens or
   * closes no tool call and carries no cost, so only the update is kept.
   */
  addChunk(offset: number, next: number, template: ChunkTemplate, ms: number, text: string): void {
    this.end = next;
    this.updatedAtMs = ms;
    this.emit(offset, continuedUpdate(template, text));
  }

  /** The time of the last record read (ISO 8601). */
  private lastActivity(): string {
    return this.updatedAtMs === undefined ? this.updatedAt : new Date(this.updatedAtMs).toISOString();
  }

  result(path = 'the log'): SessionReplay {
    const created = this.created;
    if (!created) throw new LogError('not_a_session_log', `${path} has no session_created record; it is not an Accord session log.`);
    const waiting = new Set([...this.pending.values()].map((p) => p.toolCallId));
    const history = this.inTurn ? this.history : closeDanglingToolCalls(this.history, waiting);
    return {
      sessionId: created.sessionId,
      cwd: created.cwd,
      additionalDirectories: created.additionalDirectories ?? [],
      agentVersion: created.agentVersion,
      config: this.config,
      title: this.explicitTitle ?? this.promptTitle,
      createdAt: created.ts,
      updatedAt: this.lastActivity(),
      updates: this.updates,
      history,
      lastTurnInterrupted: this.interruptedLast,
      turnInProgress: this.inTurn,
      end: this.end,
      invalidLines: this.invalidLines,
      cost: this.cost,
      pendingPermissions: [...this.pending.values()],
      ...(this.workspace ? { workspace: this.workspace } : {}),
    };
  }

  private trackCost(update: SessionUpdateJson): void {
    if (update.sessionUpdate !== 'usage_update') return;
    const amount = (update.cost as { amount?: unknown } | undefined)?.amount;
    this.cost = typeof amount === 'number' ? amount : undefined;
  }

  private emit(offset: number, update: SessionUpdateJson, synthesized = false): void {
    if (offset < this.fromOffset) return;
    this.updates.push(synthesized ? { offset, update, synthesized } : { offset, update });
  }

  private trackToolCall(update: SessionUpdateJson): void {
    if (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update') return;
    const id = update.toolCallId;
    if (typeof id !== 'string') return;
    const status = typeof update.status === 'string' ? update.status : (this.openToolCalls.get(id) ?? 'pending');
    if (status === 'completed' || status === 'failed') this.openToolCalls.delete(id);
    else this.openToolCalls.set(id, status);
  }

  /**
   * A crash ends the turn: cards left spinning are closed as failed (a call
   * waiting on a durable approval outlives it), the model history is repaired,
   * and the turn ends with a message every client shows (not only Accord's
   * panel) saying it was interrupted and when.
   */
  private interrupt(offset: number, turnOpen: boolean, lastActivity: string, recoveredAt: string): void {
    const waiting = new Set([...this.pending.values()].map((p) => p.toolCallId));
    for (const toolCallId of this.openToolCalls.keys()) {
      if (waiting.has(toolCallId)) continue; // a durable approval outlives the crash
      this.emit(offset, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' }, true);
    }
    for (const toolCallId of [...this.openToolCalls.keys()]) if (!waiting.has(toolCallId)) this.openToolCalls.delete(toolCallId);
    const repaired = closeDanglingToolCalls(this.history, waiting);
    this.history.splice(0, this.history.length, ...repaired);
    const turnWasOpen = turnOpen || this.inTurn;
    this.interruptedLast = turnWasOpen;
    this.inTurn = false;
    if (turnWasOpen) this.emit(offset, interruptionNotice(lastActivity || recoveredAt, recoveredAt), true);
  }
}

/** The message that ends an interrupted turn on replay; `_meta` carries the times for clients that style it. */
export function interruptionNotice(stoppedAt: string, recoveredAt: string): SessionUpdateJson {
  return {
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: `\n\n⚠ This turn was interrupted: the agent stopped (crashed or was killed) at ${stoppedAt} and did not finish it. Send a message to continue.` },
    _meta: { 'accord/interrupted': { stoppedAt, recoveredAt } },
  };
}

interface ToolCallPartJson {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  providerExecuted?: boolean;
}

/**
 * Providers reject a history where a tool call has no result. A crash can
 * leave the last assistant message's calls unanswered; each gets an error
 * result saying so, appended to the trailing tool message or in a new one.
 */
export function closeDanglingToolCalls(history: ModelMessageJson[], waiting: ReadonlySet<string> = new Set()): ModelMessageJson[] {
  const lastAssistant = history.findLastIndex((message) => message.role === 'assistant');
  const after = history.slice(lastAssistant + 1);
  if (lastAssistant === -1 || !after.every((message) => message.role === 'tool')) return history;
  const answered = new Set(
    after.flatMap((message) => parts(message).flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : []))),
  );
  // Calls waiting for a durable approval get their result when it is answered.
  const missing = parts(history[lastAssistant]!).filter(isClientToolCall).filter((call) => !answered.has(call.toolCallId) && !waiting.has(call.toolCallId));
  if (missing.length === 0) return history;
  const results = missing.map((call) => ({
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: { type: 'error-text', value: INTERRUPTED_RESULT },
  }));
  const last = history.at(-1);
  if (last?.role === 'tool' && Array.isArray(last.content)) {
    return [...history.slice(0, -1), { ...last, content: [...last.content, ...results] }];
  }
  return [...history, { role: 'tool', content: results }];
}

function parts(message: ModelMessageJson): Array<Record<string, unknown>> {
  return Array.isArray(message.content) ? (message.content as Array<Record<string, unknown>>) : [];
}

function isClientToolCall(part: Record<string, unknown>): part is Record<string, unknown> & ToolCallPartJson {
  return part.type === 'tool-call' && typeof part.toolCallId === 'string' && typeof part.toolName === 'string' && part.providerExecuted !== true;
}
