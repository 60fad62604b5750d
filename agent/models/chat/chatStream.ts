// From parsed chat completion chunks to V3 stream parts, as
// @ai-sdk/openai-compatible's chat model emits them: text and reasoning
// blocks, tool calls assembled from their deltas (by the SDK's own
// StreamingToolCallTracker, so ids, order and the end of each call match),
// usage, the finish reason mapped once the stream has ended, error chunks and
// malformed chunks as error parts.
import {
  InvalidResponseDataError,
  type JSONParseError,
  type LanguageModelV3FinishReason,
  type LanguageModelV3StreamPart,
  type LanguageModelV3Usage,
  type SharedV3ProviderMetadata,
  type TypeValidationError,
} from '@ai-sdk/provider';
import { generateId, StreamingToolCallTracker, type StreamingToolCallDelta } from '@ai-sdk/provider-utils';
import type { ChatChunk, ChatToolCallDelta, ChatUsage } from './chatChunk';

export type ParsedChunk =
  | { success: true; value: ChatChunk | { error: unknown }; rawValue: unknown }
  | { success: false; error: JSONParseError | TypeValidationError; rawValue: unknown };

type Emit = (part: LanguageModelV3StreamPart) => void;

interface PendingToolCall {
  id: string | null;
  bufferedArguments: string;
  extraContent: ChatToolCallDelta['extra_content'];
}

/** Tool call arguments streamed past this (all calls of a response together) are an error: a server that never ends one would fill the heap. */
export const MAX_TOOL_ARGUMENT_CHARS = 32 * 1024 * 1024;

export class ToolArgumentsTooLargeError extends Error {
  constructor(readonly maxChars: number) {
    super(`The model streamed more than ${Math.round(maxChars / 1024 / 1024)} MB of tool call arguments; Accord stopped reading the response.`);
    this.name = 'ToolArgumentsTooLargeError';
  }
}

export class ChatStreamState {
  private readonly tracker: StreamingToolCallTracker<ChatToolCallDelta & StreamingToolCallDelta>;
  private readonly pendingToolCalls = new Map<number, PendingToolCall>();
  private readonly forwardedToolCalls = new Set<number>();
  private finishReason: LanguageModelV3FinishReason | undefined;
  private rawFinishReason: string | undefined;
  private usage: ChatUsage | undefined;
  private firstChunk = true;
  private reasoningOpen = false;
  private textOpen = false;
  private refused = false;
  private argumentChars = 0;

  constructor(
    private readonly emit: Emit,
    /** The key of providerMetadata (the provider's name, or its camelCase form when the call's options used that). */
    private readonly metadataKey: string,
    private readonly includeRawChunks: boolean,
    private readonly maxArgumentChars = MAX_TOOL_ARGUMENT_CHARS,
  ) {
    this.tracker = new StreamingToolCallTracker(
      { enqueue: emit },
      {
        generateId,
        extractMetadata: (delta) => {
          const thoughtSignature = delta.extra_content?.google?.thought_signature;
          return thoughtSignature ? { [metadataKey]: { thoughtSignature } } : undefined;
        },
        buildToolCallProviderMetadata: (metadata) => metadata,
      },
    );
  }

