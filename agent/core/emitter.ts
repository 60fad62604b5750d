// The one path every update of a session takes. The protocol adapter forwards
// it to the client; a session log subscribes in the `record` phase to write
// each update before any client sees it (write-ahead), so a crash never
// loses an update the person already saw.
import type { SessionUpdate } from './updates';

export type UpdateListener = (update: SessionUpdate) => void | Promise<void>;

/** `record` listeners finish (in subscription order) before `deliver` listeners start. */
export type UpdatePhase = 'record' | 'deliver';

export class UpdateEmitter {
  private readonly listeners = { record: new Set<UpdateListener>(), deliver: new Set<UpdateListener>() };
  private queue: Promise<void> = Promise.resolve();

  /** Returns the unsubscribe function. */
  subscribe(listener: UpdateListener, options: { phase?: UpdatePhase } = {}): () => void {
    const set = this.listeners[options.phase ?? 'deliver'];
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Queues the update behind every earlier one, so each listener sees updates
   * in emit order even when emits overlap. Resolves once every listener has
   * taken it. A listener that throws is reported and skipped; it never breaks
   * the stream for the others.
   */
  emit(update: SessionUpdate): Promise<void> {
    const delivered = this.queue.then(async () => {
      for (const listener of this.listeners.record) await settle(listener, update);
      await Promise.all([...this.listeners.deliver].map((listener) => settle(listener, update)));
    });
    this.queue = delivered;
    return delivered;
  }

  /**
   * Runs `work` with the stream held: no update is recorded or delivered
   * until it settles, and every earlier one has been. A client joining a
   * live session replays the log and subscribes inside it, so it sees each
   * update exactly once.
   */
  barrier<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

async function settle(listener: UpdateListener, update: SessionUpdate): Promise<void> {
  try {
    await listener(update);
  } catch (error) {
    console.error(`accord: an update listener failed on ${update.sessionUpdate}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
