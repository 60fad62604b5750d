// Stands between stdio and the SDK's newline-delimited JSON stream. The SDK
// ends the whole connection when one line is longer than its limit; here
// such a line is dropped as it streams in (never buffered whole), answered
// with a JSON-RPC error carrying its id when the line starts with one, and
// the connection — with every other session — goes on. Malformed lines are
// already answered by the SDK with a parse error.

import { batchedOutput, type BatchedOutput } from './batchedOutput';
import { sharedWriter } from './sharedWriter';

/** The longest line accepted, in bytes without the newline (the SDK's own default). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;
/** How much of an oversized line is kept to find its id. */
const HEAD_BYTES = 64 * 1024;

const newline = 0x0a;

/** The top-level `id` of a JSON-RPC message from its first bytes (before "params"), or null. */
export function idFromHead(head: string): string | number | null {
  const params = head.indexOf('"params"');
  const before = params >= 0 ? head.slice(0, params) : head;
  const match = /"id"\s*:\s*(-?\d{1,15}(?![\d.eE])|"(?:[^"\\]|\\.){0,256}")/.exec(before);
  if (!match) return null;
  try {
    return JSON.parse(match[1]!) as string | number;
  } catch {
    return null;
  }
}

export interface GuardedStdio {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
  /** Whole lines into the same output, without a stream per write (acp/messageOutput.ts). */
  push: BatchedOutput['push'];
}

/**
 * Wraps the raw byte streams of a connection. Every chunk the SDK writes is
 * one whole message line, so an error line written here never splits one.
 */
export function guardLines(rawInput: ReadableStream<Uint8Array>, rawOutput: WritableStream<Uint8Array>, maxLineBytes = MAX_LINE_BYTES, options: { afterFirstSend?: () => void } = {}): GuardedStdio {
  // Messages written while the loop is busy leave in one write (a replay sends thousands), and the
  // SDK's writer per message is one shared writer: both were most of session/load's cost.
  const batched = batchedOutput(rawOutput, undefined, options.afterFirstSend);
  const output = sharedWriter(batched.output);
  const writer = output.getWriter();
  const encoder = new TextEncoder();
  // The current line is held until it ends, so a dropped line never reaches the SDK at all.
  let pending: Uint8Array[] = [];
  let lineBytes = 0;
  let head: Buffer | undefined;
  const answer = () => {
    const id = idFromHead(head!.toString('utf8'));
    const message =
      `The message is larger than the ${maxLineBytes >= 1024 * 1024 ? `${Math.round(maxLineBytes / 1024 / 1024)} MiB` : `${maxLineBytes} bytes`} Accord accepts (${lineBytes} bytes). ` +
      'It was not processed; the connection and its sessions are unaffected. Send large content as a file path instead.';
    void writer.write(encoder.encode(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message, data: { maxBytes: maxLineBytes } } })}\n`)).catch(() => undefined);
  };
  const filter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let start = 0;
      while (start < chunk.length) {
        const end = chunk.indexOf(newline, start);
        const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
        if (head === undefined && lineBytes + piece.length > maxLineBytes) {
          head = Buffer.concat([...pending, piece]).subarray(0, HEAD_BYTES);
          pending = [];
        } else if (head === undefined && piece.length > 0) {
          pending.push(piece);
        }
        lineBytes += piece.length;
        if (end < 0) break;
        if (head !== undefined) answer();
        else controller.enqueue(Buffer.concat([...pending, Uint8Array.of(newline)]));
        pending = [];
        lineBytes = 0;
        head = undefined;
        start = end + 1;
      }
    },
    flush(controller) {
      if (head === undefined && pending.length > 0) controller.enqueue(Buffer.concat(pending));
      // The input ended: the connection closes next and may take the socket down in the same turn.
      batched.flush().catch(() => undefined);
    },
  });
  return { input: rawInput.pipeThrough(filter), output, push: batched.push };
}
