// OpenAI chat completions SSE (also what Ollama, LM Studio and llama.cpp speak).
// Reasoning goes out as `reasoning_content`, the field OpenAI-compatible servers use.
import { defaultUsage, finishOf, type ScriptPart, type StreamReply } from './script';

const finishReasons = { stop: 'stop', length: 'length', tool_calls: 'tool_calls', refusal: 'content_filter' } as const;

export function openaiChatEvents(reply: StreamReply, model: string): { parts: unknown[][]; tail: unknown[] } {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model };
  const chunk = (delta: unknown, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  let toolIndex = 0;
  const eventsFor = (part: ScriptPart): unknown[] => {
    if ('text' in part) return [chunk({ role: 'assistant', content: part.text })];
    if ('reasoning' in part) return [chunk({ role: 'assistant', reasoning_content: part.reasoning })];
    const index = toolIndex++;
    const args = JSON.stringify(part.toolCall.args);
    return [
      chunk({ tool_calls: [{ index, id: part.toolCall.id, type: 'function', function: { name: part.toolCall.name, arguments: '' } }] }),
      chunk({ tool_calls: [{ index, function: { arguments: args } }] }),
    ];
  };
  const usage = reply.usage ?? defaultUsage;
  return {
    parts: reply.parts.map(eventsFor),
    tail: [
      chunk({}, finishReasons[finishOf(reply)]),
      {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
          prompt_tokens_details: { cached_tokens: usage.cachedInput ?? 0 },
        },
      },
      '[DONE]',
    ],
  };
}
