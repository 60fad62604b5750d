// The one path every update of a session takes. The protocol adapter forwards
// it to the client; a session log subscribes in the `record` phase to write
// each update before any client sees it (write-ahead), so a crash never
// loses an update the person already saw.
//
// Updates emitted while earlier ones are still being recorded wait together
// and are recorded as one batch: a streamed turn emits hundreds of chunks, and
// recording them one at a time cost each its own write(2), its own pass of the
// event loop and its own write to the client.
import type { SessionUpdate } from './updates';

export type UpdateListener = (update: SessionUpdate) => void | Promise<void>;

/**
 * `record` listeners are called for an update before any `deliver` listener
 * sees it, and an update is delivered only once what its record listeners
 * returned has settled. Record listeners are called in emit order, but the
 * call for an update does not wait for the previous update's promise (a log
 * appends synchronously and commits in order), so a batch shares one commit.
 */
export type UpdatePhase = 'record' | 'deliver';

interface Batch {
  readonly updates: SessionUpdate[];
  done?: Promise<void>;
}

export class UpdateEmitter {
  private readonly listeners = { record: new Set<UpdateListener>(), deliver: new Set<UpdateListener>() };
  private queue: Promise<void> = Promise.resolve();
  /** The batch at the end of the queue that has not started: later emits join it. */
  private open: Batch | undefined;

  /** Returns the unsubscribe function. */
  subscribe(listener: UpdateListener, options: { phase?: UpdatePhase } = {}): () => void {
    const set = this.listeners[options.phase ?? 'deliver'];
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Queues the update behind every earlier one, so each listener sees updates
   * in emit order even when emits overlap. Resolves once every listener has
   * taken it (and the updates batched with it). A listener that throws is
   * reported and skipped; it never breaks the stream for the others.
   */
  emit(update: SessionUpdate): Promise<void> {
    let batch = this.open;
    if (!batch) {
      const started: Batch = { updates: [] };
      started.done = this.queue.then(() => {
        // From here on, emits form the next batch: this one's records are being written.
        if (this.open === started) this.open = undefined;
        return this.run(started.updates);
      });
      this.queue = started.done;
      this.open = batch = started;
    }
    batch.updates.push(update);
    return batch.done!;
  }

  /**
   * Runs `work` with the stream held: no update is recorded or delivered
   * until it settles, and every earlier one has been. A client joining a
   * live session replays the log and subscribes inside it, so it sees each
   * update exactly once.
   */
  barrier<T>(work: () => Promise<T>): Promise<T> {
    this.open = undefined; // updates emitted from now on go after `work`
    const result = this.queue.then(work);
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private async run(updates: readonly SessionUpdate[]): Promise<void> {
    if (this.listeners.record.size > 0) {
      const recorded: Promise<void>[] = [];
      let last: unknown;
      for (const update of updates) {
        for (const listener of this.listeners.record) {
          // A log returns one commit for the records it writes together: wait for each such promise once.
          const result = call(listener, update);
          if (result === undefined || result === last) continue;
          last = result;
          recorded.push(Promise.resolve(result).catch((error: unknown) => report(update, error)));
        }
      }
      if (recorded.length > 0) await Promise.all(recorded);
    }
    const deliver = this.listeners.deliver;
    for (const update of updates) {
      if (deliver.size === 1) {
        // The usual case (one client): no promise of ours around the listener's.
        for (const listener of deliver) {
          const result = call(listener, update);
          if (result !== undefined) {
            try {
              await result;
            } catch (error) {
              report(update, error);
            }
          }
        }
      } else if (deliver.size > 1) {
        await Promise.all([...deliver].map((listener) => settleNow(listener, update)));
      }
    }
  }
}

/** Calls `listener`, reporting a throw; what it returned otherwise. */
function call(listener: UpdateListener, update: SessionUpdate): void | Promise<void> {
  try {
    return listener(update);
  } catch (error) {
    report(update, error);
    return undefined;
  }
}

/** Calls `listener`; a promise only if it returned one (never rejecting), so a synchronous listener costs no promise. */
function settleNow(listener: UpdateListener, update: SessionUpdate): Promise<void> | undefined {
  const result = call(listener, update);
  return result === undefined ? undefined : Promise.resolve(result).catch((error: unknown) => report(update, error));
}

function report(update: SessionUpdate, error: unknown): void {
  console.error(`accord: an update listener failed on ${update.sessionUpdate}: ${error instanceof Error ? error.message : String(error)}`);
}
