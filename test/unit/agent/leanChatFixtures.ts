// The SDK's openai-compatible chat model and ours, side by side on one fetch
// double that serves the same bytes, and what to compare of their answers.
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import assert from 'node:assert/strict';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { ModelResponse } from '../../../agent/models/http/modelResponse';
import { leanChatModel } from '../../../agent/models/chat/chatModel';

export interface ServedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** The body, in the pieces it arrives in. */
  pieces: Uint8Array[];
}

export interface SentRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * A fetch that answers every request with `serve()`, recording what was sent:
 * as modelFetch answers (a ModelResponse, over a stand-in for node's
 * IncomingMessage that delivers the pieces as they are), or as a web Response.
 */
export function fetchDouble(serve: () => ServedResponse, as: 'model-response' | 'web-response' = 'model-response') {
  const sent: SentRequest[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url: String(url), method: String(init.method), headers: { ...(init.headers as Record<string, string>) }, body: JSON.parse(String(init.body)) });
    init.signal?.throwIfAborted();
    const { status = 200, headers = { 'content-type': 'text/event-stream' }, pieces } = serve();
    if (as === 'model-response') {
      const message = Readable.from(pieces.map((piece) => Buffer.from(piece))) as Readable & Record<string, unknown>;
      Object.assign(message, { statusCode: status, statusMessage: STATUS_CODES[status] ?? '', rawHeaders: Object.entries(headers).flat(), complete: false });
      message.once('end', () => (message.complete = true));
      return new ModelResponse(message as unknown as IncomingMessage, String(url), false);
    }
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i < pieces.length) controller.enqueue(pieces[i++]!);
        else controller.close();
      },
    });
    return new Response(body, { status, statusText: STATUS_CODES[status] ?? '', headers });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, sent };
}

export function bothModels(serve: () => ServedResponse, settings: { name?: string; apiKey?: string; model?: string; as?: 'model-response' | 'web-response' } = {}) {
  const name = settings.name ?? 'local';
  const model = settings.model ?? 'm';
  const baseURL = 'http://127.0.0.1:9/v1/';
  const sdkSide = fetchDouble(serve, settings.as);
  const leanSide = fetchDouble(serve, settings.as);
  const sdkSettings = { name, baseURL, includeUsage: true, fetch: sdkSide.fetch, ...(settings.apiKey ? { apiKey: settings.apiKey } : {}) };
  const sdk: LanguageModelV3 = createOpenAICompatible(sdkSettings).chatModel(model);
  const lean = leanChatModel(model, {
    name,
    baseURL,
    includeUsage: true,
    fetch: leanSide.fetch,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    sdkModel: async () => createOpenAICompatible({ ...sdkSettings, fetch: leanSide.fetch }).chatModel(model),
  });
  return { sdk, lean, sdkSent: sdkSide.sent, leanSent: leanSide.sent };
}

export type Outcome =
  | { kind: 'rejected'; error: unknown }
  | { kind: 'stream'; parts: unknown[]; streamError?: unknown; request: unknown; responseHeaders: unknown };

/** Calls doStream and reads the whole stream; errors become comparable plain records. */
export async function run(model: LanguageModelV3, options: LanguageModelV3CallOptions): Promise<Outcome> {
  let result;
  try {
    result = await model.doStream(options);
  } catch (error) {
    return { kind: 'rejected', error: plainError(error) };
  }
  const parts: LanguageModelV3StreamPart[] = [];
  let streamError: unknown;
  const reader = result.stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
  } catch (error) {
    streamError = plainError(error);
  }
  return {
    kind: 'stream',
    parts: normaliseIds(parts.map((p) => (p.type === 'error' ? { ...p, error: plainError(p.error) } : p))),
    ...(streamError !== undefined ? { streamError } : {}),
    request: result.request,
    responseHeaders: result.response?.headers,
  };
}

/** An error as its class name and the fields the agent reads (message, status, retryability, body, data, cause). */
export function plainError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const e = error as Error & Record<string, unknown>;
  return {
    name: e.name,
    message: e.message,
    ...('statusCode' in e ? { statusCode: e.statusCode, isRetryable: e.isRetryable, responseHeaders: e.responseHeaders, responseBody: e.responseBody, data: e.data, url: e.url } : {}),
    ...('value' in e ? { value: e.value } : {}),
    ...('text' in e ? { text: e.text } : {}),
    ...(e.cause !== undefined ? { cause: plainError(e.cause) } : {}),
  };
}

/**
 * Tool call ids the SDK makes up (generateId: random) become `generated-N` in
 * order of appearance; ids the server sent stay as they are.
 */
function normaliseIds(parts: unknown[]): unknown[] {
  const generated = new Map<string, string>();
  const rename = (id: string) => {
    if (!/^[A-Za-z0-9]{16}$/.test(id)) return id;
    if (!generated.has(id)) generated.set(id, `generated-${generated.size}`);
    return generated.get(id)!;
  };
  return parts.map((part) => {
    const p = { ...(part as Record<string, unknown>) };
    if (p.type === 'tool-input-start' || p.type === 'tool-input-delta' || p.type === 'tool-input-end') p.id = rename(p.id as string);
    if (p.type === 'tool-call') p.toolCallId = rename(p.toolCallId as string);
    return p;
  });
}

/**
 * The same outcome, with one allowed difference: when the stream fails (an
 * error thrown, not an error part), the SDK's chain of web streams drops the
 * parts its failing step had queued but not yet handed to a read; ours hands
 * them all over before the error. So the SDK's parts are a prefix of ours there.
 */
export function assertSameOutcome(actual: Outcome, expected: Outcome): void {
  if (actual.kind === 'stream' && expected.kind === 'stream' && expected.streamError !== undefined) {
    assert.deepStrictEqual(actual.streamError, expected.streamError);
    assert.deepStrictEqual(actual.parts.slice(0, expected.parts.length), expected.parts);
    assert.deepStrictEqual({ ...actual, parts: [] }, { ...expected, parts: [] });
    return;
  }
  assert.deepStrictEqual(actual, expected);
}
