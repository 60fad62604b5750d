// When an agent that exited may be started again: at most `maxRestarts`
// within a sliding `windowMs`, then not again until a person asks.
// Pure: the clock is passed in.

export interface RestartPolicyOptions {
  maxRestarts: number;
  windowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicyOptions = { maxRestarts: 4, windowMs: 3 * 60_000 };

export class RestartPolicy {
  private restarts: number[] = [];

  constructor(private readonly options: RestartPolicyOptions = DEFAULT_RESTART_POLICY) {}

  /** Records a restart at `now` and returns true, or returns false when the budget is spent. */
  tryRestart(now: number): boolean {
    this.restarts = this.restarts.filter((t) => now - t < this.options.windowMs);
    if (this.restarts.length >= this.options.maxRestarts) return false;
    this.restarts.push(now);
    return true;
  }

  /** A person asked to restart: the budget starts over. */
  reset(): void {
    this.restarts = [];
  }

  get recentRestarts(): number {
    return this.restarts.length;
  }
}
