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
//   once keeps the agent busy (parsing, loading code, forwarding) before its
//   first update, which a wall clock alone would take for silence. The watch
//   looks every 10 ms; if the event loop worked for more than half of the
//   time since its last look (Node's event-loop utilisation, which counts
//   the time it waited for events as idle, so a loaded machine's late
//   timers alone do not make it busy), the quiet starts again.
// - latest: `latestMs` after the request went out, whatever the model does
//   (a model that streams without a pause, or a hostile one that never stops).
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

/** How often the watch looks. */
const TICK_MS = 10;

/** Time for the watch (tests give a clock of their own). */
export interface PacingClock {
  now(): number;
  /** Milliseconds the event loop has spent working so far (not waiting for events). */
  busyMs(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

// Node's global `performance` (perf_hooks' own, loaded already: idleWatch reads its clock every turn); typed as the DOM's here.
const loop = performance as unknown as { eventLoopUtilization(): { active: number } };

const realClock: PacingClock = {
  now: () => performance.now(),
  busyMs: () => loop.eventLoopUtilization().active,
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
  /** When the watch last looked, and how busy the loop had been by then. */
  private lookedAt = 0;
  private busyAt = 0;
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
    this.startedAt = this.quietSince = this.lookedAt = this.clock.now();
    this.busyAt = this.clock.busyMs();
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
    this.timer = this.clock.setTimeout(() => this.check(), wait);
  }

  private check(): void {
    this.timer = undefined;
    if (this.done) return;
    const now = this.clock.now();
    const busy = this.clock.busyMs();
    // The loop worked for more than half the time since the last look: the agent was busy until now.
    if (busy - this.busyAt > (now - this.lookedAt) / 2) this.quietSince = now;
    this.lookedAt = now;
    this.busyAt = busy;
    this.quietSince = Math.max(this.quietSince, this.lastSaidAt);
    if (now - this.quietSince >= this.pacing.quietMs || now - this.startedAt! >= this.pacing.latestMs) {
      this.stop();
      this.release();
      return;
    }
    this.arm(now);
  }
}
