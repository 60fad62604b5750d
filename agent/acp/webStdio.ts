// The agent's stdio as the web streams the ACP SDK reads and writes, without
// Node's general-purpose adapters (Readable.toWeb / Writable.toWeb): loading
// them (internal/webstreams/adapters and what it requires) and wrapping stdin
// cost ~6 ms of every `acp --no-daemon` start before `initialize` could be
// answered (issue 17). Only what a byte pipe needs: backpressure both ways,
// the end of input, and errors that fail the stream instead of the process.
import type { Readable, Writable } from 'node:stream';

/** The bytes `source` reads; it is paused while the reader is `highWaterMark` chunks behind. */
export function webReadable(source: Readable, highWaterMark = 16): ReadableStream<Uint8Array> {
  let done = false;
  let onData: ((chunk: Buffer | string) => void) | undefined;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const finish = (error?: unknown) => {
          if (done) return;
          done = true;
          source.off('data', onData!);
          if (error === undefined) controller.close();
          else controller.error(error);
        };
        onData = (chunk) => {
          controller.enqueue(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        };
        source.on('data', onData);
        source.once('end', () => finish());
        // Destroyed without an end (the other side vanished): nothing more comes either.
        source.once('close', () => finish());
        source.once('error', (error) => finish(error));
      },
      pull() {
        if (!done) source.resume();
      },
      cancel() {
        done = true;
        source.off('data', onData!);
        source.destroy();
      },
    },
    { highWaterMark },
  );
}

/**
 * Writes to `target`. A write is taken at once unless `target` is full, then
 * it waits for 'drain'. An error of `target` (EPIPE: the reader went away)
 * fails the stream and every later write; it never reaches the process as an
 * unhandled 'error' event.
 */
export function webWritable(target: Writable): WritableStream<Uint8Array> {
  let controller: WritableStreamDefaultController | undefined;
  let failure: unknown;
  let waiting: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  const fail = (error: unknown) => {
    failure ??= error;
    waiting?.reject(failure);
    waiting = undefined;
    controller?.error(failure);
  };
  target.on('error', fail);
  target.on('drain', () => {
    waiting?.resolve();
    waiting = undefined;
  });
  return new WritableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    write(chunk) {
      if (failure !== undefined) throw failure;
      if (target.write(chunk)) return undefined;
      return new Promise<void>((resolve, reject) => (waiting = { resolve, reject }));
    },
    close() {
      return new Promise<void>((resolve) => target.end(() => resolve()));
    },
    abort(reason) {
      target.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}
