// What a model provider reads of a `Response`, over a node:http response:
// status, headers, `body` as a web stream (the streamed turn) and the
// whole-body readers (JSON answers and error messages), which are bounded.
import type { IncomingMessage } from 'node:http';
import { ResponseHeaders } from './responseHeaders';

/** An error body is read for its message only: a provider's is a few hundred bytes. */
export const ERROR_BODY_LIMIT = 64 * 1024;
/** A whole successful body (not streamed) is a JSON answer: far below this. */
export const BODY_LIMIT = 32 * 1024 * 1024;

const LF = 10;
const CR = 13;

/**
 * A body the server cut off. fetch says TypeError("terminated"); this is a
 * TypeError too, named so agent/models/errors.ts can say what happened (the
 * AI SDK wraps it as a failed "successful response", HTTP 200). No `cause`:
 * node's ECONNRESET there would read as "could not reach the server".
 */
export class BrokenBodyError extends TypeError {
  constructor() {
    super('The model server closed the connection before the response ended.');
    this.name = 'BrokenBodyError';
  }
}

/** Where a body's chunks go, for a reader that takes them as they arrive (ModelResponse.readChunks). */
export interface BodySink {
  chunk(bytes: Buffer): void;
  end(): void;
  /** The body cannot be read to its end: an abort (its reason) or a broken connection (BrokenBodyError). */
  fail(reason: unknown): void;
}

/** The reader's hold on the body's flow: pause while it is behind, resume, or give it up (the connection closes). */
export interface BodyFlow {
  pause(): void;
  resume(): void;
  cancel(): void;
}

/**
 * A successful body with a line longer than BODY_LIMIT. The providers' event
 * stream parsers (Anthropic, OpenAI) hold an unfinished line whole, so a
 * server that never ends one would fill the heap.
 */
export class UnendedLineError extends Error {
  constructor() {
    super(`The model server sent more than ${BODY_LIMIT / 1024 / 1024} MB without a line break; Accord stopped reading the response.`);
    this.name = 'UnendedLineError';
  }
}

function cutNote(status: number): Uint8Array {
  return new TextEncoder().encode(`… (the rest of this ${status} response is not shown: it is longer than ${ERROR_BODY_LIMIT / 1024} KB)`);
}

export class ModelResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: ResponseHeaders;
  readonly type = 'basic';
  private webBody: ReadableStream<Uint8Array> | undefined;
  private sink: BodySink | undefined;
  /** Why the body cannot be read to its end, when that was known before anyone read it. */
  private failure: { reason: unknown } | undefined;
  private settled = false;
  private used = false;

  constructor(
    private readonly message: IncomingMessage,
    readonly url: string,
    readonly redirected: boolean,
  ) {
    this.status = message.statusCode ?? 0;
    this.statusText = message.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.headers = new ResponseHeaders(message.rawHeaders);
    // Listened to from the start, before anyone reads the body (it waits, paused, until then).
    // A connection that closes mid-body: 'error' ("aborted", ECONNRESET) in Node 20, or only 'close'.
    message.on('error', () => this.settle(new BrokenBodyError()));
    message.once('close', () => {
      if (!message.complete) this.settle(new BrokenBodyError());
    });
  }

  /** The body as a web stream, made on first use (a reader that takes the chunks itself never pays for one). */
  get body(): ReadableStream<Uint8Array> {
    return (this.webBody ??= webStream(this));
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  /**
   * The body's chunks as the socket delivers them, to `sink`: for a reader
   * that parses them as they come (agent/models/chat/), without a web stream
   * in between. Once per response, instead of `body`.
   */
  readChunks(sink: BodySink): BodyFlow {
    if (this.sink) throw new TypeError('Body is unusable: Body has already been read');
    this.sink = sink;
    const message = this.message;
    if (this.failure) {
      const { reason } = this.failure;
      queueMicrotask(() => sink.fail(reason));
    } else {
      message.on('data', (chunk: Buffer) => {
        if (!this.settled) sink.chunk(chunk);
      });
      message.once('end', () => {
        if (this.settled) return;
        this.settled = true;
        sink.end();
      });
    }
    return {
      pause: () => message.pause(),
      resume: () => message.resume(),
      cancel: () => {
        this.settled = true;
        message.destroy();
      },
    };
  }

  /** Ends the body with `reason` (an abort): the reader gets it, the socket is closed. */
  fail(reason: unknown): void {
    this.settle(reason);
    this.message.destroy();
  }

  private settle(reason: unknown): void {
    if (this.settled) return;
    this.settled = true;
    if (this.sink) this.sink.fail(reason);
    else this.failure = { reason };
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.read();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.read());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /**
   * The whole body, bounded: an error body past ERROR_BODY_LIMIT is cut there
   * (`body` does it: its message is what matters, and the cut says so); a
   * successful one past BODY_LIMIT is an error. Either way the rest is never read.
   */
  private async read(): Promise<Uint8Array> {
    if (this.used) throw new TypeError('Body is unusable: Body has already been read');
    this.used = true;
    const limit = this.ok ? BODY_LIMIT : ERROR_BODY_LIMIT;
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = this.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (this.ok && size + value.byteLength > limit) {
        await reader.cancel();
        throw new Error(`The model's response is larger than ${limit / 1024 / 1024} MB; Accord stopped reading it.`);
      }
      chunks.push(value);
      size += value.byteLength;
    }
    return Buffer.concat(chunks);
  }
}

/**
 * The body as a web stream of the socket's own chunks (no copies), paused
 * while the reader is behind. A connection that ends before the body does
 * errors the stream; cancelling it closes the connection. An error body ends
 * at ERROR_BODY_LIMIT, with a note that it was cut, whoever reads it: the
 * providers' own error handlers read `body` with a bound of 2 GiB. A
 * successful one fails at a line longer than BODY_LIMIT (UnendedLineError).
 */
function webStream(response: ModelResponse): ReadableStream<Uint8Array> {
  let flow: BodyFlow;
  let size = 0;
  /** Bytes since the last line end (CR or LF). */
  let lineBytes = 0;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        flow = response.readChunks({
          chunk(bytes) {
            if (!response.ok && size + bytes.byteLength > ERROR_BODY_LIMIT) {
              controller.enqueue(bytes.subarray(0, ERROR_BODY_LIMIT - size));
              controller.enqueue(cutNote(response.status));
              size = ERROR_BODY_LIMIT;
              flow.cancel();
              controller.close();
              return;
            }
            const lastEnd = Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR));
            lineBytes = lastEnd < 0 ? lineBytes + bytes.byteLength : bytes.byteLength - lastEnd - 1;
            if (response.ok && lineBytes > BODY_LIMIT) {
              flow.cancel();
              controller.error(new UnendedLineError());
              return;
            }
            size += bytes.byteLength;
            controller.enqueue(bytes);
            if ((controller.desiredSize ?? 0) <= 0) flow.pause();
          },
          end: () => controller.close(),
          fail: (reason) => controller.error(reason),
        });
      },
      pull() {
        flow.resume();
      },
      cancel() {
        flow.cancel();
      },
    },
    { highWaterMark: 16 },
  );
}
