// Runs the model's regular expression in a worker thread. The pattern is
// hostile input: one that backtracks catastrophically ("(a+)+$" against a long
// line of a's) would hold the daemon's single event loop, and so every session
// of every client, for minutes. Off the main thread it can only waste its own
// thread, which a deadline then terminates.
import { Worker } from 'node:worker_threads';
import { ToolInputError } from './results';

/**
 * How long the worker may spend on one file. The fallback reads files of at
 * most 4 MB; a linear scan of that takes tens of milliseconds, so 5 s leaves
 * ample room for a loaded 2-core machine, while a backtracking pattern grows
 * exponentially with the line and would not finish in minutes either.
 */
export const FILE_DEADLINE_MS = 5_000;

/** The worker's own heap: a 4 MB file split into lines fits many times over; a runaway allocation does not take the daemon's memory. */
const WORKER_HEAP_MB = 128;

// Plain CommonJS so it runs the same from tsx and from the bundled dist/agent-core.js.
// It answers file by file, so the deadline covers one file and the answers
// before a stall survive it. `test` without the g or y flag keeps no state between lines.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.pattern, workerData.flags);
parentPort.on('message', ({ texts, limit }) => {
  try {
    let left = limit;
    for (let file = 0; file < texts.length && left > 0; file += 1) {
      const lines = texts[file].split(/\\r?\\n/);
      const found = [];
      for (let index = 0; index < lines.length && found.length < left; index += 1) if (regex.test(lines[index])) found.push(index);
      left -= found.length;
      parentPort.postMessage({ file, found });
    }
    parentPort.postMessage({ done: true });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});
`;

/** The pattern took longer than FILE_DEADLINE_MS on one file. */
export class BacktrackError extends ToolInputError {
  override name = 'BacktrackError';
  constructor(
    /** Why and what to do instead, without the leading "search failed" or a final period. */
    readonly detail: string,
  ) {
    super(`search failed: ${detail}.`);
  }
}

let live = 0;
/** Worker threads running right now (for tests: none may outlive its search). */
export function liveLineMatchers(): number {
  return live;
}

/** One file's text and the path the error message names. */
export interface MatchFile {
  path: string;
  text: string;
}

interface Reply {
  file?: number;
  found?: number[];
  done?: boolean;
  error?: string;
}

interface Pending {
  onFile(file: number, found: number[]): void;
  resolve(): void;
  reject(error: unknown): void;
  /** Restarts the deadline for the file after `answered` files. */
  arm(answered: number): void;
}

/** One worker for one search call; close() must always follow. */
export class LineMatcher {
  private worker: Worker | undefined;
  private pending: Pending | undefined;
  private failed: unknown;
  private ending: Promise<void> = Promise.resolve();
  private readonly onAbort = (): void => this.stop(this.signal.reason);

  constructor(
    private readonly pattern: string,
    private readonly flags: string,
    private readonly signal: AbortSignal,
    private readonly deadlineMs = FILE_DEADLINE_MS,
  ) {}

  /**
   * Scans `files` in order, calling `onFile(file, found)` with each file's
   * index and the 0-based indices of its matching lines, until `limit` lines
   * matched in all. Batching
   * saves a round trip per file; the deadline still applies per file.
   */
  async match(files: readonly MatchFile[], limit: number, onFile: (file: number, found: number[]) => void): Promise<void> {
    this.signal.throwIfAborted();
    if (this.failed !== undefined) throw this.failed;
    if (files.length === 0) return;
    const worker = this.start();
    let timer: NodeJS.Timeout | undefined;
    const done = new Promise<void>((resolve, reject) => {
      const arm = (answered: number): void => {
        clearTimeout(timer);
        const file = files[answered];
        if (file) timer = setTimeout(() => this.stop(this.backtracked(file.path)), this.deadlineMs);
      };
      this.pending = { onFile, resolve, reject, arm };
    });
    try {
      this.pending!.arm(0);
      worker.postMessage({ texts: files.map((file) => file.text), limit });
      await done;
    } finally {
      clearTimeout(timer);
      this.pending = undefined;
    }
  }

  private backtracked(shownPath: string): BacktrackError {
    return new BacktrackError(
      `the pattern ${JSON.stringify(this.pattern)} backtracks too much (more than ${this.deadlineMs / 1000} s on ${shownPath}) and was stopped; use a simpler pattern, without nested or adjacent repeats such as "(a+)+" or "(x+x+)+"`,
    );
  }

  async close(): Promise<void> {
    this.signal.removeEventListener('abort', this.onAbort);
    const worker = this.worker;
    this.worker = undefined;
    if (worker) this.end(worker);
    await this.ending;
  }

  /** Starts the thread now, so its start-up overlaps the walk and the first reads. */
  start(): Worker {
    if (this.worker) return this.worker;
    // No inherited execArgv (loaders, --inspect) and no environment: the worker only runs a regex.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pattern: this.pattern, flags: this.flags }, execArgv: [], env: {}, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    live += 1;
    worker.once('exit', () => {
      live -= 1;
      // Normally after stop() or close(); otherwise the thread died under the file in flight.
      this.pending?.reject(new ToolInputError('search failed: the pattern could not be run (its worker thread stopped). Use a simpler pattern.'));
    });
    worker.on('message', (reply: Reply) => this.answer(reply));
    worker.on('error', (error) => this.stop(new ToolInputError(`search failed: the pattern could not be run (${error.message}). Use a simpler pattern.`)));
    this.signal.addEventListener('abort', this.onAbort, { once: true });
    this.worker = worker;
    return worker;
  }

  private answer(reply: Reply): void {
    const pending = this.pending;
    if (!pending) return;
    if (reply.error !== undefined) return pending.reject(new ToolInputError(`search failed: the pattern could not be run (${reply.error}). Use a simpler pattern.`));
    if (reply.done) return pending.resolve();
    const file = reply.file!;
    pending.onFile(file, reply.found!);
    pending.arm(file + 1);
  }

  /** Terminates the worker and fails the file in flight (and every later one) with `reason`. */
  private stop(reason: unknown): void {
    this.failed ??= reason;
    this.pending?.reject(reason);
    const worker = this.worker;
    this.worker = undefined;
    if (worker) this.end(worker);
  }

  private end(worker: Worker): void {
    this.ending = worker.terminate().then(
      () => undefined,
      () => undefined,
    );
  }
}
