// A realistic session log for the benches: turns of about 100 records
// (prompt, thoughts, a tool call with approval and diff, a streamed answer,
// usage), written the way the agent writes them: through the agent's own
// writer (compact `more` records for continued text chunks, agent/log/compact.ts),
// with the update shapes agent/core emits (text chunks carry no messageId).
import type { LogEvent, SessionStore } from '../agent/log';

const WORDS = 'the function returns a promise that resolves once every pending record is written to disk and synced'.split(' ');

/** A streamed text delta as providers send them: a few words. */
export function delta(i: number): string {
  const n = 2 + (i % 4);
  return `${Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k) % WORDS.length]).join(' ')} `;
}

/** A streamed answer chunk as agent/core/streamOnce.ts emits it. */
export function chunkEvent(i: number): LogEvent {
  return { type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: delta(i) } } };
}

/** One turn of about 100 records: prompt, thoughts, a tool call with approval and diff, a streamed answer, usage. */
export function turn(n: number): LogEvent[] {
  const callId = `toolu_${n.toString(36).padStart(10, '0')}`;
  const diff = { type: 'diff', path: `/work/project/src/file${n}.ts`, oldText: 'const a = 1;\n'.repeat(20), newText: 'const a = 2;\n'.repeat(20) };
  const answer = Array.from({ length: 80 }, (_, i) => chunkEvent(n * 100 + i));
  return [
    { type: 'turn_start' },
    { type: 'user_prompt', prompt: [{ type: 'text', text: `Please change a in file${n}.ts and explain why` }] },
    { type: 'model_message', message: { role: 'user', content: [{ type: 'text', text: `Please change a in file${n}.ts and explain why` }] } },
    ...Array.from({ length: 8 }, (_, i): LogEvent => ({ type: 'update', update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: delta(i) } } })),
    { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: callId, title: `Edit file${n}.ts`, kind: 'edit', status: 'pending', content: [diff] } },
    { type: 'permission_request', toolCallId: callId, request: { toolCall: { toolCallId: callId }, options: [{ optionId: 'allow', kind: 'allow_once', name: 'Allow' }, { optionId: 'reject', kind: 'reject_once', name: 'Reject' }] } },
    { type: 'permission_answer', toolCallId: callId, outcome: { outcome: 'selected', optionId: 'allow' } },
    { type: 'tool_io', toolCallId: callId, toolName: 'edit_file', input: { path: `src/file${n}.ts`, oldText: 'const a = 1;', newText: 'const a = 2;' }, output: 'Edited src/file.ts (20 replacements)' },
    { type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'completed', content: [diff] } },
    { type: 'model_message', message: { role: 'assistant', content: [{ type: 'tool-call', toolCallId: callId, toolName: 'edit_file', input: { path: `src/file${n}.ts` } }] } },
    { type: 'model_message', message: { role: 'tool', content: [{ type: 'tool-result', toolCallId: callId, toolName: 'edit_file', output: { type: 'text', value: 'Edited' } }] } },
    ...answer,
    { type: 'model_message', message: { role: 'assistant', content: [{ type: 'text', text: answer.map((_, i) => delta(n * 100 + i)).join('') }] } },
    { type: 'update', update: { sessionUpdate: 'usage_update', used: 1000 + n, size: 200_000, cost: { amount: 0.001 * n, currency: 'USD' } } },
    { type: 'usage', usage: { inputTokens: 1000 + n, outputTokens: 240, cachedInputTokens: 800 } },
    { type: 'turn_end', stopReason: 'end_turn' },
  ];
}

export interface WrittenLog {
  /** fdatasyncs asked for (turn ends and approvals). */
  syncs: number;
  /** agent_message_chunk records written, the bytes of their lines as written (newline included) and of their text. */
  chunks: { count: number; lineBytes: number; textBytes: number };
}

/** Writes a log of `events` records (session_created included) as the agent would: batched, synced at turn ends and approvals. */
export async function writeSessionLog(store: SessionStore, id: string, events: number): Promise<WrittenLog> {
  const log = await store.create({ id, cwd: '/work/project', agentVersion: 'bench', config: { model: 'anthropic/claude-sonnet' } });
  let written = 1;
  let syncs = 0;
  const chunks = { count: 0, lineBytes: 0, textBytes: 0 };
  for (let n = 0; written < events; n++) {
    for (const event of turn(n)) {
      if (written >= events) break;
      const durable = event.type === 'turn_end' || event.type === 'permission_answer';
      const { offset } = log.append(event, { durable });
      if (event.type === 'update' && event.update.sessionUpdate === 'agent_message_chunk') {
        // The line's length as the writer laid it out: the next record starts where this one ends.
        chunks.count++;
        chunks.lineBytes += log.size - offset;
        chunks.textBytes += Buffer.byteLength((event.update.content as { text: string }).text);
      }
      syncs += durable ? 1 : 0;
      written++;
    }
    await log.sync();
  }
  await log.close();
  return { syncs, chunks };
}
