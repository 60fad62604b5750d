// Compaction: a model call summarises the older part of the history, and the
// summary replaces it in what the model sees from then on. The log keeps
// everything (the old messages stay in it; a history_reset record marks the
// new start), the client gets compaction_update / compaction_summary_chunk
// (or a message, see acp/clientView.ts), and the gauge drops. A compaction
// that fails or is cancelled changes nothing and says why.
import { randomUUID } from 'node:crypto';
import type { ModelMessage } from '@ai-sdk/provider-utils';
import { describeModelError } from '../models/errors';
import type { ResolvedModel } from '../models/resolve';
import { measureRequest } from '../models/usage';
import type { Session } from './session';
import { UpdateWindow } from './updateWindow';
import { ModelStep, type ModelTool } from './modelStep';

/** Where auto-compaction starts, as a share of the context window (ACCORD_COMPACT_AT, in percent). */
export const DEFAULT_COMPACT_AT = 0.8;

const SUMMARY_PREFIX = 'Summary of the conversation so far (older messages were compacted to free context):';

const SUMMARY_SYSTEM = [
  'You compact a conversation between a person and Accord, a coding agent, so the agent can continue without the older messages.',
  'Write a concise summary that keeps everything needed to continue: the person\'s goals and instructions, decisions made, files read or changed (with paths) and what changed, commands run and their outcomes, open questions and the next steps.',
  'Do not call tools. Reply with the summary only.',
].join('\n');

export interface CompactionRequest {
  model: ResolvedModel;
  /** The tool definitions the history's tool calls refer to (some providers require them); never called. */
  tools: ModelTool[];
  signal: AbortSignal;
  /** Messages before this index are summarised; the rest stay as they are. */
  keepFrom: number;
  /** What the person asked the summary to focus on (`/compact <text>`). */
  instructions?: string;
  maxRetries: number;
  /** The provider's usage for the summary request (the session log records it). */
  onUsage?(usage: Record<string, unknown>): void;
}

export type CompactionOutcome =
  | { ok: true; compactionId: string; removedMessages: number; usedBefore: number | undefined; usedAfter: number | undefined }
  | { ok: false; reason: string; cancelled: boolean };

/** True when a message is a summary this module wrote. */
function isSummary(message: ModelMessage | undefined): boolean {
  return message?.role === 'user' && typeof message.content === 'string' && message.content.startsWith(SUMMARY_PREFIX);
}

/** Whether `history[0, keepFrom)` has anything left to compact (more than an earlier summary). */
export function worthCompacting(history: readonly ModelMessage[], keepFrom: number): boolean {
  if (keepFrom <= 0) return false;
  return !(keepFrom <= 2 && isSummary(history[0]));
}

/** Where an automatic compaction in the middle of a turn cuts: at the current turn's prompt, so its tool calls stay whole. */
export function currentTurnStart(history: readonly ModelMessage[]): number {
  return history.findLastIndex((m) => m.role === 'user' && !isSummary(m));
}

/** True when the last gauge reading is at or past `threshold` of the window. */
export function pastThreshold(session: Session, threshold: number): boolean {
  const context = session.context;
  return context !== undefined && context.size > 0 && context.used / context.size >= threshold;
}

const chars = (messages: readonly ModelMessage[]) => JSON.stringify(messages).length;

export async function compact(session: Session, request: CompactionRequest): Promise<CompactionOutcome> {
  const compactionId = `compaction_${randomUUID()}`;
  const emit = session.updates.emit.bind(session.updates);
  const history = [...session.history];
  const older = history.slice(0, request.keepFrom);
  const kept = history.slice(request.keepFrom);
  await emit({ sessionUpdate: 'compaction_update', compactionId, status: 'in_progress' });
  const fail = async (reason: string, cancelled: boolean): Promise<CompactionOutcome> => {
    await emit({ sessionUpdate: 'compaction_update', compactionId, status: cancelled ? 'cancelled' : 'failed', error: reason });
    return { ok: false, reason, cancelled };
  };
  if (older.length === 0) return fail('There is nothing to compact yet.', false);

  const ask = `Summarise the conversation above for the agent to continue from.${request.instructions ? ` The person asks the summary to focus on: ${request.instructions}` : ''}`;
  let summary = '';
  let error: unknown;
  const step = new ModelStep({
    model: request.model.language,
    system: SUMMARY_SYSTEM,
    messages: [...older, { role: 'user', content: ask }],
    tools: request.tools,
    toolChoice: 'none',
    abortSignal: request.signal,
    maxRetries: request.maxRetries,
  });
  // Streamed like a response: chunks that arrive together are recorded and delivered together.
  const chunks = new UpdateWindow(emit);
  try {
    for await (const part of step.parts()) {
      if (part.type === 'text-delta' && part.text) {
        summary += part.text;
        await chunks.send({ sessionUpdate: 'compaction_summary_chunk', compactionId, content: { type: 'text', text: part.text } });
      } else if (part.type === 'finish-step') {
        request.onUsage?.({ ...part.usage } as Record<string, unknown>);
        // The summary is a paid request like any other.
        const measured = await measureRequest(request.model.parsed, part.usage, request.model.contextWindow);
        session.cost = session.cost === undefined || measured.cost === undefined ? undefined : session.cost + measured.cost;
      } else if (part.type === 'error') {
        error ??= part.error;
      }
    }
  } catch (thrown) {
    error ??= thrown;
  }
  await chunks.drain();
  if (request.signal.aborted) return fail('Cancelled before the summary was complete; the history is unchanged.', true);
  if (error !== undefined) return fail(await describeModelError(error, request.model.id, request.model.endpoint), false);
  if (!summary.trim()) return fail('The model returned an empty summary; the history is unchanged.', false);

  const replacement: ModelMessage[] = [
    { role: 'user', content: `${SUMMARY_PREFIX}\n\n${summary.trim()}` },
    { role: 'assistant', content: 'Understood. I will continue from this summary.' },
  ];
  const next = [...replacement, ...kept];
  session.resetHistory(next, 'compaction');
  await emit({ sessionUpdate: 'compaction_update', compactionId, status: 'completed', summary: [{ type: 'text', text: summary.trim() }] });

  // The exact count comes with the next request; until then the gauge shows the
  // old reading scaled by how much of the history's text remains.
  const usedBefore = session.context?.used;
  let usedAfter: number | undefined;
  if (session.context) {
    usedAfter = Math.max(0, Math.round((session.context.used * chars(next)) / Math.max(1, chars(history))));
    session.context = { ...session.context, used: usedAfter };
    await emit({
      sessionUpdate: 'usage_update',
      used: usedAfter,
      size: session.context.size,
      ...(session.cost !== undefined ? { cost: { amount: session.cost, currency: 'USD' } } : {}),
    });
  }
  return { ok: true, compactionId, removedMessages: older.length, usedBefore, usedAfter };
}
