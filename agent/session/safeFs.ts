// File access on trees a sandboxed process can change (the session's copy,
// and in place the person's own tree): no symlink is followed in any
// component, fifos/sockets/devices are refused, and reads are bounded.
//
// Node has no openat(), so each directory component is lstat'ed before the
// open and again after it, and the opened file's device and inode must match
// what lstat saw: a component swapped for a link in between is caught.
// Used by the agent's `_accord/changes/*` methods and by the extension's own
// reads of the agent's copy.
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readlink, rename, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

/** Files bigger than this are reviewed as "too large (N MB)" and never read whole. */
export const REVIEW_LIMIT_BYTES = 16 * 1024 * 1024;

export class UnsafePathError extends Error {
  override name = 'UnsafePathError';
}

export type SafeRead =
  | { kind: 'missing' }
  | { kind: 'file'; data: Buffer; mode: number }
  | { kind: 'link'; target: string }
  | { kind: 'tooLarge'; size: number };

export const megabytes = (bytes: number) => `${Math.max(1, Math.round(bytes / (1024 * 1024)))} MB`;
export const tooLargeText = (bytes: number) => `too large (${megabytes(bytes)})`;

/** `relative` split into components; refuses anything that is not a plain relative path. */
export function components(relative: string): string[] {
  const parts = relative.split('/');
  if (relative === '' || relative.includes('\0') || path.isAbsolute(relative) || relative.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new UnsafePathError(`"${relative}" is not a plain relative path`);
  }
  return parts;
}

const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

/**
 * lstat of each directory between `root` and the last component: all must be
 * real directories. Returns null when one does not exist.
 */
async function parentStats(root: string, parts: readonly string[], relative: string): Promise<Stats[] | null> {
  const stats: Stats[] = [];
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = path.join(dir, part);
    let s: Stats;
    try {
      s = await lstat(dir);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    if (s.isSymbolicLink()) throw new UnsafePathError(`${relative} goes through ${path.relative(root, dir)}, which is a symbolic link; links are never followed`);
    if (!s.isDirectory()) return null;
    stats.push(s);
  }
  return stats;
}

async function sameParents(root: string, parts: readonly string[], before: readonly Stats[], relative: string): Promise<void> {
  const now = await parentStats(root, parts, relative).catch(() => null);
  const same = now !== null && now.length === before.length && now.every((s, i) => s.dev === before[i]!.dev && s.ino === before[i]!.ino);
  if (!same) throw new UnsafePathError(`${relative}: a folder on its path changed while it was being read; try again`);
}

function special(s: Stats): string | undefined {
  if (s.isFIFO()) return 'a named pipe';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  return undefined;
}

/** What `handle` holds from its position on, or undefined once it passes `limit` bytes (never reads more than limit + 1). */
export async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buffer = Buffer.alloc(Math.min(1024 * 1024, limit + 1 - total));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > limit) return undefined;
  }
}

/**
 * Reads `root/relative` without following a link anywhere on the way. A link
 * is reported with its target (as git records it), never read through; a
 * file over `limit` is reported by size, never read.
 */
export async function readNoFollow(root: string, relative: string, limit = REVIEW_LIMIT_BYTES): Promise<SafeRead> {
  const parts = components(relative);
  const parents = await parentStats(root, parts, relative);
  if (!parents) return { kind: 'missing' };
  const full = path.join(root, ...parts);
  let seen: Stats;
  try {
    seen = await lstat(full);
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing' };
    throw error;
  }
  if (seen.isSymbolicLink()) {
    const target = await readlink(full);
    await sameParents(root, parts, parents, relative);
    return { kind: 'link', target };
  }
  const what = special(seen);
  if (what) throw new UnsafePathError(`${relative} is ${what}, not a file; it is not read`);
  if (seen.isDirectory()) return { kind: 'missing' };
  if (seen.size > limit) return { kind: 'tooLarge', size: seen.size };
  // O_NONBLOCK: a fifo swapped in after the lstat must not hang the open.
  const handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP') throw new UnsafePathError(`${relative} became a symbolic link while it was being read; links are never followed`);
    throw error;
  });
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.dev !== seen.dev || opened.ino !== seen.ino) throw new UnsafePathError(`${relative} changed while it was being read; try again`);
    await sameParents(root, parts, parents, relative);
    if (opened.size > limit) return { kind: 'tooLarge', size: opened.size };
    const data = await readAtMost(handle, limit);
    if (!data) return { kind: 'tooLarge', size: Math.max(opened.size, limit + 1) };
    return { kind: 'file', data, mode: opened.mode };
  } finally {
    await handle.close();
  }
}

