// The turn loop: stream one model request, run the tool calls it asks for,
// feed the results back, and repeat until the model is done, the cap on model
// requests is reached, or the person cancels. Returns exactly one stop reason.
import type { UserContent } from '@ai-sdk/provider-utils';
import { z } from 'zod';
import type { CommandRunner, Tool } from '../tools/tool';
import { describeModelError } from '../models/errors';
import type { ResolvedModel } from '../models/resolve';
import type { PermissionAsker, PermissionGate } from './gate';
import type { Session } from './session';
import { compact, currentTurnStart, pastThreshold, worthCompacting } from './compaction';
import { DECLINED, runToolCall } from './toolCall';
import { appendToolResults, failCalls, runCalls, turnContext } from './responseCalls';
import type { DurableAnswer, PendingPermission } from './durable';
import type { StopReason } from './updates';
import { workspaceReady } from './workspaceWait';
import type { ModelTool } from './modelStep';
import { streamOnce } from './streamOnce';

export interface TurnDeps {
  /** Resolves the session's current model; throws a person-readable error when it cannot. */
  model(session: Session): Promise<ResolvedModel>;
  tools: readonly Tool<any>[];
  gate: PermissionGate;
  permissions: PermissionAsker;
  /**
   * How a child session asks (the `task` tool). A child's approval cannot
   * outlive the child, so under --durable-requests it is asked and waited
   * for; undefined: as `permissions`.
   */
  childPermissions?: PermissionAsker;
  commands: CommandRunner;
  /** Cap on model requests per turn. */
  maxTurnRequests: number;
  /** Retries of a model request (models/retry.ts: backoff, retry-after honoured). */
  maxRetries: number;
  /** A model stream silent this long is dropped and reported, so a stalled server never hangs the turn. */
  streamIdleTimeoutMs: number;
  systemPrompt(session: Session): string;
  /** Audit hooks (the session log): what each tool call did as the model saw it, and each request's usage. */
  observer?: TurnObserver;
  /** Sandbox state and reachable network in words, shown with every command approval question. */
  commandContext?: { sandbox: string; network: string };
  /** Runs before a call that changes files or runs a command (in-place sessions snapshot the tree here). */
  beforeChange?(toolName: string): Promise<void>;
  /** Compact automatically before a model request once the gauge reaches this share of the window; undefined: never. */
  compactAt?: number;
  /**
   * Set while the session's workspace is still being made: the model request
   * goes ahead, and the first tool call waits for this, which gives what the
   * calls run through (and then is removed). Rejects with the reason the
   * workspace could not be made; the calls then fail with it, never running
   * anywhere else.
   */
  untilReady?(): Promise<WorkspaceDeps>;
}

/** What a session's tool calls run through once its workspace is ready. */
export type WorkspaceDeps = Pick<TurnDeps, 'gate' | 'commands' | 'commandContext' | 'beforeChange'>;

export interface TurnObserver {
  /** `input` as the model sent it; `output` as the model saw it. */
  toolIo(io: { toolCallId: string; toolName: string; input: unknown; output: string; isError: boolean }): void;
  /** The provider's usage for one model request, in the ai SDK's shape (modelStep.ts stepUsage). */
  usage(usage: Record<string, unknown>): void;
  /** A durable approval went out; the call waits for it (the log keeps it across restarts). */
  deferred?(pending: PendingPermission): void;
  /** A durable approval was answered (first answer wins); awaited before the call runs. */
  answered?(pending: PendingPermission, optionId: DurableAnswer): Promise<void>;
}

/**
 * Each input schema's JSON form, made once per schema object: converting a
 * zod schema costs milliseconds per tool, and every request of every turn
 * offers the same tools (a new `task` tool per turn still shares its schema).
 * The built-in tools carry theirs already (tools/inputSchemas.gen.ts), so a
 * first prompt neither builds their zod schemas nor converts them.
 */
const inputSchemas = new WeakMap<object, ModelTool['inputSchema']>();

