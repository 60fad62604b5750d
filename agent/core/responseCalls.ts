// Running one model response's tool calls and answering each in the history:
// every call the model asked for gets exactly one result (run, declined,
// cancelled or failed), or the next model request would be invalid.
import type { PlanEntry, Tool } from '../tools/tool';
import type { Session } from './session';
import { CallScheduler, claimsFor } from './callScheduler';
import { runToolCall, type ToolCallDeps, type ToolCallOutcome, type ToolCallRequest } from './toolCall';
import type { TurnDeps } from './turn';

const cancelledResult = 'Cancelled by the person before this call ran.';

/** What a turn's tool calls run with: the session's root, the turn's signal, its commands and plan. */
export function turnContext(session: Session, deps: TurnDeps, signal: AbortSignal): ToolCallDeps['context'] {
  return {
    root: session.root,
    signal,
    commands: deps.commands,
    setPlan: (entries: PlanEntry[]) => {
      session.plan = entries;
      void session.updates.emit({ sessionUpdate: 'plan', entries });
    },
  };
}

/** Each call is shown failed with `reason` and answered with it, so the history stays valid for a next request. */
export async function failCalls(session: Session, calls: ToolCallRequest[], reason: string, deps: TurnDeps): Promise<void> {
  for (const call of calls) {
    await session.updates.emit({ sessionUpdate: 'tool_call', toolCallId: call.toolCallId, title: call.toolName, kind: 'other', status: 'failed', rawInput: call.input,
      content: [{ type: 'content', content: { type: 'text', text: reason } }] } as never);
    deps.observer?.toolIo({ ...call, output: reason, isError: true });
  }
  appendToolResults(session, calls.map((call) => ({ call, forModel: reason, isError: true })));
}

/**
 * Runs one response's calls, concurrently where safe (callScheduler.ts). Each
 * call is started in the model's order, so announcements keep that order; the
 * results go back in that order too, whatever order they finished in.
 */
export async function runCalls(
  session: Session,
  calls: ToolCallRequest[],
  toolsByName: ReadonlyMap<string, Tool<any>>,
  context: ToolCallDeps['context'],
  deps: TurnDeps,
  signal: AbortSignal,
): Promise<Array<{ call: ToolCallRequest } & ToolCallOutcome>> {
  const scheduler = new CallScheduler(calls.length);
  const run = async (call: ToolCallRequest, index: number) => {
    try {
      if (signal.aborted) return { call, forModel: cancelledResult, isError: true } as { call: ToolCallRequest } & ToolCallOutcome;
      const outcome = await runToolCall(call, {
        session,
        tools: toolsByName,
        gate: deps.gate,
        permissions: deps.permissions,
        context,
        ...(deps.commandContext ? { commandContext: deps.commandContext } : {}),
        ...(deps.beforeChange ? { beforeChange: deps.beforeChange } : {}),
        admit: (kind, paths) => scheduler.admit(index, claimsFor(kind, paths)),
      });
      return { call, ...outcome };
    } finally {
      scheduler.done(index);
    }
  };
  const results = await Promise.all(calls.map(run));
  // The audit trail lists calls in the model's order, whatever order they finished in.
  for (const { call, forModel, isError, deferred } of results) {
    if (!deferred) deps.observer?.toolIo({ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, output: forModel, isError });
  }
  return results;
}

/** One tool message with a result for each call; a failure goes as error text, which the model reads as the call having failed. */
export function appendToolResults(session: Session, results: Array<{ call: ToolCallRequest; forModel: string; isError: boolean }>): void {
  session.appendHistory({
    role: 'tool',
    content: results.map(({ call, forModel, isError }) => ({
      type: 'tool-result' as const,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: isError ? { type: 'error-text' as const, value: forModel } : { type: 'text' as const, value: forModel },
    })),
  });
}