/**
 * Makes the folders of `relative` under `root` one by one. A link (or file)
 * where a folder belongs is refused, or with `replace` removed (the link
 * itself, never its target) and replaced by a folder.
 */
async function makeParents(root: string, parts: readonly string[], relative: string, replace: boolean): Promise<Stats[]> {
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = path.join(dir, part);
    const existing = await lstat(dir).catch(() => undefined);
    if (existing?.isDirectory()) continue;
    if (existing && !replace) {
      // Refused here, before a folder below it is made: mkdir would follow a link and make it where the link points.
      if (existing.isSymbolicLink()) throw new UnsafePathError(`${relative} goes through ${path.relative(root, dir)}, which is a symbolic link; links are never followed`);
      break; // a file: reported below
    }
    if (existing) await unlink(dir);
    await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
  const stats = await parentStats(root, parts, relative);
  if (!stats) throw new UnsafePathError(`${relative}: a part of its path is a file, not a folder`);
  return stats;
}

/**
 * Writes `data` to `root/relative` through a new file beside it (created
 * exclusively, never through a link) renamed over the target: a link at the
 * target is replaced, not written through; a link among the folders is refused.
 */
export async function writeNoFollow(root: string, relative: string, data: Buffer, mode = 0o644, options: { replaceParents?: boolean } = {}): Promise<void> {
  const parts = components(relative);
  const parents = await makeParents(root, parts, relative, options.replaceParents ?? false);
  const full = path.join(root, ...parts);
  const existing = await lstat(full).catch(() => undefined);
  if (existing?.isDirectory()) throw new UnsafePathError(`${relative} is a folder now; it was not overwritten`);
  const temp = path.join(path.dirname(full), `.accord-${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode & 0o777);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode & 0o777);
  } finally {
    await handle.close();
  }
  try {
    await sameParents(root, parts, parents, relative);
    await rename(temp, full);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Removes `root/relative` (a file or a link itself, never what a link points to). Missing is fine. */
export async function removeNoFollow(root: string, relative: string): Promise<void> {
  const parts = components(relative);
  const parents = await parentStats(root, parts, relative);
  if (!parents) return;
  const full = path.join(root, ...parts);
  const existing = await lstat(full).catch(() => undefined);
  if (!existing) return;
  if (existing.isDirectory()) throw new UnsafePathError(`${relative} is a folder now; it was not removed`);
  await sameParents(root, parts, parents, relative);
  await unlink(full).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/**
 * The size of `root/relative` when it is a regular file reached through real
 * folders only; undefined for anything else (a link anywhere on the way, a
 * folder, a fifo, a path that is not plain, nothing there).
 */
export async function fileSizeNoFollow(root: string, relative: string): Promise<number | undefined> {
  let parts: string[];
  try {
    parts = components(relative);
  } catch {
    return undefined;
  }
  const parents = await parentStats(root, parts, relative).catch(() => null);
  if (!parents) return undefined;
  const s = await lstat(path.join(root, ...parts)).catch(() => undefined);
  return s?.isFile() ? s.size : undefined;
}

/** What is at `root/relative` without following links: for refusing to write where a link or special file sits. */
export async function kindAt(root: string, relative: string): Promise<'missing' | 'file' | 'link' | 'folder' | 'special' | 'through-link'> {
  const parts = components(relative);
  let parents: Stats[] | null;
  try {
    parents = await parentStats(root, parts, relative);
  } catch (error) {
    if (error instanceof UnsafePathError) return 'through-link';
    throw error;
  }
  if (!parents) return 'missing';
  const s = await lstat(path.join(root, ...parts)).catch(() => undefined);
  if (!s) return 'missing';
  if (s.isSymbolicLink()) return 'link';
  if (s.isDirectory()) return 'folder';
  return special(s) ? 'special' : 'file';
}
