// The SDK's outgoing messages, written straight into the output's batch
// (batchedOutput.ts). The SDK's own ndJsonStream takes each message through
// its writable, a promise chain of its own, and the byte stream's writable
// before it reaches the batch: two web-stream queues and about ten promises
// per message, which a streamed answer sends hundreds of (and the young
// generation, held small on purpose, collects). Here a message is
// stringified and gathered in the call that writes it. The SDK's write queue
// already hands messages on one at a time, in order; that order is kept.
// Reading stays the SDK's (ndJsonStream's readable side, which also answers
// malformed lines on the byte stream).
import { ndJsonStream, type AnyMessage, type Stream } from '@agentclientprotocol/sdk/unstable';
import type { BatchedOutput } from './batchedOutput';
import type { GuardedStdio } from './lineGuard';
import { OneWriterStream } from './sharedWriter';

const taken = Promise.resolve();

/** The ACP stream over guarded stdio: the SDK reads it (and answers malformed lines), messages are written here. */
export function acpStream(stdio: GuardedStdio, maxMessageBytes: number): Stream {
  const { readable } = ndJsonStream(stdio.output, stdio.input, { maxMessageBytes });
  return { readable, writable: messageOutput(stdio.push) };
}

/** A writable of messages whose writer (one, shared, never locked) gathers each as a JSON line through `push`. */
export function messageOutput(push: BatchedOutput['push']): WritableStream<AnyMessage> {
  return new OneWriterStream(messageWriter(push));
}

function messageWriter(push: BatchedOutput['push']): WritableStreamDefaultWriter<AnyMessage> {
  let ended: Error | undefined;
  const end = (): Promise<void> => {
    ended ??= new TypeError('The ACP output is closed.');
    return taken;
  };
  return {
    closed: new Promise<undefined>(() => undefined),
    desiredSize: 1,
    ready: taken as Promise<undefined>,
    write(message?: AnyMessage): Promise<void> {
      if (ended) return Promise.reject(ended);
      try {
        return push(`${JSON.stringify(message)}\n`) ?? taken;
      } catch (error) {
        return Promise.reject(error);
      }
    },
    // As ndJsonStream's writable: ending the messages leaves the byte stream to its owner.
    close: end,
    abort: end,
    releaseLock: () => undefined,
  };
}
