// `!cmd args` prompts: the person runs one command themselves, no model
// involved. The line is split without a shell (policy/commandLine.ts), then
// goes through exactly what a model's run_command call goes through: the
// same gate, approval question, sandboxed runner and streamed tool card. A
// line that does not parse, or that the policy denies, ends the turn with
// `refusal` and a message saying why.
import { randomUUID } from 'node:crypto';
import type { UserContent } from 'ai';
import { splitCommandLine } from '../policy/commandLine';
import type { GateDecision } from './gate';
import type { Session } from './session';
import { runToolCall } from './toolCall';
import type { TurnDeps } from './turn';
import type { StopReason } from './updates';

/** The command line when the prompt is a `!` line (text only, starting with "!"), else undefined. */
export function bangLine(prompt: UserContent): string | undefined {
  const parts = typeof prompt === 'string' ? [{ type: 'text' as const, text: prompt }] : prompt;
  if (parts.length === 0 || !parts.every((p) => p.type === 'text')) return undefined;
  const text = parts.map((p) => (p as { text: string }).text).join('').trim();
  return text.startsWith('!') ? text.slice(1) : undefined;
}

async function say(session: Session, text: string): Promise<void> {
  await session.updates.emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
}

export async function runBangCommand(session: Session, line: string, deps: Omit<TurnDeps, 'model' | 'systemPrompt'>): Promise<StopReason> {
  const signal = session.beginTurn();
  try {
    const split = splitCommandLine(line);
    if (!split.ok) {
      await say(session, split.reason);
      return 'refusal';
    }
    const tool = deps.tools.find((t) => t.name === 'run_command');
    if (!tool) {
      await say(session, 'This agent has no run_command tool, so "!" commands cannot run.');
      return 'refusal';
    }
    let decided: GateDecision | undefined;
    const gate = {
      async decide(...args: Parameters<TurnDeps['gate']['decide']>) {
        decided = await deps.gate.decide(...args);
        return decided;
      },
      ...(deps.gate.why ? { why: deps.gate.why.bind(deps.gate) } : {}),
      ...(deps.gate.hides ? { hides: deps.gate.hides.bind(deps.gate) } : {}),
    };
    const context = {
      root: session.root,
      signal,
      commands: deps.commands,
      setPlan: () => undefined,
    };
    const call = { toolCallId: `bang_${randomUUID()}`, toolName: tool.name, input: { argv: split.argv } };
    const outcome = await runToolCall(call, {
      session,
      tools: new Map([[tool.name, tool]]),
      gate,
      permissions: deps.permissions,
      context,
      ...(deps.commandContext ? { commandContext: deps.commandContext } : {}),
      ...(deps.beforeChange ? { beforeChange: deps.beforeChange } : {}),
    });
    if (outcome.deferred) {
      // --durable-requests: the command waits for its approval; answering it runs the command and nothing more (no model).
      const pending = { requestId: outcome.deferred.requestId, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, toolCall: outcome.deferred.toolCall, personRan: line.trim() };
      session.pendingPermissions.set(pending.requestId, pending);
      deps.observer?.deferred?.(pending);
      return 'waiting';
    }
    deps.observer?.toolIo({ ...call, output: outcome.forModel, isError: outcome.isError });
    if (decided === 'deny') {
      await say(session, outcome.forModel);
      return 'refusal';
    }
    // The model learns what the person ran, so the next message can refer to it.
    session.appendHistory({ role: 'user', content: `I ran \`${line.trim()}\` myself. Result:\n${outcome.forModel}` });
    return signal.aborted ? 'cancelled' : 'end_turn';
  } finally {
    session.endTurn();
  }
}
