// Reaching the daemon from a small process (the bridge, `daemon status|stop`):
// connect, and start the daemon when none answers. Starting is race-safe
// because the daemon itself takes an exclusive lock before it listens; a
// daemon that loses the race exits, and every starter simply connects to the
// winner.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { checkSocketPath, type DaemonAddress } from './address';
import { parseJsonLine, readFirstLine, type Hello, type Welcome } from './handshake';

export class DaemonUnavailableError extends Error {}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Resolves with a connected socket, or undefined when nothing listens there (no socket, or a stale one). */
export function tryConnect(address: DaemonAddress): Promise<Socket | undefined> {
  checkSocketPath(address);
  return new Promise((resolve, reject) => {
    const socket = connect(address.path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error) => {
      socket.destroy();
      if (['ENOENT', 'ECONNREFUSED', 'ECONNRESET'].includes(code(error) ?? '')) resolve(undefined);
      else reject(error);
    });
  });
}

export interface StartOptions {
  /** The CLI bundle to run as `<bundle> daemon`. */
  cliPath: string;
  /** Where the daemon's stderr goes (appended). */
  logPath: string;
  /** `--listen` for a non-default address. */
  explicit: boolean;
  env?: NodeJS.ProcessEnv;
  /** How long to wait for a started daemon to answer. */
  timeoutMs?: number;
}

/** Connects, starting the daemon first if none answers. */
export async function connectOrStart(address: DaemonAddress, options: StartOptions): Promise<Socket> {
  const first = await tryConnect(address);
  if (first) return first;
  const started = startDaemon(address, options);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    const socket = await tryConnect(address);
    if (socket) return socket;
    // Exit 0 is a daemon that lost the start race: the winner is coming. Anything else failed.
    if (started.exitCode !== null && started.exitCode !== 0) {
      throw new Error(`the Accord daemon exited with status ${started.exitCode} before listening on ${address.path} (see ${options.logPath}).`);
    }
    if (Date.now() > deadline) {
      throw new Error(`the Accord daemon did not start listening on ${address.path} (see ${options.logPath}).`);
    }
  }
}

function startDaemon(address: DaemonAddress, options: StartOptions): { readonly exitCode: number | null } {
  mkdirSync(join(options.logPath, '..'), { recursive: true });
  const log = openSync(options.logPath, 'a', 0o600);
  try {
    const args = [options.cliPath, 'daemon', ...(options.explicit ? ['--listen', address.path] : [])];
    // Its own session and process group: the daemon outlives the editor window that started it.
    const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', log, log], env: options.env ?? process.env });
    const state = { exitCode: null as number | null };
    child.on('exit', (code, signal) => (state.exitCode = code ?? (signal ? 128 : 1)));
    child.on('error', () => (state.exitCode = 127));
    child.unref();
    return state;
  } finally {
    closeSync(log);
  }
}

/** Sends the first line and reads the daemon's answer (for `hello` a Welcome; for control lines their reply). */
export async function handshake<T = Welcome>(socket: Socket, hello: Hello): Promise<T> {
  socket.write(`${JSON.stringify(hello)}\n`);
  const line = await readFirstLine(socket);
  const reply = parseJsonLine<T & { accord?: string; error?: string }>(line);
  if (!reply || typeof reply.accord !== 'string') throw new DaemonUnavailableError(`the daemon answered something unexpected: ${line.slice(0, 200)}`);
  if (reply.accord === 'error') throw new DaemonUnavailableError(reply.error ?? 'the daemon refused the connection');
  return reply;
}
