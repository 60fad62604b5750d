// Live output of a running tool call on its card. A command can print far
// faster than any client (or the session log) can take updates, so output is
// never queued: the card shows a snapshot of the latest tail, at most one
// update is in flight, and the next is sent only after it settled and a short
// pause. Memory is one tail; the log and the wire get a few snapshots a second.

/** Characters of live output on the card; the final result replaces it. */
export const PROGRESS_TAIL_CHARS = 8_000;
/** Least time between two live updates of one card. */
export const PROGRESS_INTERVAL_MS = 500;

export class ProgressStream {
  private shown = '';
  private dirty = false;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastSent = -Infinity;
  private closed = false;

  constructor(
    private readonly send: (snapshot: string) => Promise<void>,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  push(text: string): void {
    if (this.closed) return;
    this.shown = text.length >= PROGRESS_TAIL_CHARS ? text.slice(-PROGRESS_TAIL_CHARS) : (this.shown + text).slice(-PROGRESS_TAIL_CHARS);
    this.dirty = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.inFlight || this.timer || this.closed) return;
    const wait = Math.max(0, this.lastSent + this.intervalMs - Date.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    this.timer = undefined;
    if (!this.dirty || this.closed) return;
    this.dirty = false;
    this.lastSent = Date.now();
    this.inFlight = this.send(this.shown)
      .catch(() => undefined)
      .finally(() => {
        this.inFlight = undefined;
        if (this.dirty) this.schedule();
      });
  }

  /** Stops live updates; resolves once the one in flight (if any) has settled, so the final result comes after it. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }
}
