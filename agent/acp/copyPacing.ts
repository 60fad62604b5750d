// When a prompt's hold on its session's copy ends (earlyStart.ts holdCopy).
// The first words of a turn are what the person waits for; the copy's
// children (git, the sandbox's start: ~20 forks of the agent plus some
// blocking work) would delay them if they ran while the model's answer
// streams in. But the copy must not wait for the whole turn either: a first
// tool call usually comes after some seconds of a real model's talk, and it
// should find the copy ready. So the copy goes on in the time the model
// leaves the agent:
// - the model has said nothing for `quietMs` since the request went out or
//   since its last update (a real model thinks for hundreds of ms before its
//   first byte, and pauses while it streams): the agent is idle, the copy
//   uses that time;
// - its first words were delivered `afterFirstWordsMs` ago: a model that
//   streams without a pause (or a hostile one that never stops) cannot keep
//   the copy waiting longer than that.
// Anything of the prompt that needs the copy (a tool call, a `!` line) and
// the prompt's end release it at once (earlyStart.ts), whatever this says.

export interface CopyPacing {
  /** The model has been quiet this long: the copy goes on. */
  quietMs: number;
  /** Its first words were delivered this long ago: the copy goes on, pause or not. */
  afterFirstWordsMs: number;
}

/**
 * 30 ms: longer than the gaps of a burst of chunks the agent is still working
 * through, far shorter than a real model's wait for its first byte.
 * 150 ms: the first words are on screen by then; the copy (~100-200 ms of
 * children) is still ready before a first tool call of a model that talks first.
 */
export const defaultCopyPacing: CopyPacing = { quietMs: 30, afterFirstWordsMs: 150 };

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
 * of the model; `stop` ends the watch without a call.
 * One timer at a time, re-armed when it fires (and once at the first words):
 * an update costs a clock read.
 */
export class QuietWatch {
  private startedAt: number | undefined;
  private lastSaidAt = 0;
  private firstSaidAt: number | undefined;
  private timer: unknown;
  private dueAt = 0;
  private done = false;

  constructor(
    private readonly pacing: CopyPacing,
    private readonly release: () => void,
    private readonly clock: PacingClock = realClock,
  ) {}

  /** The turn's first model request went out (later calls change nothing). */
  requestSent(): void {
    if (this.done || this.startedAt !== undefined) return;
    this.startedAt = this.lastSaidAt = this.clock.now();
    this.arm(this.pacing.quietMs);
  }

  /** The model said something (an update of the turn). Before the request went out, nothing counts. */
  said(): void {
    if (this.done || this.startedAt === undefined) return;
    this.lastSaidAt = this.clock.now();
    if (this.firstSaidAt !== undefined) return;
    this.firstSaidAt = this.lastSaidAt;
    // The check due next may come after the first words' deadline (afterFirstWordsMs < quietMs).
    const deadline = this.firstSaidAt + this.pacing.afterFirstWordsMs;
    if (deadline < this.dueAt) {
      this.clock.clearTimeout(this.timer);
      this.arm(deadline - this.firstSaidAt);
    }
  }

  stop(): void {
    this.done = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.dueAt = this.clock.now() + Math.max(0, ms);
    this.timer = this.clock.setTimeout(() => this.check(), Math.max(0, ms));
  }

  private check(): void {
    this.timer = undefined;
    if (this.done) return;
    const now = this.clock.now();
    const quietFor = now - this.lastSaidAt;
    const sinceFirst = this.firstSaidAt === undefined ? undefined : now - this.firstSaidAt;
    if (quietFor >= this.pacing.quietMs || (sinceFirst !== undefined && sinceFirst >= this.pacing.afterFirstWordsMs)) {
      this.stop();
      this.release();
      return;
    }
    const untilQuiet = this.pacing.quietMs - quietFor;
    this.arm(sinceFirst === undefined ? untilQuiet : Math.min(untilQuiet, this.pacing.afterFirstWordsMs - sinceFirst));
  }
}
