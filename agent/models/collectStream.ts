// `doGenerate` for models that only stream (ours: the lean chat model and
// VS Code's lent models): their `doStream`'s parts collected into one
// result. Nothing in the agent calls doGenerate (turns and compaction stream);
// it is there so the models are whole LanguageModelV3s.
import type { LanguageModelV3Content, LanguageModelV3FinishReason, LanguageModelV3StreamPart, LanguageModelV3Usage, SharedV3ProviderMetadata, SharedV3Warning } from '@ai-sdk/provider';

export interface CollectedStream {
  content: LanguageModelV3Content[];
  finishReason: LanguageModelV3FinishReason;
  usage: LanguageModelV3Usage;
  warnings: SharedV3Warning[];
  providerMetadata?: SharedV3ProviderMetadata;
}

/** `unfinished`: the model's usage and finish reason when the stream ends without a finish. An `error` part is thrown. */
export async function collectStream(
  stream: ReadableStream<LanguageModelV3StreamPart>,
  unfinished: { usage: LanguageModelV3Usage; finishReason: LanguageModelV3FinishReason },
): Promise<CollectedStream> {
  const content: LanguageModelV3Content[] = [];
  let reasoning = '';
  let text = '';
  let { usage, finishReason } = unfinished;
  let providerMetadata: SharedV3ProviderMetadata | undefined;
  let warnings: SharedV3Warning[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (value.type === 'stream-start') warnings = value.warnings;
    else if (value.type === 'reasoning-delta') reasoning += value.delta;
    else if (value.type === 'text-delta') text += value.delta;
    else if (value.type === 'tool-call') content.push(value);
    else if (value.type === 'finish') ({ usage, finishReason, providerMetadata } = value);
    else if (value.type === 'error') throw value.error;
  }
  if (text) content.unshift({ type: 'text', text });
  if (reasoning) content.unshift({ type: 'reasoning', text: reasoning });
  return { content, finishReason, usage, warnings, ...(providerMetadata ? { providerMetadata } : {}) };
}
