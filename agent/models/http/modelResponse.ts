// What a model provider reads of a `Response`, over a node:http response:
// status, headers, `body` as a web stream (the streamed turn) and the
// whole-body readers (JSON answers and error messages), which are bounded.
import type { IncomingMessage } from 'node:http';
import { ResponseHeaders } from './responseHeaders';

/** An error body is read for its message only: a provider's is a few hundred bytes. */
export const ERROR_BODY_LIMIT = 64 * 1024;
/** A whole successful body (not streamed) is a JSON answer: far below this. */
export const BODY_LIMIT = 32 * 1024 * 1024;

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

export class ModelResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: ResponseHeaders;
  readonly type = 'basic';
  readonly body: ReadableStream<Uint8Array>;
  private readonly failBody: (reason: unknown) => void;
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
    ({ stream: this.body, fail: this.failBody } = bodyStream(message));
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  /** Ends the body with `reason` (an abort): the reader gets it, the socket is closed. */
  fail(reason: unknown): void {
    this.failBody(reason);
    this.message.destroy();
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
   * (its message is what matters, and the cut says so); a successful one past
   * BODY_LIMIT is an error. Either way the rest is never read.
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
      if (size + value.byteLength > limit) {
        await reader.cancel();
        if (this.ok) throw new Error(`The model's response is larger than ${limit / 1024 / 1024} MB; Accord stopped reading it.`);
        chunks.push(value.subarray(0, limit - size), new TextEncoder().encode(`… (the rest of this ${this.status} response is not shown: it is longer than ${limit / 1024} KB)`));
        size = limit;
        break;
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
 * errors the stream; cancelling it closes the connection.
 */
function bodyStream(message: IncomingMessage): { stream: ReadableStream<Uint8Array>; fail(reason: unknown): void } {
  let settled = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const fail = (reason: unknown) => {
    if (settled) return;
    settled = true;
    controller.error(reason);
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        message.on('data', (chunk: Buffer) => {
          if (settled) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) message.pause();
        });
        message.once('end', () => {
          if (settled) return;
          settled = true;
          controller.close();
        });
        // A connection that closes mid-body: 'error' ("aborted", ECONNRESET) in Node 20, or only 'close'.
        message.on('error', () => fail(new BrokenBodyError()));
        message.once('close', () => {
          if (!message.complete) fail(new BrokenBodyError());
        });
      },
      pull() {
        message.resume();
      },
      cancel() {
        settled = true;
        message.destroy();
      },
    },
    { highWaterMark: 16 },
  );
  return { stream, fail };
}
