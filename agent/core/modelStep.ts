// One model request of a turn, driven directly: the model's doStream and its
// part stream, read without the ai SDK's streamText and its chain of web
// TransformStreams (and without loading its 450 KB bundle in a fresh process).
// It yields what the turn acts on (text and reasoning deltas as they come,
// tool calls parsed or flagged invalid, the finish with usage, errors) and
// afterwards the response messages for the history. Everything here matches
// what streamText 6 gave for the same model stream, so histories written
// before replay the same: test/unit/agent/modelStep.diff.test.ts runs both.
import { AISDKError, type JSONObject, type LanguageModelV3, type LanguageModelV3CallOptions, type LanguageModelV3FunctionTool, type LanguageModelV3StreamPart, type LanguageModelV3Usage, type SharedV3ProviderMetadata, type SharedV3ProviderOptions } from '@ai-sdk/provider';
import { convertUint8ArrayToBase64, getErrorMessage, safeParseJSON, type AssistantContent, type ModelMessage, type ToolContent } from '@ai-sdk/provider-utils';
import { toModelPrompt } from '../models/modelPrompt';
import { withRetries } from '../models/retry';

/** A tool as the model is offered it: a JSON schema, no `execute` (every call goes through the gate). */
export type ModelTool = LanguageModelV3FunctionTool;

export interface StepRequest {
  /** The provider's model (LanguageModelV3). */
  model: unknown;
  system: string;
  messages: readonly ModelMessage[];
  tools: readonly ModelTool[];
  /** 'none': the model may not call tools (a compaction's summary); a call it makes anyway fails the step. */
  toolChoice?: 'auto' | 'none';
  providerOptions?: SharedV3ProviderOptions;
  headers?: Record<string, string | undefined>;
  maxOutputTokens?: number;
  abortSignal: AbortSignal;
  maxRetries: number;
}

/** Usage as the ai SDK 6 reports it (LanguageModelUsage), from the provider's V3 counts. */
export interface StepUsage {
  inputTokens: number | undefined;
  inputTokenDetails: { noCacheTokens: number | undefined; cacheReadTokens: number | undefined; cacheWriteTokens: number | undefined };
  outputTokens: number | undefined;
  outputTokenDetails: { textTokens: number | undefined; reasoningTokens: number | undefined };
  totalTokens: number | undefined;
  raw?: JSONObject | undefined;
  reasoningTokens?: number | undefined;
  cachedInputTokens?: number | undefined;
}

export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

export type StepPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean; invalid?: false }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean; invalid: true; error: Error }
  | { type: 'finish-step'; finishReason: FinishReason; rawFinishReason: string | undefined; usage: StepUsage }
  | { type: 'error'; error: unknown };

export class NoSuchToolError extends AISDKError {
  constructor(readonly toolName: string, availableTools: readonly string[]) {
    super({ name: 'AI_NoSuchToolError', message: `Model tried to call unavailable tool '${toolName}'. Available tools: ${availableTools.join(', ')}.` });
  }
}

export class InvalidToolInputError extends AISDKError {
  constructor(readonly toolName: string, readonly toolInput: string, cause: unknown) {
    super({ name: 'AI_InvalidToolInputError', message: `Invalid input for tool ${toolName}: ${getErrorMessage(cause)}`, cause });
  }
}

export class NoOutputGeneratedError extends AISDKError {
  constructor(message: string) {
    super({ name: 'AI_NoOutputGeneratedError', message });
  }
}

export class ToolChoiceViolationError extends AISDKError {
  constructor() {
    super({ name: 'AI_ToolChoiceViolationError', message: 'Model response contained a tool call even though tool choice was none.' });
  }
}

type Metadata = SharedV3ProviderMetadata | undefined;
type Recorded =
  | { type: 'text' | 'reasoning'; text: string; providerMetadata: Metadata }
  | { type: 'file'; base64: string; mediaType: string; providerMetadata: Metadata }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; invalid: boolean; providerExecuted: boolean | undefined; providerMetadata: Metadata }
  | { type: 'provider-result'; toolCallId: string; toolName: string; result: unknown; isError: boolean; providerMetadata: Metadata }
  | { type: 'approval'; approvalId: string; toolCallId: string };

/**
 * The text or reasoning parts of a response that are open, by the provider's
 * id, as streamText tracks them: an id used again (while open or after) starts
 * a new part under a key of its own, and a delta or end whose id is not open
 * is reported rather than dropped.
 */
