// A lean OpenAI chat completions model (LanguageModelV3) for every server
// that speaks it: local ones (llama.cpp, Ollama, LM Studio, vLLM), OpenRouter
// and Gemini's OpenAI endpoint. It sends what @ai-sdk/openai-compatible's
// chat model sends and streams the parts it streams (test/unit/models/
// leanChat*.test.ts feeds both the same bytes), with less in between: the
// SDK reads each chunk through a TextDecoderStream, an EventSourceParserStream,
// a JSON TransformStream with zod validation and the provider's
// TransformStream, all compiled cold in a fresh process; this reads the body
// once, parses SSE and checks chunks by hand, and enqueues the parts itself.
//
// The request and its HTTP errors go through the SDK's own postJsonToApi and
// error handler, so headers, retries (isRetryable) and describeModelError see
// the same. Calls with options this model leaves to the SDK (its provider
// options, a response format) go to the SDK's model, loaded then.
import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
  type SharedV3Warning,
} from '@ai-sdk/provider';
import {
  combineHeaders,
  createJsonErrorResponseHandler,
  isAbortError,
  postJsonToApi,
  withUserAgentSuffix,
  withoutTrailingSlash,
  type FetchFunction,
  type ResponseHandler,
} from '@ai-sdk/provider-utils';
import { z } from 'zod/v4';
import { parseChunk } from './chatChunk';
import { ChatStreamState, chatUsage } from './chatStream';
import { chatRequestBody } from './chatRequest';
import { SseEvents } from './sseEvents';
import { collectStream } from '../collectStream';
import { ModelResponse } from '../http/modelResponse';

/** The @ai-sdk/openai-compatible release whose user agent this model sends (the differential test checks it against the package). */
export const OPENAI_COMPATIBLE_VERSION = '2.0.92';

export interface LeanChatSettings {
  /** The provider's name: `local`, `openrouter`, `google` (providerMetadata's key, `<name>.chat` as the provider). */
  name: string;
  baseURL: string;
  apiKey?: string;
  includeUsage: boolean;
  fetch: FetchFunction;
  /** The SDK's model for the same settings, for the calls this one leaves to it. */
  sdkModel: () => Promise<LanguageModelV3>;
  /** Bounds on what one response may make the agent hold (defaults: MAX_EVENT_CHARS, MAX_TOOL_ARGUMENT_CHARS); tests lower them. */
  limits?: StreamLimits;
}

export interface StreamLimits {
  eventChars?: number;
  toolArgumentChars?: number;
}

const toCamelCase = (text: string) => text.replace(/[_-]([a-z])/g, (g) => g[1]!.toUpperCase());

