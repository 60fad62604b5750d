// What a test scripts the fake model to answer, independent of the wire format.
// Each request to the server takes the next reply from the queue.

export type ScriptPart =
  | { text: string }
  | { reasoning: string }
  | { toolCall: { id: string; name: string; args: unknown } };

export interface ScriptUsage {
  /** All prompt tokens, cached ones included. */
  input: number;
  cachedInput?: number;
  output: number;
}

export type ScriptFinish = 'stop' | 'length' | 'tool_calls' | 'refusal';

export interface StreamReply {
  type: 'stream';
  parts: ScriptPart[];
  /** Defaults to `tool_calls` when a part is a tool call, else `stop`. */
  finish?: ScriptFinish;
  usage?: ScriptUsage;
  /** Pause between SSE events, to pace the stream. */
  delayMs?: number;
  /** After this many parts, stop sending and keep the connection open. */
  stallAfterParts?: number;
  /** Send a line that is not JSON after this many parts, then end. */
  malformedAfterParts?: number;
  /** After this many parts, close the connection mid-body (no end of the HTTP response). */
  closeAfterParts?: number;
}

export interface ErrorReply {
  type: 'error';
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export type Reply = StreamReply | ErrorReply;

export const defaultUsage: ScriptUsage = { input: 100, cachedInput: 0, output: 10 };

export function finishOf(reply: StreamReply): ScriptFinish {
  return reply.finish ?? (reply.parts.some((p) => 'toolCall' in p) ? 'tool_calls' : 'stop');
}

/** Shorthands for the common replies. */
export const reply = {
  text: (text: string, extra: Partial<StreamReply> = {}): StreamReply => ({ type: 'stream', parts: [{ text }], ...extra }),
  tool: (id: string, name: string, args: unknown, extra: Partial<StreamReply> = {}): StreamReply => ({
    type: 'stream',
    parts: [{ toolCall: { id, name, args } }],
    ...extra,
  }),
  error: (status: number, body?: unknown, headers?: Record<string, string>): ErrorReply => ({ type: 'error', status, body, headers }),
};
