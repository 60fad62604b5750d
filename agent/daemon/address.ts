// Where the per-user daemon listens, and the checks that make its socket the
// security boundary: only the user who owns the 0700 directory can reach the
// 0600 socket inside it. Tiny on purpose: the bridge (dist/agent.js) imports
// this, and it must not pull in the agent core.
import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DaemonAddress {
  /** The socket path (a named pipe on Windows). */
  path: string;
  /** The private directory holding the socket and the daemon's lock. */
  dir: string;
  /** The lock file whose holder is the one daemon for this data directory. */
  lockPath: string;
}

/** Same rule as agent/log/paths.ts (kept here so the bridge needs nothing else). */
export function dataDirOf(env: NodeJS.ProcessEnv, platform = process.platform, home = homedir()): string {
  if (env.ACCORD_HOME) return env.ACCORD_HOME;
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Accord');
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'Accord');
  const stateHome = env.XDG_STATE_HOME?.startsWith('/') ? env.XDG_STATE_HOME : join(home, '.local', 'state');
  return join(stateHome, 'accord');
}

/**
 * A short name for a data directory (FNV-1a, 64-bit): it only tells
 * directories apart, it protects nothing, and it spares the bridge loading
 * node:crypto on every editor start.
 */
export function nameTag(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return hash.toString(16).padStart(16, '0').slice(0, 12);
}

/** sun_path is 108 bytes on Linux, 104 on macOS; stay under both with room for the NUL. */
const MAX_SOCKET_PATH = 100;

/**
 * One daemon per data directory: two ACCORD_HOMEs (tests, portable installs)
 * never share one, since the daemon's sessions live in its data directory.
 * Under $XDG_RUNTIME_DIR when set and ACCORD_HOME is not, else in the data
 * directory; a path too long for a socket moves to a per-user temp directory.
 */
export function defaultDaemonAddress(env: NodeJS.ProcessEnv = process.env, platform = process.platform, home = homedir(), tmp = tmpdir()): DaemonAddress {
  const dataDir = dataDirOf(env, platform, home);
  const tag = nameTag(dataDir);
  if (platform === 'win32') {
    const dir = join(dataDir, 'run');
    return { path: `\\\\.\\pipe\\accord-${tag}`, dir, lockPath: join(dir, 'daemon.lock') };
  }
  const runtime = env.XDG_RUNTIME_DIR?.startsWith('/') && !env.ACCORD_HOME ? env.XDG_RUNTIME_DIR : undefined;
  const dir = runtime ? join(runtime, 'accord') : join(dataDir, 'run');
  const name = runtime ? `daemon-${tag}` : 'daemon';
  if (join(dir, `${name}.sock`).length <= MAX_SOCKET_PATH) return { path: join(dir, `${name}.sock`), dir, lockPath: join(dir, `${name}.lock`) };
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const fallback = join(tmp, `accord-${uid}`);
  return { path: join(fallback, `daemon-${tag}.sock`), dir: fallback, lockPath: join(fallback, `daemon-${tag}.lock`) };
}

/**
 * The home and temp directories a process started with `env` would see
 * (os.homedir() and os.tmpdir() read them from its own environment): the
 * extension, connecting for a bridge it no longer starts, must find the
 * socket where that bridge, and the daemon it starts with `env`, would.
 */
export function homeAndTmpOf(env: NodeJS.ProcessEnv, platform = process.platform): { home: string; tmp: string } {
  if (platform === 'win32') return { home: env.USERPROFILE || homedir(), tmp: tmpdir() };
  const tmp = (env.TMPDIR || env.TMP || env.TEMP || '/tmp').replace(/(.)\/+$/, '$1');
  return { home: env.HOME || homedir(), tmp };
}

/** An explicit `--daemon`/`--listen` path: its directory holds the lock too. */
export function addressAt(path: string): DaemonAddress {
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) || '/' : '.';
  return { path, dir, lockPath: `${path}.lock` };
}

export class UnsafeSocketError extends Error {}

const currentUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/**
 * Why `stats` (lstat of the directory or the socket) may not be trusted, or
 * undefined. Another user's file, a symlink, or anything group/world
 * accessible could be a planted socket that would receive the person's
 * prompts and answer their approvals.
 */
export function unsafeReason(what: 'directory' | 'socket', path: string, stats: Pick<Stats, 'uid' | 'mode' | 'isSymbolicLink' | 'isDirectory' | 'isSocket'>, uid = currentUid()): string | undefined {
  if (stats.isSymbolicLink()) return `${path} is a symbolic link; the daemon's ${what} must be a real one.`;
  if (uid !== undefined && stats.uid !== uid) return `${path} belongs to user ${stats.uid}, not to you (${uid}); Accord will not talk to another user's daemon.`;
  if (what === 'directory' && !stats.isDirectory()) return `${path} is not a directory.`;
  if (what === 'socket' && !stats.isSocket()) return `${path} is not a socket.`;
  if ((stats.mode & 0o077) !== 0) return `${path} is reachable by other users (mode ${(stats.mode & 0o777).toString(8)}); it must be ${what === 'directory' ? '0700' : '0600'}.`;
  return undefined;
}

/** Throws UnsafeSocketError when the socket (if it exists) or its directory may not be trusted. Windows pipes are not checked here. */
export function checkSocketPath(address: DaemonAddress, uid = currentUid()): void {
  if (address.path.startsWith('\\\\')) return;
  const dirStats = lstatSync(address.dir, { throwIfNoEntry: false });
  if (dirStats) {
    const reason = unsafeReason('directory', address.dir, dirStats, uid);
    if (reason) throw new UnsafeSocketError(reason);
  }
  const socketStats = lstatSync(address.path, { throwIfNoEntry: false });
  if (socketStats) {
    const reason = unsafeReason('socket', address.path, socketStats, uid);
    if (reason) throw new UnsafeSocketError(reason);
  }
}

/** Creates the private directory (0700) if missing, then checks it. */
export function ensurePrivateDir(address: DaemonAddress): void {
  if (address.path.startsWith('\\\\')) {
    mkdirSync(address.dir, { recursive: true });
    return;
  }
  mkdirSync(address.dir, { recursive: true, mode: 0o700 });
  checkSocketPath(address);
}