  chunk(parsed: ParsedChunk): void {
    const emit = this.emit;
    if (this.includeRawChunks) emit({ type: 'raw', rawValue: parsed.rawValue });
    if (!parsed.success) {
      this.finishReason = { unified: 'error', raw: undefined };
      emit({ type: 'error', error: parsed.error });
      return;
    }
    if ('error' in parsed.value) {
      this.finishReason = { unified: 'error', raw: undefined };
      emit({ type: 'error', error: parsed.value.error });
      return;
    }
    const value = parsed.value;
    if (this.firstChunk) {
      this.firstChunk = false;
      emit({
        type: 'response-metadata',
        id: value.id ?? undefined,
        modelId: value.model ?? undefined,
        timestamp: value.created != null ? new Date(value.created * 1000) : undefined,
      });
    }
    if (value.usage != null) this.usage = value.usage;
    const choice = value.choices[0];
    // Mapped at the end: a refusal in the same chunk as the finish reason turns `stop` into `content-filter`.
    if (choice?.finish_reason != null) this.rawFinishReason = choice.finish_reason;
    const delta = choice?.delta;
    if (delta == null) return;

    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) this.reasoningDelta(reasoning);
    const content = delta.content;
    if (typeof content === 'string') {
      if (content.length > 0) this.textDelta(content);
    } else if (content != null) {
      for (const part of content) {
        if (part.type === 'text' && typeof part.text === 'string') {
          if (part.text.length > 0) this.textDelta(part.text);
        } else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
          const text = (part.thinking as unknown[])
            .filter((c): c is { text: string } => c != null && typeof c === 'object' && 'type' in c && c.type === 'text' && 'text' in c && typeof c.text === 'string')
            .map((c) => c.text)
            .join('');
          if (text.length > 0) this.reasoningDelta(text);
        }
      }
    }
    // Servers that are not OpenAI's may send a refusal that is not a string: it is ignored.
    const refusal = delta.refusal;
    if (typeof refusal === 'string' && refusal.length > 0) {
      this.refused = true;
      this.textDelta(refusal);
    }
    if (delta.tool_calls != null && delta.tool_calls.length > 0) {
      if (this.reasoningOpen) {
        emit({ type: 'reasoning-end', id: 'reasoning-0' });
        this.reasoningOpen = false;
      }
      for (const toolCall of delta.tool_calls) this.toolCallDelta(toolCall);
    }
  }

  /** The body has ended: close what is open, finish the tool calls, then `finish`. */
  end(): void {
    const emit = this.emit;
    if (this.reasoningOpen) emit({ type: 'reasoning-end', id: 'reasoning-0' });
    if (this.textOpen) emit({ type: 'text-end', id: 'txt-0' });
    // Calls that never got a name go to the tracker as they are: it reports them as the SDK does.
    for (const [index, pending] of this.pendingToolCalls) {
      this.tracker.processDelta({ index, id: pending.id, function: { arguments: pending.bufferedArguments } });
    }
    this.pendingToolCalls.clear();
    this.tracker.flush();
    if (this.rawFinishReason != null) {
      this.finishReason = { unified: mapFinishReason(this.rawFinishReason, this.refused), raw: this.rawFinishReason };
    }
    if (this.finishReason == null) {
      this.finishReason = { unified: 'error', raw: undefined };
      emit({ type: 'error', error: new InvalidResponseDataError({ data: undefined, message: 'Response stream ended without a finish reason.' }) });
    }
    const metadata: Record<string, unknown> = {};
    const details = this.usage?.completion_tokens_details;
    if (details?.accepted_prediction_tokens != null) metadata.acceptedPredictionTokens = details.accepted_prediction_tokens;
    if (details?.rejected_prediction_tokens != null) metadata.rejectedPredictionTokens = details.rejected_prediction_tokens;
    emit({
      type: 'finish',
      finishReason: this.finishReason,
      usage: chatUsage(this.usage),
      providerMetadata: { [this.metadataKey]: metadata } as SharedV3ProviderMetadata,
    });
  }

  private reasoningDelta(delta: string): void {
    if (this.textOpen) {
      this.emit({ type: 'text-end', id: 'txt-0' });
      this.textOpen = false;
    }
    if (!this.reasoningOpen) {
      this.emit({ type: 'reasoning-start', id: 'reasoning-0' });
      this.reasoningOpen = true;
    }
    this.emit({ type: 'reasoning-delta', id: 'reasoning-0', delta });
  }

  private textDelta(delta: string): void {
    if (this.reasoningOpen) {
      this.emit({ type: 'reasoning-end', id: 'reasoning-0' });
      this.reasoningOpen = false;
    }
    if (!this.textOpen) {
      this.emit({ type: 'text-start', id: 'txt-0' });
      this.textOpen = true;
    }
    this.emit({ type: 'text-delta', id: 'txt-0', delta });
  }

  /**
   * Deltas of a call whose name has not come yet are held by index (some
   * servers send the id or arguments first); the name hands them on.
   */
  private toolCallDelta(delta: ChatToolCallDelta): void {
    const args = delta.function?.arguments;
    if (args != null) {
      this.argumentChars += args.length;
      if (this.argumentChars > this.maxArgumentChars) throw new ToolArgumentsTooLargeError(this.maxArgumentChars);
    }
    const index = delta.index;
    if (index == null || this.forwardedToolCalls.has(index)) {
      this.tracker.processDelta(delta as ChatToolCallDelta & StreamingToolCallDelta);
      return;
    }
    let pending = this.pendingToolCalls.get(index);
    if (pending == null) {
      pending = { id: delta.id ?? null, bufferedArguments: '', extraContent: delta.extra_content ?? null };
      this.pendingToolCalls.set(index, pending);
    } else {
      if (pending.id == null && delta.id != null) pending.id = delta.id;
      if (pending.extraContent == null && delta.extra_content != null) pending.extraContent = delta.extra_content;
    }
    if (args != null) pending.bufferedArguments += args;
    const name = delta.function?.name;
    if (name != null) {
      this.tracker.processDelta({
        index,
        id: pending.id,
        function: { name, arguments: pending.bufferedArguments },
        extra_content: pending.extraContent ?? undefined,
      } as ChatToolCallDelta & StreamingToolCallDelta);
      this.pendingToolCalls.delete(index);
      this.forwardedToolCalls.add(index);
    }
  }
}

export function mapFinishReason(raw: string, refused: boolean): LanguageModelV3FinishReason['unified'] {
  switch (raw) {
    case 'stop':
      return refused ? 'content-filter' : 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'function_call':
    case 'tool_calls':
      return 'tool-calls';
    default:
      return 'other';
  }
}

export function chatUsage(usage: ChatUsage | undefined | null): LanguageModelV3Usage {
  if (usage == null) {
    return {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      raw: undefined,
    };
  }
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  return {
    inputTokens: { total: prompt, noCache: prompt - cacheRead, cacheRead, cacheWrite: undefined },
    outputTokens: { total: completion, text: Math.max(0, completion - reasoning), reasoning },
    raw: usage as LanguageModelV3Usage['raw'],
  };
}
