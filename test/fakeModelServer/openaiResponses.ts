// OpenAI Responses SSE: reasoning summaries, output text, function calls.
import { defaultUsage, finishOf, type ScriptPart, type StreamReply } from './script';

export function openaiResponsesEvents(reply: StreamReply, model: string): { parts: unknown[][]; tail: unknown[]; head: unknown[] } {
  const usage = reply.usage ?? defaultUsage;
  const head = [{ type: 'response.created', response: { id: 'resp_1', created_at: 1700000000, model, status: 'in_progress', output: [] } }];
  const eventsFor = (part: ScriptPart, outputIndex: number): unknown[] => {
    const output_index = outputIndex;
    if ('text' in part) {
      const item_id = `msg_${outputIndex}`;
      return [
        { type: 'response.output_item.added', output_index, item: { type: 'message', id: item_id, role: 'assistant', status: 'in_progress', content: [] } },
        { type: 'response.output_text.delta', item_id, output_index, content_index: 0, delta: part.text, logprobs: [] },
        {
          type: 'response.output_item.done', output_index,
          item: { type: 'message', id: item_id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: part.text, annotations: [] }] },
        },
      ];
    }
    if ('reasoning' in part) {
      const item_id = `rs_${outputIndex}`;
      return [
        { type: 'response.output_item.added', output_index, item: { type: 'reasoning', id: item_id, summary: [] } },
        { type: 'response.reasoning_summary_part.added', item_id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } },
        { type: 'response.reasoning_summary_text.delta', item_id, output_index, summary_index: 0, delta: part.reasoning },
        { type: 'response.reasoning_summary_part.done', item_id, output_index, summary_index: 0, part: { type: 'summary_text', text: part.reasoning } },
        { type: 'response.output_item.done', output_index, item: { type: 'reasoning', id: item_id, summary: [{ type: 'summary_text', text: part.reasoning }] } },
      ];
    }
    const { id, name, args } = part.toolCall;
    const item_id = `fc_${outputIndex}`;
    const argText = JSON.stringify(args);
    return [
      { type: 'response.output_item.added', output_index, item: { type: 'function_call', id: item_id, call_id: id, name, arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id, output_index, delta: argText },
      { type: 'response.output_item.done', output_index, item: { type: 'function_call', id: item_id, call_id: id, name, arguments: argText, status: 'completed' } },
    ];
  };
  const finish = finishOf(reply);
  const incomplete = finish === 'length' ? { reason: 'max_output_tokens' } : finish === 'refusal' ? { reason: 'content_filter' } : null;
  return {
    head,
    parts: reply.parts.map(eventsFor),
    tail: [
      {
        type: incomplete ? 'response.incomplete' : 'response.completed',
        response: {
          id: 'resp_1', created_at: 1700000000, model, status: incomplete ? 'incomplete' : 'completed', incomplete_details: incomplete,
          usage: {
            input_tokens: usage.input,
            input_tokens_details: { cached_tokens: usage.cachedInput ?? 0 },
            output_tokens: usage.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.input + usage.output,
          },
        },
      },
    ],
  };
}
