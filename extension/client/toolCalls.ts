// The tool calls each session announced, merged by ACP's patch rules
// (`content` and `locations` replace; other fields overwrite when present),
// so a permission request that carries only a toolCallId still shows the
// whole call. Pure: no vscode import.
import type { SessionUpdate, ToolCallUpdate } from '@agentclientprotocol/sdk/unstable';

const MAX_PER_SESSION = 500;

export class ToolCalls {
  private readonly bySession = new Map<string, Map<string, ToolCallUpdate>>();

  record(sessionId: string, update: SessionUpdate): void {
    if (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update') return;
    const { sessionUpdate: _kind, ...call } = update;
    const calls = this.bySession.get(sessionId) ?? new Map<string, ToolCallUpdate>();
    this.bySession.set(sessionId, calls);
    calls.set(call.toolCallId, merge(calls.get(call.toolCallId), call));
    if (calls.size > MAX_PER_SESSION) calls.delete(calls.keys().next().value as string);
  }

  /** The request's own fields win over what was announced before. */
  complete(sessionId: string, toolCall: ToolCallUpdate): ToolCallUpdate {
    return merge(this.bySession.get(sessionId)?.get(toolCall.toolCallId), toolCall);
  }

  /** The call as the session announced it, before any request. */
  announced(sessionId: string, toolCallId: string): ToolCallUpdate | undefined {
    return this.bySession.get(sessionId)?.get(toolCallId);
  }

  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
  }
}

function merge(base: ToolCallUpdate | undefined, patch: ToolCallUpdate): ToolCallUpdate {
  const out: ToolCallUpdate = { ...(base ?? { toolCallId: patch.toolCallId }) };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined && value !== null) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
