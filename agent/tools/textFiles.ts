// Reading and writing whole text files for the editing tools. A write goes
// through exactly what was approved: it re-resolves the path, opens without
// following a final symlink, refuses hard-linked files, and compares the
// current content with the approved old text before touching a byte.
import { constants } from 'node:fs';
import { mkdir, open, readlink, realpath, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { resolveWritable } from '../workspace/containment';
import { ToolInputError, shown } from './results';

/** Largest file the editing tools load whole. */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** True when the bytes look like a binary file (a NUL in the first 8 KiB, as git decides). */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

/** Decodes UTF-8 strictly; a BOM is kept so writing the text back loses nothing. */
export function decodeText(bytes: Uint8Array, shownPath: string): string {
  if (looksBinary(bytes)) throw new ToolInputError(`${shownPath} is a binary file (${bytes.length} bytes); this tool only handles text. Use run_command for binary files.`);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ToolInputError(`${shownPath} is not valid UTF-8 text; editing it here could corrupt it. Use run_command to change it.`);
  }
}

/**
 * The current text of an existing regular file, or null when nothing exists
 * there. Refuses directories, special files, hard-linked files (writing one
 * would change every linked copy, possibly outside the workspace), huge and
 * binary files.
 */
export async function readForEdit(root: string, absolute: string): Promise<string | null> {
  return readCurrent(root, absolute, false);
}

/**
 * Like readForEdit, but a hard-linked file is allowed: deleting or moving it
 * only removes or renames this name; the other links keep their content.
 */
export async function readForDelete(root: string, absolute: string): Promise<string | null> {
  return readCurrent(root, absolute, true);
}

async function readCurrent(root: string, absolute: string, allowHardLinks: boolean): Promise<string | null> {
  const name = shown(root, absolute);
  let info;
  try {
    info = await stat(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  checkEditable(info, name, allowHardLinks);
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return decodeText(await handle.readFile(), name);
  } finally {
    await handle.close();
  }
}

function checkEditable(info: { isFile(): boolean; isDirectory(): boolean; nlink: number; size: number }, name: string, allowHardLinks = false): void {
  if (info.isDirectory()) throw new ToolInputError(`${name} is a directory, not a file.`);
  if (!info.isFile()) throw new ToolInputError(`${name} is not a regular file.`);
  if (info.nlink > 1 && !allowHardLinks) {
    throw new ToolInputError(`${name} has ${info.nlink} hard links; changing it would also change the other linked copies, which may be outside the workspace. It cannot be changed by this tool.`);
  }
  if (info.size > MAX_EDIT_BYTES) {
    throw new ToolInputError(`${name} is ${info.size} bytes, over the ${MAX_EDIT_BYTES}-byte limit for editing. Use run_command for large files.`);
  }
}

/** Raised when the file on disk no longer matches what the person approved. */
export function changedSinceApproval(name: string): ToolInputError {
  return new ToolInputError(`${name} changed after this change was proposed, so nothing was written. Read the file again and redo the change.`);
}

/**
 * Whether an open handle is the file at `absolute` (a real path inside the
 * root). Checked after opening because an ancestor directory may have been
 * swapped for a symlink between resolving and opening; O_NOFOLLOW only guards
 * the last component. Linux names the opened file in /proc; elsewhere the
 * path must resolve to itself and to the same inode.
 */
async function opened(root: string, handle: FileHandle, absolute: string): Promise<{ ok: boolean; actual: string | null }> {
  if (process.platform === 'linux') {
    try {
      const actual = await readlink(`/proc/self/fd/${handle.fd}`);
      const expected = path.join(await realpath(root), path.relative(root, absolute));
      return { ok: actual === expected, actual };
    } catch {
      // no /proc: fall back to comparing identities
    }
  }
  if ((await resolveWritable(root, absolute).catch(() => null)) !== absolute) return { ok: false, actual: null };
  const [mine, named] = await Promise.all([handle.stat(), stat(absolute).catch(() => null)]);
  return { ok: named !== null && mine.ino === named.ino && mine.dev === named.dev, actual: null };
}

/**
 * Writes `newText` to `absolute` only if the file still holds `expectedOld`
 * (null: the file must still not exist). `absolute` is the approved path; it is
 * resolved again, and the opened file checked, so a symlink swapped in since
 * approval cannot redirect the write.
 */
export async function writeExactly(root: string, absolute: string, expectedOld: string | null, newText: string): Promise<void> {
  const name = shown(root, absolute);
  if ((await resolveWritable(root, absolute)) !== absolute) throw changedSinceApproval(name);
  if (expectedOld === null) await mkdir(path.dirname(absolute), { recursive: true });
  const handle = await openForWrite(absolute, expectedOld === null, name);
  try {
    const where = await opened(root, handle, absolute);
    if (!where.ok) {
      // We created an empty file somewhere else: take it back.
      if (expectedOld === null && where.actual) await unlink(where.actual).catch(() => undefined);
      throw changedSinceApproval(name);
    }
    if (expectedOld !== null) {
      checkEditable(await handle.stat(), name);
      const current = decodeText(await handle.readFile(), name);
      if (current !== expectedOld) throw changedSinceApproval(name);
      await handle.truncate(0);
    }
    await handle.write(newText, 0, 'utf8');
  } finally {
    await handle.close();
  }
}

async function openForWrite(absolute: string, create: boolean, name: string): Promise<FileHandle> {
  const flags = create ? constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW : constants.O_RDWR | constants.O_NOFOLLOW;
  try {
    return await open(absolute, flags, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOENT' || code === 'ELOOP') throw changedSinceApproval(name);
    throw error;
  }
}