class OpenParts<T extends 'text' | 'reasoning'> {
  private readonly used = new Set<string>();
  private readonly keys = new Map<string, object | string>();
  private readonly open = new Map<object | string, Recorded & { type: T }>();

  constructor(private readonly type: T) {}

  start(id: string, providerMetadata: Metadata): Recorded & { type: T } {
    const key = this.used.has(id) ? {} : id;
    this.used.add(id);
    this.keys.set(id, key);
    const entry = { type: this.type, text: '', providerMetadata } as Recorded & { type: T };
    this.open.set(key, entry);
    return entry;
  }

  /** False: no part with this id is open. */
  delta(id: string, text: string, providerMetadata: Metadata): boolean {
    const entry = this.open.get(this.keys.get(id) ?? id);
    if (!entry) return false;
    entry.text += text;
    entry.providerMetadata = providerMetadata ?? entry.providerMetadata;
    return true;
  }

  /** False: no part with this id is open. */
  end(id: string, providerMetadata: Metadata): boolean {
    const key = this.keys.get(id) ?? id;
    this.keys.delete(id);
    const entry = this.open.get(key);
    if (!entry) return false;
    entry.providerMetadata = providerMetadata ?? entry.providerMetadata;
    this.open.delete(key);
    return true;
  }
}

/** An empty stream's usage: every count unknown. */
const unknownUsage = (): StepUsage => ({
  inputTokens: undefined,
  inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined },
  outputTokens: undefined,
  outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
  totalTokens: undefined,
  raw: undefined,
});

export function stepUsage(usage: LanguageModelV3Usage): StepUsage {
  const input = usage.inputTokens.total;
  const output = usage.outputTokens.total;
  return {
    inputTokens: input,
    inputTokenDetails: { noCacheTokens: usage.inputTokens.noCache, cacheReadTokens: usage.inputTokens.cacheRead, cacheWriteTokens: usage.inputTokens.cacheWrite },
    outputTokens: output,
    outputTokenDetails: { textTokens: usage.outputTokens.text, reasoningTokens: usage.outputTokens.reasoning },
    totalTokens: input == null && output == null ? undefined : (input ?? 0) + (output ?? 0),
    raw: usage.raw,
    reasoningTokens: usage.outputTokens.reasoning,
    cachedInputTokens: usage.inputTokens.cacheRead,
  };
}

/** Parts that show the model answered something (a stream of only these and no finish is not empty). */
const outputParts = new Set(['file', 'source', 'text-start', 'text-end', 'text-delta', 'reasoning-start', 'reasoning-end', 'reasoning-delta', 'tool-input-start', 'tool-input-end', 'tool-input-delta', 'tool-approval-request', 'tool-call', 'tool-result']);

/**
 * One request: iterate `parts()` once, then read `responseMessages()`.
 * Provider text/reasoning ids are only unique while open; an id opened again
 * starts a new part, and a delta for an id that is not open is an error.
 */
export class ModelStep {
  private readonly recorded: Recorded[] = [];
  /** Calls answered with a tool error for the model (unknown tool, unreadable input), in the model's order. */
  private readonly toolErrors: Array<{ toolCallId: string; toolName: string; message: string }> = [];

  constructor(private readonly request: StepRequest) {}

