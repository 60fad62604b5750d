// Spawns one argv (no shell) in its own process group with an explicit
// environment, streams and keeps the tail of its output, and ends the whole
// group on timeout, abort or exit. The sandboxed runner spawns the wrapper
// through this; the unsandboxed fallback spawns the command itself.
import { spawn } from 'node:child_process';
import { OutputTail } from '../exec/outputTail';
import type { CommandOutcome } from '../tools/tool';

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

export function spawnCollect(request: SpawnRequest): Promise<CommandOutcome> {
  const [command, ...args] = request.argv;
  if (!command) return Promise.reject(new Error('The command is empty: give the program and its arguments as an argv array.'));
  if (request.signal.aborted) return Promise.reject(request.signal.reason);
  return new Promise((resolve, reject) => {
    const groupKill = process.platform !== 'win32';
    const child = spawn(command, args, { cwd: request.cwd, env: request.env, stdio: ['ignore', 'pipe', 'pipe'], detached: groupKill, windowsHide: true });
    const tail = new OutputTail(request.maxOutputBytes);
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
    child.on('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      signalAll('SIGKILL');
    });
    const finish = (): void => {
      clearTimeout(timeout);
      clearTimeout(killTimer);
      request.signal.removeEventListener('abort', terminate);
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish();
      const why = error.code === 'ENOENT' ? `no such program on PATH, or the directory ${request.cwd} does not exist` : error.message;
      reject(new Error(`Cannot run "${command}": ${why}.`));
    });
    child.on('close', () => {
      finish();
      resolve({ exitCode, signal: exitSignal, output: tail.text, truncated: tail.truncated, timedOut });
    });
  });
}
