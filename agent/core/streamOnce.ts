// One model request of a turn: streamed to the client as it arrives (text,
// thoughts, failed calls, usage), and summed up for the loop as the calls to
// run, or why it stopped. What the person saw is kept in the history even when
// the request fails or is cancelled.
import type { ModelMessage } from '@ai-sdk/provider-utils';
import { StalledStreamError } from '../models/errors';
import type { ResolvedModel } from '../models/resolve';
import { measureRequest, USAGE_ESTIMATED_META } from '../models/usage';
import type { Session } from './session';
import type { ToolCallRequest } from './toolCall';
import type { TurnDeps } from './turn';
import { UpdateWindow } from './updateWindow';
import { idleWatch } from './idleWatch';
import { ModelStep, type ModelTool } from './modelStep';

/** How one model request ended, for the turn loop. */
export type StepResult =
  | { kind: 'cancelled' }
  | { kind: 'failed'; error: unknown; streamedText: boolean }
  | { kind: 'done'; messages: ModelMessage[]; calls: ToolCallRequest[]; invalidCalls: number; finishReason: string };

export async function streamOnce(
  session: Session,
  model: ResolvedModel,
  tools: ModelTool[],
  deps: TurnDeps,
  signal: AbortSignal,
): Promise<StepResult> {
  const calls: ToolCallRequest[] = [];
  let invalidCalls = 0;
  let error: unknown;
  let finishReason = 'other';
  let streamedText = '';
  // Chunks are not awaited one by one: those that arrive together are recorded and delivered together (updateWindow.ts).
  const updates = new UpdateWindow(session.updates.emit.bind(session.updates));
  const providerOptions = model.providerOptions(session.settings.reasoningEffort);
  const stall = idleWatch(signal, deps.streamIdleTimeoutMs);
  const step = new ModelStep({
    model: model.language,
    system: deps.systemPrompt(session),
    messages: session.history,
    tools,
    abortSignal: stall.signal,
    maxRetries: deps.maxRetries,
    ...(providerOptions ? { providerOptions } : {}),
  });
  try {
    for await (const part of step.parts()) {
      stall.touch();
      switch (part.type) {
        case 'text-delta':
          streamedText += part.text;
          await updates.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: part.text } });
          break;
        case 'reasoning-delta':
          if (part.text) await updates.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: part.text } });
          break;
        case 'tool-call':
          if (part.invalid) {
            // The step answers the model with a tool error for calls it could not parse (responseMessages).
            invalidCalls++;
            await updates.send({ sessionUpdate: 'tool_call', toolCallId: part.toolCallId, title: part.toolName, kind: 'other', status: 'failed', rawInput: part.input,
              content: [{ type: 'content', content: { type: 'text', text: `The model sent input that could not be read: ${String((part.error as Error | undefined)?.message ?? part.error).split('\n')[0]}` } }] });
          } else {
            calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
          }
          break;
        case 'finish-step': {
          finishReason = part.finishReason;
          deps.observer?.usage({ ...part.usage } as Record<string, unknown>);
          const measured = await measureRequest(model.parsed, part.usage, model.contextWindow);
          session.cost = session.cost === undefined || measured.cost === undefined ? undefined : session.cost + measured.cost;
          session.context = { used: measured.used, size: measured.size };
          await updates.send({
            sessionUpdate: 'usage_update',
            used: measured.used,
            size: measured.size,
            ...(session.cost !== undefined ? { cost: { amount: session.cost, currency: 'USD' } } : {}),
            ...(model.estimatedUsage ? { _meta: { [USAGE_ESTIMATED_META]: true } } : {}),
          });
          break;
        }
        case 'error':
          error ??= part.error;
          break;
        default:
          break;
      }
    }
  } catch (thrown) {
    error ??= thrown;
  } finally {
    stall.stop();
  }
  // Everything streamed reaches the client before the turn goes on (or ends and answers the prompt).
  await updates.drain();
  if (stall.stalled()) error = new StalledStreamError(deps.streamIdleTimeoutMs);
  if (signal.aborted) {
    // Keep what the person already saw, so the next turn's model knows it.
    if (streamedText) session.appendHistory({ role: 'assistant', content: streamedText });
    return { kind: 'cancelled' };
  }
  if (error !== undefined) {
    if (streamedText) session.appendHistory({ role: 'assistant', content: streamedText });
    return { kind: 'failed', error, streamedText: streamedText.length > 0 };
  }
  return { kind: 'done', messages: step.responseMessages(), calls, invalidCalls, finishReason };
}
