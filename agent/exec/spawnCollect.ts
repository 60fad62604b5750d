// Spawns one argv (no shell) in its own process group with an explicit
// environment, streams and keeps the tail of its output, and ends the whole
// group on timeout, abort or exit. Every runner spawns through this: the
// plain one the command itself, the sandboxed one the sandbox's wrapper.
import { spawn } from 'node:child_process';
import type { CommandOutcome } from '../tools/tool';
import { OutputHeadTail } from './outputHeadTail';

/**
 * Process groups still running. Each command runs in its own group, so the
 * agent's own death would not take them along: on exit the agent kills them.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function track(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

export interface SpawnRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  maxOutputBytes: number;
  onOutput(chunk: string): void;
  killGraceMs?: number;
}

/**
 * Resolves when the process and its pipes have closed — also after a timeout
 * or abort, with the signal that ended it. Rejects only when the command
 * cannot be started, with a message for the model.
 */
export function spawnCollect(request: SpawnRequest): Promise<CommandOutcome> {
  const [command, ...args] = request.argv;
  if (!command) return Promise.reject(new Error('The command is empty: give the program and its arguments as an argv array.'));
  if (request.signal.aborted) return Promise.reject(request.signal.reason);
  return new Promise((resolve, reject) => {
    const groupKill = process.platform !== 'win32';
    const child = spawn(command, args, { cwd: request.cwd, env: request.env, stdio: ['ignore', 'pipe', 'pipe'], detached: groupKill, windowsHide: true });
    if (groupKill && child.pid !== undefined) track(child.pid);
    const tail = new OutputHeadTail(request.maxOutputBytes);
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const signalAll = (signal: NodeJS.Signals): void => {
      try {
        if (groupKill && child.pid !== undefined) process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const terminate = (): void => {
      if (killTimer) return;
      signalAll('SIGTERM');
      killTimer = setTimeout(() => signalAll('SIGKILL'), request.killGraceMs ?? 2000);
    };
    const timeout = setTimeout(() => {
      timedOut = true;
      terminate();
    }, request.timeoutMs);
    request.signal.addEventListener('abort', terminate, { once: true });
    const onData = (chunk: string): void => {
      tail.push(chunk);
      request.onOutput(chunk);
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    // Processes the command left behind in its group would hold the pipes
    // open forever; a finished command takes its group with it.
    child.on('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      signalAll('SIGKILL');
    });
    const finish = (): void => {
      if (child.pid !== undefined) liveGroups.delete(child.pid);
      clearTimeout(timeout);
      clearTimeout(killTimer);
      request.signal.removeEventListener('abort', terminate);
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish();
      reject(new Error(startFailure(command, request.cwd, error)));
    });
    child.on('close', () => {
      finish();
      resolve({ exitCode, signal: exitSignal, output: tail.text, truncated: tail.truncated, timedOut });
    });
  });
}

function startFailure(command: string, cwd: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return `Cannot run "${command}": no such program on PATH (or the directory ${cwd} does not exist). Commands run without a shell: give the program and its arguments separately.`;
  if (error.code === 'EACCES') return `Cannot run "${command}": permission denied (not executable).`;
  return `Cannot run "${command}": ${error.message}`;
}