  async *parts(): AsyncGenerator<StepPart> {
    const { request } = this;
    const model = request.model as LanguageModelV3;
    let stream: ReadableStream<LanguageModelV3StreamPart>;
    const toolNames = request.tools.map((tool) => tool.name);
    try {
      if (typeof model !== 'object' || model === null || model.specificationVersion !== 'v3') throw new Error('The model does not implement the LanguageModelV3 interface.');
      const prompt = await toModelPrompt(request.system, request.messages, await model.supportedUrls, request.abortSignal);
      const none = request.toolChoice === 'none';
      const options: LanguageModelV3CallOptions = {
        prompt,
        ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
        tools: request.tools.length > 0 ? [...request.tools] : undefined,
        toolChoice: request.tools.length > 0 ? { type: request.toolChoice ?? 'auto' } : none ? { type: 'none' } : undefined,
        ...(request.providerOptions ? { providerOptions: request.providerOptions } : {}),
        abortSignal: request.abortSignal,
        ...(request.headers ? { headers: request.headers } : {}),
        includeRawChunks: false,
      };
      ({ stream } = await withRetries(() => model.doStream(options), request.maxRetries, request.abortSignal));
    } catch (error) {
      yield { type: 'error', error };
      return;
    }

    const withhold = request.toolChoice === 'none';
    let withheldCall = false;
    const texts = new OpenParts('text');
    const reasonings = new OpenParts('reasoning');
    let finishReason: FinishReason = 'other';
    let rawFinishReason: string | undefined;
    let usage = unknownUsage();
    let terminal = false;
    let output = false;

    const reader = stream.getReader();
    const signal = request.abortSignal;
    // A provider that ignores the signal must not hold the turn: a read loses to an abort.
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<{ done: true; value: undefined }>((resolve) => {
      onAbort = () => resolve({ done: true, value: undefined });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      for (;;) {
        let next: { done: true; value?: LanguageModelV3StreamPart | undefined } | { done: false; value: LanguageModelV3StreamPart };
        try {
          next = await Promise.race([reader.read(), aborted]);
        } catch (error) {
          if (signal.aborted) return;
          yield { type: 'error', error };
          return;
        }
        if (signal.aborted || next.done) break;
        const part = next.value;
        const type = part.type;
        if (withhold && (type === 'tool-input-start' || type === 'tool-input-delta' || type === 'tool-input-end' || type === 'tool-approval-request' || type === 'tool-result')) continue;
        if (withhold && type === 'tool-call') {
          withheldCall = true;
          continue;
        }
        if (outputParts.has(type)) output = true;
        switch (part.type) {
          case 'text-start':
            this.recorded.push(texts.start(part.id, part.providerMetadata));
            break;
          case 'text-delta':
            // An empty delta that carries nothing is dropped before anything looks at its id.
            if (part.delta.length === 0 && part.providerMetadata == null) break;
            yield { type: 'text-delta', text: part.delta };
            if (!texts.delta(part.id, part.delta, part.providerMetadata)) yield { type: 'error', error: `text part ${part.id} not found` };
            break;
          case 'text-end':
            if (!texts.end(part.id, part.providerMetadata)) yield { type: 'error', error: `text part ${part.id} not found` };
            break;
          case 'reasoning-start':
            this.recorded.push(reasonings.start(part.id, part.providerMetadata));
            break;
          case 'reasoning-delta':
            yield { type: 'reasoning-delta', text: part.delta };
            if (!reasonings.delta(part.id, part.delta, part.providerMetadata)) yield { type: 'error', error: `reasoning part ${part.id} not found` };
            break;
          case 'reasoning-end':
            if (!reasonings.end(part.id, part.providerMetadata)) yield { type: 'error', error: `reasoning part ${part.id} not found` };
            break;
          case 'file':
            this.recorded.push({ type: 'file', base64: typeof part.data === 'string' ? part.data : convertUint8ArrayToBase64(part.data), mediaType: part.mediaType, providerMetadata: part.providerMetadata });
            break;
          case 'tool-call': {
            const call = await parseToolCall(part, toolNames);
            this.recorded.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, invalid: call.invalid === true, providerExecuted: call.providerExecuted, providerMetadata: part.providerMetadata });
            if (call.invalid && !call.providerExecuted) this.toolErrors.push({ toolCallId: call.toolCallId, toolName: call.toolName, message: getErrorMessage(call.error) });
            yield call;
            break;
          }
          case 'tool-result':
            // A provider-executed tool's result (a web search, say): kept in the assistant's message, as sent.
            this.recorded.push({ type: 'provider-result', toolCallId: part.toolCallId, toolName: part.toolName, result: part.result, isError: part.isError === true, providerMetadata: part.providerMetadata });
            break;
          case 'tool-approval-request': {
            const call = this.recorded.find((r): r is Recorded & { type: 'tool-call' } => r.type === 'tool-call' && r.toolCallId === part.toolCallId);
            if (!call) yield { type: 'error', error: new AISDKError({ name: 'AI_ToolCallNotFoundForApprovalError', message: `Tool call "${part.toolCallId}" not found for approval request "${part.approvalId}".` }) };
            else this.recorded.push({ type: 'approval', approvalId: part.approvalId, toolCallId: part.toolCallId });
            break;
          }
          case 'finish':
            terminal = true;
            finishReason = part.finishReason.unified;
            rawFinishReason = part.finishReason.raw;
            usage = stepUsage(part.usage);
            if (withheldCall) {
              finishReason = 'error';
              yield { type: 'error', error: new ToolChoiceViolationError() };
            }
            break;
          case 'error':
            terminal = true;
            finishReason = 'error';
            yield { type: 'error', error: part.error };
            break;
          default:
            break; // stream-start, response-metadata, source, tool-input-*, raw: nothing the turn keeps
        }
      }
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
      // Stop the provider's stream (and its connection) when the step ends early; never wait on a stuck one.
      reader.cancel().catch(() => undefined);
    }
    if (signal.aborted) return;
    if (!terminal && !output) {
      yield { type: 'error', error: new NoOutputGeneratedError('No output generated. The model stream ended without a finish chunk.') };
      return;
    }
    yield { type: 'finish-step', finishReason, rawFinishReason, usage };
  }

  /** The assistant's message and, for calls answered with a tool error, the tool message: what goes into the history. */
  responseMessages(): ModelMessage[] {
    const content: AssistantContent & unknown[] = [];
    const order = new Map<string, number>();
    for (const part of this.recorded) {
      switch (part.type) {
        case 'text':
          if (part.text.length > 0) content.push({ type: 'text', text: part.text, providerOptions: part.providerMetadata });
          break;
        case 'reasoning':
          content.push({ type: 'reasoning', text: part.text, providerOptions: part.providerMetadata });
          break;
        case 'file':
          content.push({ type: 'file', data: part.base64, mediaType: part.mediaType, providerOptions: part.providerMetadata });
          break;
        case 'tool-call':
          if (!order.has(part.toolCallId)) order.set(part.toolCallId, order.size);
          content.push({
            type: 'tool-call',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.invalid && typeof part.input !== 'object' ? {} : part.input,
            providerExecuted: part.providerExecuted,
            providerOptions: part.providerMetadata,
          });
          break;
        case 'provider-result':
          content.push({
            type: 'tool-result',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            output: part.isError
              ? { type: 'error-json', value: (part.result ?? null) as never }
              : typeof part.result === 'string' ? { type: 'text', value: part.result } : { type: 'json', value: (part.result ?? null) as never },
            providerOptions: part.providerMetadata,
          });
          break;
        case 'approval':
          content.push({ type: 'tool-approval-request', approvalId: part.approvalId, toolCallId: part.toolCallId });
          break;
      }
    }
    const messages: ModelMessage[] = [];
    if (content.length > 0) messages.push({ role: 'assistant', content });
    if (this.toolErrors.length > 0) {
      const rank = (id: string) => order.get(id) ?? Number.MAX_SAFE_INTEGER;
      const results: ToolContent = this.toolErrors
        .map((error, index) => ({ error, index }))
        .sort((a, b) => rank(a.error.toolCallId) - rank(b.error.toolCallId) || a.index - b.index)
        .map(({ error }) => ({ type: 'tool-result', toolCallId: error.toolCallId, toolName: error.toolName, output: { type: 'error-text', value: error.message } }));
      messages.push({ role: 'tool', content: results });
    }
    return messages;
  }
}

type ParsedCall = Extract<StepPart, { type: 'tool-call' }>;

/**
 * A call's input as JSON (prototype keys refused), `{}` for empty input;
 * an unknown tool or unreadable input makes the call invalid, with the
 * input as far as it parses.
 */
async function parseToolCall(call: Extract<LanguageModelV3StreamPart, { type: 'tool-call' }>, toolNames: readonly string[]): Promise<ParsedCall> {
  const base = { type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, ...(call.providerExecuted !== undefined ? { providerExecuted: call.providerExecuted } : {}) };
  try {
    const known = toolNames.includes(call.toolName);
    // A provider-executed dynamic tool (one the provider runs itself) is not in our list.
    if (!known && !(call.providerExecuted && call.dynamic)) throw new NoSuchToolError(call.toolName, toolNames);
    const parsed = call.input.trim() === '' ? { success: true as const, value: {} } : await safeParseJSON({ text: call.input });
    if (!parsed.success) throw new InvalidToolInputError(call.toolName, call.input, parsed.error);
    return { ...base, input: parsed.value };
  } catch (error) {
    const parsed = await safeParseJSON({ text: call.input });
    return { ...base, input: parsed.success ? parsed.value : call.input, invalid: true, error: error as Error };
  }
}
