// Every ACP message used to cost its own write(2) on the pipe or socket: for
// a session/load replaying tens of thousands of updates that was the largest
// cost in the agent process, ahead of JSON itself. Here the bytes written
// while the event loop is busy are gathered and go out together, once the
// loop turns (setImmediate) or as soon as a batch reaches its size limit.
// The first message written while the output is idle does not wait for the
// loop to turn: it leaves at once, and only what follows it in the same busy
// stretch is gathered. A streamed answer that arrived in one read is worked
// through in microtasks without the loop turning (~50 ms for 200 chunks on a
// cold process), and the turn's first words waited all that time in the batch.
// A write is accepted at once while its batch has room; past the limit the
// writer waits until the full batch has been handed on, so memory stays
// bounded when the reader is slow. A failed batch fails every later write
// (the connection is gone; what was in the batch is lost with it).

/** The most bytes gathered before they are handed on without waiting for the loop to turn. */
export const BATCH_BYTES = 1 << 20;

export interface BatchedOutput {
  output: WritableStream<Uint8Array>;
  /**
   * Gathers one whole message line as `output`'s writes do, without a web
   * stream's promise and queue per message (acp/messageOutput.ts: the SDK's
   * messages). Throws once the output has failed; returns what to await when
   * the batch was full, else undefined (taken).
   */
  push(line: string | Uint8Array): Promise<void> | undefined;
  /**
   * Hands on what is gathered now, without waiting for the loop to turn: when
   * the connection's input ends, its owner may tear the socket down within the
   * same turn, and what was written before must not be lost with it.
   */
  flush(): Promise<void>;
}

/** `afterFirstSend`: called once the first batch has been taken by `target` (e.g. the answer to initialize has left). */
export function batchedOutput(target: WritableStream<Uint8Array>, batchBytes = BATCH_BYTES, afterFirstSend?: () => void): BatchedOutput {
  const writer = target.getWriter();
  // Text lines and byte chunks, in the order they were written; text is encoded once per batch.
  let batch: Array<string | Uint8Array> = [];
  /** The batch's size: bytes, and UTF-16 units for text (at most 3 bytes each), which is close enough for a bound. */
  let bytes = 0;
  /** Set while the output is busy: what is gathered goes out when the loop turns. Unset: the next write leaves at once. */
  let busy: NodeJS.Immediate | undefined;
  let failure: unknown;
  let controller: WritableStreamDefaultController | undefined;
  /** Hands the gathered bytes on; the promise settles when the target has taken them. */
  const send = (): Promise<void> => {
    if (batch.length === 0) return Promise.resolve();
    const chunk = encoded(batch);
    batch = [];
    bytes = 0;
    const written = writer.write(chunk).catch((error: unknown) => {
      failure ??= error;
      // The stream itself fails: its writers see it at once, not at their next write.
      controller?.error(error);
      throw error;
    });
    written.catch(() => undefined); // seen by the next write, or by whoever awaits it
    if (afterFirstSend) {
      const after = afterFirstSend;
      afterFirstSend = undefined;
      written.then(after, () => undefined);
    }
    return written;
  };
  const push = (chunk: string | Uint8Array): Promise<void> | undefined => {
    if (failure !== undefined) throw failure;
    batch.push(chunk);
    bytes += typeof chunk === 'string' ? chunk.length : chunk.byteLength;
    const idle = busy === undefined;
    busy ??= setImmediate(() => {
      busy = undefined;
      void send();
    });
    if (bytes >= batchBytes) return send();
    if (idle) void send();
    return undefined;
  };
  const output = new WritableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    write: (chunk) => push(chunk),
    async close() {
      if (busy) clearImmediate(busy);
      busy = undefined;
      await send();
      await writer.close();
    },
    async abort(reason) {
      if (busy) clearImmediate(busy);
      busy = undefined;
      batch = [];
      await writer.abort(reason);
    },
  });
  return { output, push, flush: send };
}

/** One buffer for the whole batch: text joined and encoded once, bytes copied in between. */
function encoded(batch: Array<string | Uint8Array>): Uint8Array {
  if (batch.length === 1) {
    const only = batch[0]!;
    return typeof only === 'string' ? Buffer.from(only) : only;
  }
  if (batch.every((part) => typeof part === 'string')) return Buffer.from(batch.join(''));
  return Buffer.concat(batch.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}