/** Tool definitions for the model, deliberately without `execute`: every call goes through the gate. */
export async function modelTools(tools: readonly Tool<any>[]): Promise<ModelTool[]> {
  return tools.map((tool) => {
    const key: object = tool.inputJsonSchema ?? tool.input;
    let inputSchema = inputSchemas.get(key);
    if (!inputSchema) {
      inputSchema = (tool.inputJsonSchema ?? z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' })) as ModelTool['inputSchema'];
      inputSchemas.set(key, inputSchema);
    }
    return { type: 'function', name: tool.name, description: tool.description, inputSchema, providerOptions: undefined };
  });
}

export async function runTurn(session: Session, prompt: UserContent, deps: TurnDeps): Promise<StopReason> {
  return guarded(session, (signal) => loop(session, prompt, deps, signal));
}

/**
 * Answers a durable approval and goes on with the turn it ended: allow runs
 * the waiting call (only if it would still do what was shown), reject tells
 * the model. The caller has checked that `requestId` is pending.
 */
export async function answerPending(session: Session, requestId: string, optionId: DurableAnswer, deps: TurnDeps): Promise<StopReason> {
  return guarded(session, async (signal) => {
    const pending = session.pendingPermissions.get(requestId);
    if (!pending) throw new Error(`No pending approval ${requestId}`);
    session.pendingPermissions.delete(requestId);
    await deps.observer?.answered?.(pending, optionId);
    const call = { toolCallId: pending.toolCallId, toolName: pending.toolName, input: pending.input };
    let outcome: { forModel: string; isError: boolean };
    const failure = optionId === 'allow_once' && deps.untilReady ? await workspaceReady(deps, signal) : undefined;
    if (signal.aborted) return 'cancelled';
    if (failure !== undefined) {
      await session.updates.emit({ sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status: 'failed', content: [{ type: 'content', content: { type: 'text', text: failure } }] });
      outcome = { forModel: failure, isError: true };
    } else if (optionId === 'allow_once') {
      outcome = await runToolCall(call, {
        session,
        tools: new Map(deps.tools.map((tool) => [tool.name, tool])),
        gate: deps.gate,
        permissions: deps.permissions,
        context: turnContext(session, deps, signal),
        ...(deps.commandContext ? { commandContext: deps.commandContext } : {}),
        ...(deps.beforeChange ? { beforeChange: deps.beforeChange } : {}),
        approved: { content: pending.toolCall.content ?? [] },
      });
    } else {
      await session.updates.emit({ sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status: 'failed', content: [{ type: 'content', content: { type: 'text', text: DECLINED } }] });
      outcome = { forModel: DECLINED, isError: true };
    }
    deps.observer?.toolIo({ ...call, output: outcome.forModel, isError: outcome.isError });
    if (pending.personRan !== undefined) {
      // A `!cmd` line: no model call to answer, so the model just learns what the person ran (as runBangCommand does).
      session.appendHistory({ role: 'user', content: `I ran \`${pending.personRan}\` myself. Result:\n${outcome.forModel}` });
      return session.pendingPermissions.size > 0 ? 'waiting' : 'end_turn';
    }
    appendToolResults(session, [{ call, ...outcome }]);
    if (session.pendingPermissions.size > 0) return 'waiting';
    return loop(session, undefined, deps, signal);
  });
}

async function guarded(session: Session, work: (signal: AbortSignal) => Promise<StopReason>): Promise<StopReason> {
  const signal = session.beginTurn();
  try {
    return await work(signal);
  } catch (error) {
    // A bug must not leave the client with a stack trace or a dangling turn.
    if (signal.aborted) return 'cancelled';
    console.error('accord: the turn failed unexpectedly:', error);
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    await say(session, `\n\nAccord hit an internal error and stopped this turn: ${detail}. The details are in the agent log; send your message again to retry.`);
    return 'end_turn';
  } finally {
    session.endTurn();
  }
}

async function say(session: Session, text: string): Promise<void> {
  await session.updates.emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
}

/** `prompt` undefined: the turn goes on from the history as it is (after a durable approval). */
async function loop(session: Session, prompt: UserContent | undefined, deps: TurnDeps, signal: AbortSignal): Promise<StopReason> {
  const before = session.history.length;
  if (prompt !== undefined) session.appendHistory({ role: 'user', content: prompt });
  let model: ResolvedModel;
  try {
    model = await deps.model(session);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    await say(session, text);
    session.appendHistory({ role: 'assistant', content: text });
    return 'end_turn';
  }
  const toolsByName = new Map(deps.tools.map((tool) => [tool.name, tool]));
  const tools = await modelTools(deps.tools);

  let compactionFailed = false;
  for (let request = 1; ; request++) {
    if (signal.aborted) return 'cancelled';
    if (request > deps.maxTurnRequests) {
      await say(session, `\n\nStopped after ${deps.maxTurnRequests} model requests in one turn (the cap, ACCORD_MAX_TURN_REQUESTS). Send another message to continue.`);
      return 'max_turn_requests';
    }
    if (deps.compactAt !== undefined && !compactionFailed && pastThreshold(session, deps.compactAt)) {
      const keepFrom = currentTurnStart(session.history);
      if (worthCompacting(session.history, keepFrom)) {
        const compacted = await compact(session, {
          model, tools, signal, keepFrom, maxRetries: deps.maxRetries,
          ...(deps.observer ? { onUsage: deps.observer.usage.bind(deps.observer) } : {}),
        });
        if (!compacted.ok && compacted.cancelled) return 'cancelled';
        // Not retried before every request of this turn: one failed summary is enough cost (the next turn tries again).
        if (!compacted.ok) compactionFailed = true;
        // A failed compaction keeps the history (the client was told why); the request goes ahead as it is.
      }
    }
    const step = await streamOnce(session, model, tools, deps, signal);
    if (step.kind === 'cancelled') return 'cancelled';
    if (step.kind === 'failed') {
      const text = await describeModelError(step.error, model.id, model.endpoint);
      await say(session, `${step.streamedText ? '\n\n' : ''}${text}`);
      return 'end_turn';
    }
    session.appendHistory(...step.messages);
    const stoppedBy = step.finishReason === 'length' ? 'max_tokens' : step.finishReason === 'content-filter' ? 'refusal' : undefined;
    if (stoppedBy) {
      // Calls in a cut-off response are not run, but each still needs a result or the next request is invalid.
      if (step.calls.length) appendToolResults(session, step.calls.map((call) => ({ call, forModel: 'Not run: the response was cut off.', isError: true })));
      // A refused exchange (this prompt and all it led to) is left out of what the model sees next time, as ACP says clients show it.
      if (stoppedBy === 'refusal') session.resetHistory(session.history.slice(0, before), 'refusal');
      return stoppedBy;
    }
    if (step.calls.length === 0) {
      if (step.invalidCalls > 0) continue;
      return 'end_turn';
    }

    if (deps.untilReady) {
      const failure = await workspaceReady(deps, signal);
      if (signal.aborted) return 'cancelled';
      if (failure !== undefined) {
        await failCalls(session, step.calls, failure, deps);
        await say(session, `\n\n${failure}`);
        return 'end_turn';
      }
    }
    const results = await runCalls(session, step.calls, toolsByName, turnContext(session, deps, signal), deps, signal);
    const settled = results.filter((r) => !r.deferred);
    if (settled.length) appendToolResults(session, settled);
    const waiting = results.flatMap(({ call, deferred }) => (deferred ? [{ requestId: deferred.requestId, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, toolCall: deferred.toolCall }] : []));
    for (const pending of waiting) {
      session.pendingPermissions.set(pending.requestId, pending);
      deps.observer?.deferred?.(pending);
    }
    if (signal.aborted) return 'cancelled';
    // The calls that need an approval wait for it beyond this turn; the rest have their results already.
    if (waiting.length) return 'waiting';
  }
}
