// The SDK sends every message through a writer it takes from the
// connection's writable and releases right after (getWriter, write,
// releaseLock). With web streams, taking and releasing a writer creates and
// rejects its `ready`/`closed` promises each time: about a third of the cost
// of one notification, which a session/load of a long log sends tens of
// thousands of. The writable below is locked once, to the real one, and
// hands every caller the same writer: writes keep the order they were made
// in, and close/abort reach the real stream.

/** `target`, written through one long-lived writer; getWriter() is cheap and never blocks on a lock. */
export function sharedWriter<T>(target: WritableStream<T>): WritableStream<T> {
  return new OneWriterStream(shared(target.getWriter()));
}

/** A writable whose every getWriter() is `writer` (never locked), and whose close/abort are the writer's. */
export class OneWriterStream<T> extends WritableStream<T> {
  readonly #writer: WritableStreamDefaultWriter<T>;

  constructor(writer: WritableStreamDefaultWriter<T>) {
    super();
    this.#writer = writer;
  }

  override getWriter(): WritableStreamDefaultWriter<T> {
    return this.#writer;
  }

  override close(): Promise<void> {
    return this.#writer.close();
  }

  override abort(reason?: unknown): Promise<void> {
    return this.#writer.abort(reason);
  }
}

/** The real writer without releaseLock: every caller "releases" it after each write, and it must stay held. */
function shared<T>(writer: WritableStreamDefaultWriter<T>): WritableStreamDefaultWriter<T> {
  return {
    get closed() {
      return writer.closed;
    },
    get desiredSize() {
      return writer.desiredSize;
    },
    get ready() {
      return writer.ready;
    },
    write: (chunk?: T) => writer.write(chunk as T),
    close: () => writer.close(),
    abort: (reason?: unknown) => writer.abort(reason),
    releaseLock: () => undefined,
  };
}