export function leanChatModel(modelId: string, settings: LeanChatSettings): LanguageModelV3 {
  const baseURL = withoutTrailingSlash(settings.baseURL)!;
  const name = settings.name;
  const optionKeys = new Set(['openai-compatible', 'openaiCompatible', name, toCamelCase(name)]);
  const headers = withUserAgentSuffix(settings.apiKey ? { Authorization: `Bearer ${settings.apiKey}` } : {}, `ai-sdk/openai-compatible/${OPENAI_COMPATIBLE_VERSION}`);
  let sdk: Promise<LanguageModelV3> | undefined;
  const sdkModel = () => (sdk ??= settings.sdkModel());

  /** The SDK parses its provider options (and sends the unknown ones as body fields) and builds response formats: those calls are its. */
  const leanCovers = (options: LanguageModelV3CallOptions) =>
    options.responseFormat?.type !== 'json' && !Object.keys(options.providerOptions ?? {}).some((key) => optionKeys.has(key));

  const doStream = async (options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> => {
    if (!leanCovers(options)) return (await sdkModel()).doStream(options);
    const { body, warnings } = chatRequestBody(modelId, options, settings.includeUsage);
    const url = new URL(`${baseURL}/chat/completions`).toString();
    const { responseHeaders, value: response } = await postJsonToApi({
      url,
      headers: combineHeaders(headers, options.headers),
      body,
      failedResponseHandler: errorResponseHandler,
      successfulResponseHandler: rawResponse,
      abortSignal: options.abortSignal,
      fetch: settings.fetch,
    });
    const bodyError = (error: unknown) => readError(error, { url, requestBodyValues: body, statusCode: response.status, responseHeaders: responseHeaders ?? {} });
    return {
      stream: partStream(response, warnings, name, options.includeRawChunks === true, bodyError, settings.limits ?? {}),
      request: { body },
      response: { headers: responseHeaders },
    };
  };

  return {
    specificationVersion: 'v3',
    provider: `${name}.chat`,
    modelId,
    supportedUrls: {},
    doStream,
    // The agent only streams (turns and compaction); a whole answer is the stream collected.
    async doGenerate(options) {
      if (!leanCovers(options)) return (await sdkModel()).doGenerate(options);
      const { stream, request, response } = await doStream(options);
      return { ...(await collectStream(stream, { usage: chatUsage(undefined), finishReason: { unified: 'other', raw: undefined } })), request, response };
    },
  };
}

/** The SDK's handler for a failed response (the default error shape), its schema built on the first failure. */
let errorHandler: ResponseHandler<APICallError> | undefined;
const errorResponseHandler: ResponseHandler<APICallError> = (options) => {
  errorHandler ??= createJsonErrorResponseHandler({
    errorSchema: z.object({
      error: z.object({
        message: z.string(),
        type: z.string().nullish(),
        param: z.any().nullish(),
        code: z.union([z.string(), z.number()]).nullish(),
      }),
    }),
    errorToMessage: (data) => data.error.message,
  });
  return errorHandler({ ...options, response: boundedErrorResponse(options.response) });
};

/**
 * The failed response as the SDK's handler reads it, with its body bounded:
 * the handler reads `body` to its end (up to 2 GiB), and an error body is a
 * hostile server's to make long. modelFetch's `text()` stops at
 * ERROR_BODY_LIMIT and notes the cut.
 */
function boundedErrorResponse(response: Response): Response {
  const text = response.text();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(new TextEncoder().encode(await text));
      controller.close();
    },
  });
  return { status: response.status, statusText: response.statusText, ok: response.ok, url: response.url, headers: response.headers, body } as Response;
}

const rawResponse: ResponseHandler<Response> = async ({ response }) => ({
  value: response,
  responseHeaders: Object.fromEntries<string>([...response.headers]),
});

/**
 * The parts, read from the body as the consumer asks for them: each pull
 * reads body chunks until at least one part is out (or the body ends).
 */
function partStream(
  response: Response,
  warnings: SharedV3Warning[],
  metadataKey: string,
  includeRawChunks: boolean,
  bodyError: (error: unknown) => unknown,
  limits: StreamLimits,
): ReadableStream<LanguageModelV3StreamPart> {
  const reader = chunkReader(response);
  const events = new SseEvents(limits.eventChars);
  let emitted = 0;
  let controller!: ReadableStreamDefaultController<LanguageModelV3StreamPart>;
  const emit = (part: LanguageModelV3StreamPart) => {
    emitted++;
    controller.enqueue(part);
  };
  const state = new ChatStreamState(emit, metadataKey, includeRawChunks, limits.toolArgumentChars);
  const datas: string[] = [];
  let failure: { error: unknown } | undefined;
  const collectData = (data: string) => {
    if (data !== '[DONE]') datas.push(data);
  };
  return new ReadableStream<LanguageModelV3StreamPart>({
    start(c) {
      controller = c;
      c.enqueue({ type: 'stream-start', warnings });
    },
    async pull(c) {
      if (failure !== undefined) return c.error(failure.error);
      const before = emitted;
      while (emitted === before) {
        let read: Read;
        try {
          const next = reader.read();
          read = next instanceof Promise ? await next : next;
        } catch (error) {
          c.error(bodyError(error));
          return;
        }
        try {
          if (read.done) {
            state.end();
            c.close();
            return;
          }
          events.push(read.value, collectData);
          for (let i = 0; i < datas.length; i++) {
            const parsed = parseChunk(datas[i]!);
            state.chunk(parsed instanceof Promise ? await parsed : parsed);
          }
          datas.length = 0;
        } catch (error) {
          // A stream the model cannot be read from (too large, a tool call the SDK's tracker rejects) ends here,
          // after the parts that came before the failure (erroring a stream drops what is queued in it).
          datas.length = 0;
          reader.cancel(error);
          if (emitted === before) c.error(error);
          else failure = { error };
          return;
        }
      }
    },
    cancel(reason) {
      reader.cancel(reason);
    },
  });
}

