// When a prompt's hold on its session's copy ends (earlyStart.ts holdCopy).
// The first words of a turn are what the person waits for; the copy's
// children (git, the sandbox's start: ~20 forks of the agent plus some
// blocking work) would delay them if they ran while the model's answer is
// received and streamed on. But the copy must not wait for the whole turn
// either: a first tool call should find it ready. So the copy goes on in the
// time the model leaves the agent:
// - quiet: for `quietMs` the model has said nothing and the agent has been
//   idle (a real model thinks for hundreds of ms before its first byte, and
//   pauses while it streams). Idle, not just silent: a model that answered at
//   once keeps the agent busy (parsing, forwarding) before its first update,
//   which a wall clock alone would take for silence. The watch ticks every
//   `tickMs`; a tick that comes more than a tick late means the event loop
//   was busy, and the quiet starts again.
// - latest: `latestMs` after the request went out, whatever the model does
//   (a model that streams without a pause, or a hostile one that never stops,
//   or a machine too loaded to ever look idle).
// Anything of the prompt that needs the copy (a tool call, a `!` line) and
// the prompt's end release it at once (earlyStart.ts), whatever this says.

export interface CopyPacing {
  /** The model silent and the agent idle this long: the copy goes on. */
  quietMs: number;
  /** This long after the request went out, the copy goes on regardless. */
  latestMs: number;
}

/**
 * 30 ms: longer than the agent's own gaps while it works through a burst of
 * chunks, far shorter than a real model's wait for its first byte.
 * 250 ms: a model answering at once has its first words on screen well
 * before; the copy (~100-200 ms of children) is still ready before a first
 * tool call of a model that talks first.
 */
export const defaultCopyPacing: CopyPacing = { quietMs: 30, latestMs: 250 };

/** How often the watch looks, and how late a look may come before the agent counts as busy. */
const TICK_MS = 10;

/** Time for the watch (tests give a clock of their own). */
export interface PacingClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: PacingClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Calls `release` once, when the pacing says the copy may go on (see the
 * file's comment). Watching starts at `requestSent`; `said` marks each update
 * of the model (a clock read, nothing more); `stop` ends the watch without a call.
 */
export class QuietWatch {
  private startedAt: number | undefined;
  /** Since when the model has been silent and the agent idle. */
  private quietSince = 0;
  private lastSaidAt = -Infinity;
  private timer: unknown;
  private dueAt = 0;
  private done = false;

  constructor(
    private readonly pacing: CopyPacing,
    private readonly release: () => void,
    private readonly clock: PacingClock = realClock,
    private readonly tickMs = TICK_MS,
  ) {}

  /** The turn's first model request went out (later calls change nothing). */
  requestSent(): void {
    if (this.done || this.startedAt !== undefined) return;
    this.startedAt = this.quietSince = this.clock.now();
    this.arm(this.startedAt);
  }

  /** The model said something (an update of the turn). Before the request went out, nothing counts. */
  said(): void {
    if (this.done || this.startedAt === undefined) return;
    this.lastSaidAt = this.clock.now();
  }

  stop(): void {
    this.done = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(now: number): void {
    const untilQuiet = this.quietSince + this.pacing.quietMs - now;
    const untilLatest = this.startedAt! + this.pacing.latestMs - now;
    const wait = Math.max(0, Math.min(this.tickMs, untilQuiet, untilLatest));
    this.dueAt = now + wait;
    this.timer = this.clock.setTimeout(() => this.check(), wait);
  }

  private check(): void {
    this.timer = undefined;
    if (this.done) return;
    const now = this.clock.now();
    // A look that came more than a tick late: the agent was busy until now.
    if (now - this.dueAt > this.tickMs) this.quietSince = now;
    this.quietSince = Math.max(this.quietSince, this.lastSaidAt);
    if (now - this.quietSince >= this.pacing.quietMs || now - this.startedAt! >= this.pacing.latestMs) {
      this.stop();
      this.release();
      return;
    }
    this.arm(now);
  }
}
