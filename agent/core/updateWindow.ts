// A streamed response's updates, sent without waiting for each one: the
// emitter then records and delivers the chunks that arrive together as one
// batch (one log write, one write to the client) instead of one pass of the
// event loop per chunk. At most `size` updates are outstanding, so a slow
// client still holds the model stream back and memory stays bounded.
import type { SessionUpdate } from './updates';

/** How many updates a stream may be ahead of its client before it waits. */
export const UPDATE_WINDOW = 128;

export class UpdateWindow {
  /** The outstanding emits, oldest first (emits settle in order). */
  private readonly ring: Array<Promise<void> | undefined>;
  private head = 0;
  private count = 0;
  private last: Promise<void> = Promise.resolve();
  private first = true;

  constructor(
    private readonly emit: (update: SessionUpdate) => Promise<void>,
    private readonly size = UPDATE_WINDOW,
  ) {
    this.ring = new Array(size);
  }

  /**
   * Emits `update`. Returns what to await: the first update's own delivery,
   * or the oldest outstanding update's when the window is full; undefined
   * otherwise.
   */
  send(update: SessionUpdate): Promise<void> | undefined {
    const sent = this.emit(update);
    this.last = sent;
    // The first update of a response goes out at once, before the stream is read on: it is what the person waits for.
    let wait: Promise<void> | undefined = this.first ? sent : undefined;
    this.first = false;
    if (this.count === this.size) {
      wait = this.ring[this.head];
      this.head = (this.head + 1) % this.size;
      this.count--;
    }
    this.ring[(this.head + this.count) % this.size] = sent;
    this.count++;
    return wait;
  }

  /** Settles once every update sent so far has been recorded and delivered (emits never reject). */
  drain(): Promise<void> {
    this.ring.fill(undefined);
    this.head = 0;
    this.count = 0;
    return this.last;
  }
}
