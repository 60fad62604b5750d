// The agent's private folders for host-side scratch files (the index git
// builds the list of changes in, merge inputs). They live under
// `<dataDir>/private/`, which no sandboxed command can read or write, are
// 0700, and a session's folder is created exclusively: a folder (or link)
// that already exists under that name is never reused as if it were ours.
import { chmod, lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';

async function checkOwnDirectory(dir: string): Promise<void> {
  const stats = await lstat(dir);
  if (!stats.isDirectory()) throw new Error(`${dir} is not a directory (it may be a link); remove it and try again`);
  if (typeof process.getuid === 'function' && stats.uid !== process.getuid()) throw new Error(`${dir} belongs to another user; remove it and try again`);
  if ((stats.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

async function ensureRoot(root: string): Promise<void> {
  await mkdir(path.dirname(root), { recursive: true });
  await mkdir(root, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await checkOwnDirectory(root);
}

/** Creates `<root>/<name>` (0700) and fails if anything already has that name. */
export async function makePrivateDir(root: string, name: string): Promise<string> {
  await ensureRoot(root);
  const dir = path.join(root, name);
  await mkdir(dir, { mode: 0o700 });
  await checkOwnDirectory(dir);
  return dir;
}

/**
 * For a session loaded again: its private folder if it is still ours, or a
 * new one (sessions recorded before private folders existed have none).
 */
export async function reopenPrivateDir(dir: string): Promise<string> {
  await ensureRoot(path.dirname(dir));
  const exists = await lstat(dir).then(() => true, () => false);
  if (!exists) return makePrivateDir(path.dirname(dir), path.basename(dir));
  await checkOwnDirectory(dir);
  return dir;
}
