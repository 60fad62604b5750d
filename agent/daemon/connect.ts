// Reaching the daemon from a small process (the bridge, `daemon status|stop`):
// connect, and start the daemon when none answers. Starting is race-safe
// because the daemon itself takes an exclusive lock before it listens; a
// daemon that loses the race exits, and every starter simply connects to the
// winner.
import { spawn } from 'node:child_process';
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
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
  /** The daemon's working directory (default: this process's). */
  cwd?: string;
  /** How long to wait for a started daemon to answer. */
  timeoutMs?: number;
}

/** The longest wait between two attempts to reach a daemon being started. */
const POLL_MS = 20;

/** Connects, starting the daemon first if none answers. */
export async function connectOrStart(address: DaemonAddress, options: StartOptions): Promise<Socket> {
  // No socket at all: nothing to try first, the daemon starts at once. A refused connect is only
  // known a turn of the event loop later, and the extension's early start (extension/startup/earlyAgent.ts)
  // is followed by ~100 ms of synchronous evaluation that the daemon's start now overlaps.
  checkSocketPath(address);
  const first = socketMissing(address) ? undefined : await tryConnect(address);
  if (first) return first;
  const started = startDaemon(address, options);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  // A short, steady poll: an editor waits for this (issue 17). Backing off to 250 ms let a daemon that
  // listened after 320 ms be found only at 560 ms; a refused connect to a missing socket costs microseconds.
  for (let delay = 5; ; delay = Math.min(delay * 2, POLL_MS)) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    const socket = await tryConnect(address);
    if (socket) return socket;
    // Our daemon is gone and no live daemon holds the lock: it failed (a race loser exits while the winner holds it).
    const pid = started.pid;
    if (started.failed || (pid !== undefined && !pidAlive(pid) && !lockHolderAlive(address.lockPath))) {
      throw new Error(`the Accord daemon exited before listening on ${address.path} (see ${options.logPath}).`);
    }
    if (Date.now() > deadline) {
      throw new Error(`the Accord daemon did not start listening on ${address.path} (see ${options.logPath}).`);
    }
  }
}

function socketMissing(address: DaemonAddress): boolean {
  return !address.path.startsWith('\\\\') && lstatSync(address.path, { throwIfNoEntry: false }) === undefined;
}

/**
 * Starts the daemon through a launcher that exits at once, so the daemon is
 * nobody's descendant: clients that kill their agent's whole process tree
 * when they end (acpx does) must not take the daemon, and every session
 * with it, down too. The launcher prints the daemon's pid.
 *
 * On POSIX the launcher is /bin/sh (about 1 ms to start): a Node launcher
 * was one more Node start (40-100 ms) on the path of every editor that finds
 * no daemon (issue 17). The daemon, an asynchronous command of a
 * non-interactive shell, starts with SIGINT and SIGQUIT ignored; Node
 * resets every disposition at start-up, so its SIGINT handler still works.
 * Windows has no /bin/sh: there the launcher is Node.
 */
const SHELL_LAUNCHER = '"$@" </dev/null >&2 & echo $!';
const NODE_LAUNCHER = [
  "const { spawn } = require('node:child_process');",
  "const child = spawn(process.execPath, process.argv.slice(1), { detached: true, stdio: ['ignore', 2, 2] });",
  "child.on('error', () => process.exit(127));",
  "child.unref();",
  "process.stdout.write(String(child.pid), () => process.exit(0));",
].join('\n');

/** The launcher's command line for `daemonArgs` (the daemon's own arguments after the runtime). */
export function launcherCommand(daemonArgs: string[], platform: NodeJS.Platform = process.platform): { command: string; args: string[] } {
  if (platform === 'win32') return { command: process.execPath, args: ['-e', NODE_LAUNCHER, ...daemonArgs] };
  // $0 names the shell in `ps`; "$@" is the runtime and the daemon's arguments, never parsed by the shell.
  return { command: '/bin/sh', args: ['-c', SHELL_LAUNCHER, 'accord-daemon-launcher', process.execPath, ...daemonArgs] };
}

// glibc gives each thread that mallocs an arena of its own (up to 8 per core): the
// daemon's libuv and V8 worker threads held ~7 MB of resident arena pages a bridge-less
// turn never needed (peak of the daemon in a 200-chunk turn 95 -> 88 MB, load ~10).
// Two arenas keep the main thread's allocations apart from the workers'. A value the
// person set is kept.
function daemonEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.MALLOC_ARENA_MAX === undefined ? { ...env, MALLOC_ARENA_MAX: '2' } : env;
}

function startDaemon(address: DaemonAddress, options: StartOptions): { pid?: number; failed: boolean } {
  mkdirSync(join(options.logPath, '..'), { recursive: true });
  const log = openSync(options.logPath, 'a', 0o600);
  const state: { pid?: number; failed: boolean } = { failed: false };
  try {
    const { command, args } = launcherCommand([options.cliPath, 'daemon', ...(options.explicit ? ['--listen', address.path] : [])]);
    const launcher = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', log], env: daemonEnvironment(options.env ?? process.env), cwd: options.cwd });
    let out = '';
    launcher.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // 'close', not 'exit': the pid it printed is read to the end (the daemon does not hold this pipe).
    launcher.on('close', (code) => {
      const pid = Number(out.trim());
      if (Number.isInteger(pid) && pid > 0) state.pid = pid;
      if (code !== 0) state.failed = true;
    });
    launcher.on('error', () => (state.failed = true));
    launcher.unref();
    return state;
  } finally {
    closeSync(log);
  }
}

/** Alive and not a zombie (an exited daemon in a container without init stays unreaped). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return code(error) === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

function lockHolderAlive(lockPath: string): boolean {
  try {
    const { pid } = JSON.parse(readFileSync(lockPath, 'utf8')) as { pid?: unknown };
    return typeof pid === 'number' && pidAlive(pid);
  } catch {
    return false;
  }
}

/**
 * Sends the first line and reads the daemon's answer (for `hello` a Welcome;
 * for control lines their reply). With `timeoutMs`, a listener that never
 * answers (not a daemon) is given up on: the socket is destroyed.
 */
/** A daemon answers its hello at once: a listener silent this long is not one (a planted or wedged socket), and its client says so instead of hanging. */
export const WELCOME_TIMEOUT_MS = 15_000;

export async function handshake<T = Welcome>(socket: Socket, hello: Hello, timeoutMs?: number): Promise<T> {
  socket.write(`${JSON.stringify(hello)}\n`);
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
    socket.destroy(new DaemonUnavailableError(`the daemon socket did not answer within ${(timeoutMs / 1000).toFixed(1)} s; is it an Accord daemon?`));
  }, timeoutMs);
  let line: string;
  try {
    line = await readFirstLine(socket);
  } finally {
    clearTimeout(timer);
  }
  const reply = parseJsonLine<T & { accord?: string; error?: string }>(line);
  if (!reply || typeof reply.accord !== 'string') throw new DaemonUnavailableError(`the daemon answered something unexpected: ${line.slice(0, 200)}`);
  if (reply.accord === 'error') throw new DaemonUnavailableError(reply.error ?? 'the daemon refused the connection');
  return reply;
}
