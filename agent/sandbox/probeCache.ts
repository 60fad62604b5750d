// A probe of the machine whose good answer holds for the process's life and
// whose bad answer may not: bubblewrap and socat get installed, a namespace
// restriction gets lifted, while a long-lived daemon keeps running. A
// positive result is kept; a negative one is asked again when it is next
// wanted (a new session), at most once per `recheckMs`, so a burst of
// sessions probes once. Concurrent callers share one probe in flight.

export interface ProbeCacheOptions<T> {
  /** True for a result that will not change while the process runs (kept for good). */
  lasting(result: T): boolean;
  /** How long a negative result is reused before the next call probes again. */
  recheckMs: number;
  /** The clock (injected by tests; no test waits on real time). */
  now?: () => number;
}

interface Entry<T> {
  result: Promise<T>;
  /** When the answer came; undefined while the probe runs (callers share it). */
  at?: number;
  lasting: boolean;
}

export class ProbeCache<T> {
  private last: Entry<T> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: ProbeCacheOptions<T>) {
    this.now = options.now ?? Date.now;
  }

  /** The kept answer, or `probe`'s (the caller's way to probe now, e.g. with its own session's runner). */
  get(probe: () => Promise<T>): Promise<T> {
    const last = this.last;
    if (last && (last.at === undefined || last.lasting || this.now() - last.at < this.options.recheckMs)) return last.result;
    const entry: Entry<T> = { result: probe(), lasting: false };
    // The interval runs from the answer, so a slow probe is not repeated the moment it ends; a failed probe is a negative answer.
    entry.result.then(
      (result) => {
        entry.lasting = this.options.lasting(result);
        entry.at = this.now();
      },
      () => (entry.at = this.now()),
    );
    this.last = entry;
    return entry.result;
  }
}
