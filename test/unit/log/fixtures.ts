// Shared by the log tests: temp data dirs and a realistic recorded turn.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogEvent, NewSession } from '../../../agent/log';

export async function tempDataDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'accord-log-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export const newSession = (cwd = '/work/project'): NewSession => ({
  cwd,
  agentVersion: '0.1.0',
  config: { model: 'anthropic/claude-sonnet', mode: 'ask' },
});

export function chunk(text: string, messageId = 'm1'): LogEvent {
  return { type: 'update', update: { sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text } } };
}

/** One turn with a thought, an approved edit (diff), a plan and usage, as the agent would record it. */
export function recordedTurn(n: number): LogEvent[] {
  const callId = `call_${n}`;
  const diff = { type: 'diff', path: '/work/project/a.ts', oldText: 'let a = 1;\n', newText: `let a = ${n};\n` };
  return [
    { type: 'turn_start' },
    { type: 'user_prompt', prompt: [{ type: 'text', text: `Set a to ${n} — “quoted” ✓` }] },
    { type: 'model_message', message: { role: 'user', content: [{ type: 'text', text: `Set a to ${n}` }] } },
    { type: 'update', update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Need to edit a.ts' } } },
    { type: 'update', update: { sessionUpdate: 'plan', entries: [{ content: 'edit a.ts', priority: 'high', status: 'in_progress' }] } },
    { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: callId, title: 'Edit a.ts', kind: 'edit', status: 'pending', content: [diff] } },
    { type: 'permission_request', toolCallId: callId, request: { toolCall: { toolCallId: callId }, options: [{ optionId: 'allow', kind: 'allow_once', name: 'Allow' }] } },
    { type: 'permission_answer', toolCallId: callId, outcome: { outcome: 'selected', optionId: 'allow' } },
    { type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'in_progress' } },
    { type: 'tool_io', toolCallId: callId, toolName: 'edit', input: { path: 'a.ts', newText: `let a = ${n};` }, output: 'edited a.ts' },
    { type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'completed', content: [diff] } },
    { type: 'model_message', message: { role: 'assistant', content: [{ type: 'tool-call', toolCallId: callId, toolName: 'edit', input: { path: 'a.ts' } }] } },
    { type: 'model_message', message: { role: 'tool', content: [{ type: 'tool-result', toolCallId: callId, toolName: 'edit', output: { type: 'text', value: 'edited a.ts' } }] } },
    chunk('Done: ', `m${n}`),
    chunk(`a is ${n} now.`, `m${n}`),
    { type: 'model_message', message: { role: 'assistant', content: [{ type: 'text', text: `Done: a is ${n} now.` }] } },
    { type: 'update', update: { sessionUpdate: 'usage_update', used: 1200 * n, size: 200000, cost: { amount: 0.01 * n, currency: 'USD' } } },
    { type: 'usage', usage: { inputTokens: 1000, outputTokens: 200 } },
    { type: 'turn_end', stopReason: 'end_turn' },
  ];
}
