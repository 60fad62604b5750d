// What a path is on disk and which files a folder holds, for the snapshots a
// direct-to-disk agent's review needs before the agent may write. Everything
// here is read with lstat: the agent may have planted symbolic links in the
// project, and following one would snapshot (and on reject, restore) a file
// outside it. Pure Node; no vscode import.
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';

export type PathKind = 'missing' | 'file' | 'directory' | 'symlink' | 'other';

/** Folders whose churn is never an agent's edit to review (also ignored by the file watcher). */
export const IGNORED_DIRS = new Set(['.git', 'node_modules']);

/** A folder snapshot stops here: beyond it, taking one would cost more than the review is worth. */
export const TREE_LIMITS = { files: 20_000, bytes: 64 * 1024 * 1024 };

export async function pathKind(path: string): Promise<PathKind> {
  try {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) return 'symlink';
    if (stats.isFile()) return 'file';
    if (stats.isDirectory()) return 'directory';
    return 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'missing';
    throw error;
  }
}

/** Why a path cannot have a snapshot, for the kinds that cannot; undefined when it can. */
export function unsnapshottable(kind: PathKind): string | undefined {
  if (kind === 'symlink') return 'it is a symbolic link, which Accord does not follow';
  if (kind === 'other') return 'it is not a regular file or folder';
  return undefined;
}

export interface TreeListing {
  /** Regular files under the folder (ignored folders and symbolic links left out). */
  files: string[];
  /** Set when the folder is over `TREE_LIMITS`; the listing is then incomplete. */
  tooBig?: string;
}

/** The regular files under `dir`, breadth first, within `TREE_LIMITS`. */
export async function listTree(dir: string, limits = TREE_LIMITS): Promise<TreeListing> {
  const files: string[] = [];
  let bytes = 0;
  const queue = [dir];
  while (queue.length > 0) {
    const current = queue.shift()!;
    const entries = await readdir(current, { withFileTypes: true });
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!IGNORED_DIRS.has(entry.name)) queue.push(path);
      } else if (entry.isFile()) {
        files.push(path);
        bytes += (await lstat(path)).size;
        if (files.length > limits.files) return { files, tooBig: `it holds more than ${limits.files} files` };
        if (bytes > limits.bytes) return { files, tooBig: `its files add up to more than ${Math.round(limits.bytes / 1024 / 1024)} MB` };
      }
    }
  }
  return { files };
}

/** Whether `path` lies inside folder `dir` (not the folder itself). */
export function isUnder(dir: string, path: string): boolean {
  const prefix = dir.endsWith(sep) ? dir : `${dir}${sep}`;
  return path.startsWith(prefix);
}

/**
 * Why writing `path` could land somewhere else than it says: the path, or a
 * folder between `root` (the project folder holding it) and it, is a symbolic
 * link — an agent can plant one to aim an accepted write outside the project.
 * Folders above `root` are the person's own layout and are not judged.
 * Undefined when the path is plain.
 */
export async function linkOnTheWay(path: string, root?: string): Promise<string | undefined> {
  const kind = await pathKind(path);
  if (kind === 'symlink') return 'it is a symbolic link, which Accord does not write through';
  if (kind === 'directory' || kind === 'other') return 'it is not a regular file';
  if (root === undefined || !isUnder(root, path)) return undefined;
  for (let dir = dirname(path); dir !== root && isUnder(root, dir); dir = dirname(dir)) {
    if ((await pathKind(dir)) === 'symlink') return `the folder ${dir} on its way is a symbolic link, which Accord does not write through`;
  }
  return undefined;
}