type Read = { done: true; value?: undefined } | { done: false; value: Uint8Array };

interface ChunkReader {
  /** The next chunk: at once when one is waiting, else a promise of it. */
  read(): Read | Promise<Read>;
  cancel(reason: unknown): void;
}

/** modelFetch's response hands its chunks over directly; any other (a test's fetch) is read through its web stream. */
function chunkReader(response: Response): ChunkReader {
  if (response instanceof ModelResponse) return socketChunks(response);
  const reader = response.body!.getReader();
  return {
    read: () => reader.read() as Promise<Read>,
    cancel: (reason) => void reader.cancel(reason).catch(() => {}),
  };
}

/** Chunks waiting past this pause the socket until the reader catches up. */
const QUEUED_CHUNKS = 16;

/**
 * The body's chunks from the socket, queued until read: no web stream, and
 * no promise for a chunk that has already arrived. A failure (an abort, a
 * broken connection) drops what is queued, as a web stream's error does.
 */
function socketChunks(response: ModelResponse): ChunkReader {
  const queue: Buffer[] = [];
  let ended = false;
  let failure: { reason: unknown } | undefined;
  let waiting: { resolve(read: Read): void; reject(reason: unknown): void } | undefined;
  let paused = false;
  const flow = response.readChunks({
    chunk(bytes) {
      if (waiting) {
        const { resolve } = waiting;
        waiting = undefined;
        resolve({ done: false, value: bytes });
        return;
      }
      queue.push(bytes);
      if (queue.length >= QUEUED_CHUNKS && !paused) {
        paused = true;
        flow.pause();
      }
    },
    end() {
      ended = true;
      if (waiting) waiting.resolve({ done: true });
      waiting = undefined;
    },
    fail(reason) {
      failure = { reason };
      queue.length = 0;
      if (waiting) waiting.reject(reason);
      waiting = undefined;
    },
  });
  return {
    read() {
      if (failure) return Promise.reject(failure.reason);
      const value = queue.shift();
      if (paused && queue.length < QUEUED_CHUNKS / 2) {
        paused = false;
        flow.resume();
      }
      if (value) return { done: false, value };
      if (ended) return { done: true };
      return new Promise<Read>((resolve, reject) => (waiting = { resolve, reject }));
    },
    cancel: () => flow.cancel(),
  };
}

const RETRYABLE_NETWORK_CODES = new Set([
  'ConnectionRefused', 'ConnectionClosed', 'FailedToOpenSocket', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE',
  'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT',
]);

/** A body that failed mid-read, as the SDK reports it: an abort as is, else a failed "successful response", retryable when a network error caused it. */
function readError(error: unknown, call: { url: string; requestBodyValues: unknown; statusCode: number; responseHeaders: Record<string, string> }): unknown {
  if (isAbortError(error)) return error;
  let retryable = false;
  const seen = new Set<unknown>();
  for (let e: unknown = error; e instanceof Error && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code)) retryable = true;
  }
  return new APICallError({ message: 'Failed to process successful response', cause: error, ...call, ...(retryable ? { isRetryable: true } : {}) });
}

