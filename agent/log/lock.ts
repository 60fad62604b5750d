// One writer per session log, across processes: an exclusive lock file next
// to the log holding the owner's pid. A lock whose owner is dead (kill -9,
// power loss) is stale and is taken over; a live owner gets a clear error.
import { randomBytes } from 'node:crypto';
import { linkSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, closeSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { LogLockedError } from './errors';

interface LockInfo {
  pid: number;
  host: string;
  /** Linux process start time (clock ticks since boot), to tell a reused pid from the owner. */
  procStart?: string;
  acquiredAt: string;
}

export interface HeldLock {
  readonly path: string;
  release(): void;
}

/** Locks held by this process: path → file content. Released on normal exit. */
const held = new Map<string, string>();
let exitHookInstalled = false;

export function acquireLock(lockPath: string): HeldLock {
  const content = JSON.stringify({
    pid: process.pid,
    host: hostname(),
    procStart: processStartTime(process.pid),
    acquiredAt: new Date().toISOString(),
  } satisfies LockInfo);
  // A few rounds: each stale lock removed may race with another process
  // taking it over first, after which its lock is live and we report it.
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(lockPath, content)) {
      held.set(lockPath, content);
      installExitHook();
      return { path: lockPath, release: () => release(lockPath, content) };
    }
    const existing = readLock(lockPath);
    if (existing === undefined) continue; // vanished between create and read
    if (isLive(existing.info, lockPath)) throw lockedError(lockPath, existing.info);
    breakStaleLock(lockPath, existing.raw);
  }
  const last = readLock(lockPath);
  throw lockedError(lockPath, last?.info ?? { pid: -1, host: 'unknown', acquiredAt: '' });
}

/** Creates the lock file with its content in one atomic step; false if it exists. */
function tryCreate(lockPath: string, content: string): boolean {
  const temp = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, content);
  try {
    // link() fails with EEXIST if the lock exists and never exposes a
    // half-written file, unlike open(O_EXCL) followed by write.
    linkSync(temp, lockPath);
    return true;
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV'].includes(code(error) ?? '')) throw error;
    return createExclusive(lockPath, content); // file systems without hard links
  } finally {
    unlinkSync(temp);
  }
}

function createExclusive(lockPath: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx');
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readLock(lockPath: string): { raw: string; info: LockInfo | undefined } | undefined {
  let raw: string;
  try {
    raw = readFileSync(lockPath, 'utf8');
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const info = JSON.parse(raw) as LockInfo;
    return { raw, info: Number.isInteger(info.pid) ? info : undefined };
  } catch {
    return { raw, info: undefined }; // not written by us (we create it whole): stale
  }
}

function isLive(info: LockInfo | undefined, lockPath: string): info is LockInfo {
  if (!info) return false;
  // Another machine (network home directory): its pids mean nothing here.
  if (info.host !== hostname()) return true;
  if (info.pid === process.pid) return held.has(lockPath);
  if (!pidAlive(info.pid)) return false;
  const start = processStartTime(info.pid);
  return !(info.procStart && start && start !== info.procStart);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return code(error) === 'EPERM'; // alive, owned by another user
  }
  // A killed process nobody has reaped yet (a daemon whose parent is gone, in a
  // container without an init) still answers signal 0, but holds nothing.
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

function processStartTime(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22; the command name (field 2) may contain spaces, so count from ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Moves the stale lock aside, then checks that what was moved is the stale
 * lock we judged; if another process replaced it in between, its lock is put
 * back and reported.
 */
function breakStaleLock(lockPath: string, staleRaw: string): void {
  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if (code(error) === 'ENOENT') return;
    throw error;
  }
  const moved = readFileSync(aside, 'utf8');
  if (moved !== staleRaw) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // someone locked in the meantime; theirs stands
    }
  }
  unlinkSync(aside);
}

function release(lockPath: string, content: string): void {
  if (held.get(lockPath) !== content) return;
  held.delete(lockPath);
  try {
    if (readFileSync(lockPath, 'utf8') === content) unlinkSync(lockPath);
  } catch {
    // already gone
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [path, content] of held) release(path, content);
  });
}

function lockedError(lockPath: string, info: LockInfo): LogLockedError {
  return new LogLockedError(lockPath.replace(/\.lock$/, ''), info.pid, info.host, info.pid === process.pid);
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
