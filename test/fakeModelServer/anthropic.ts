// Anthropic Messages SSE: thinking blocks with a signature, text, tool_use.
// Anthropic reports uncached input separately from cache reads.
import { defaultUsage, finishOf, type ScriptPart, type StreamReply } from './script';

const stopReasons = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', refusal: 'refusal' } as const;

/** Every response its own id, as Anthropic's are: clients key their messages by it (claude-agent-acp's messageId). */
let responses = 0;

export function anthropicEvents(reply: StreamReply, model: string): { parts: unknown[][]; tail: unknown[]; head: unknown[] } {
  const usage = reply.usage ?? defaultUsage;
  const cached = usage.cachedInput ?? 0;
  const head = [
    {
      type: 'message_start',
      message: {
        id: `msg_${++responses}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: usage.input - cached, cache_read_input_tokens: cached, cache_creation_input_tokens: 0, output_tokens: 1 },
      },
    },
  ];
  const block = (index: number, contentBlock: unknown, deltas: unknown[]) => [
    { type: 'content_block_start', index, content_block: contentBlock },
    ...deltas.map((delta) => ({ type: 'content_block_delta', index, delta })),
    { type: 'content_block_stop', index },
  ];
  const eventsFor = (part: ScriptPart, index: number): unknown[] => {
    if ('text' in part) return block(index, { type: 'text', text: '' }, [{ type: 'text_delta', text: part.text }]);
    if ('reasoning' in part) {
      return block(index, { type: 'thinking', thinking: '', signature: '' }, [
        { type: 'thinking_delta', thinking: part.reasoning },
        { type: 'signature_delta', signature: 'sig-fake' },
      ]);
    }
    const { id, name, args } = part.toolCall;
    return block(index, { type: 'tool_use', id, name, input: {} }, [{ type: 'input_json_delta', partial_json: JSON.stringify(args) }]);
  };
  return {
    head,
    parts: reply.parts.map(eventsFor),
    tail: [
      { type: 'message_delta', delta: { stop_reason: stopReasons[finishOf(reply)], stop_sequence: null }, usage: { output_tokens: usage.output } },
      { type: 'message_stop' },
    ],
  };
}
