// Reading and writing whole text files for the editing tools. A write goes
// through exactly what was approved: it re-resolves the path, opens without
// following a final symlink, refuses hard-linked files, and compares the
// current content with the approved old text before touching a byte.
import { constants } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
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
 * Writes `newText` to `absolute` only if the file still holds `expectedOld`
 * (null: the file must still not exist). `absolute` is the approved path; it is
 * resolved again so a symlink swapped in since approval cannot redirect the write.
 */
export async function writeExactly(root: string, absolute: string, expectedOld: string | null, newText: string): Promise<void> {
  const name = shown(root, absolute);
  if ((await resolveWritable(root, absolute)) !== absolute) throw changedSinceApproval(name);
  if (expectedOld === null) {
    await mkdir(path.dirname(absolute), { recursive: true });
    // The parent chain was just created inside the root; check once more before creating the file.
    if ((await resolveWritable(root, absolute)) !== absolute) throw changedSinceApproval(name);
    let handle;
    try {
      handle = await open(absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw changedSinceApproval(name);
      throw error;
    }
    try {
      await handle.writeFile(newText, 'utf8');
    } finally {
      await handle.close();
    }
    return;
  }
  let handle;
  try {
    handle = await open(absolute, constants.O_RDWR | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') throw changedSinceApproval(name);
    throw error;
  }
  try {
    checkEditable(await handle.stat(), name);
    const current = decodeText(await handle.readFile(), name);
    if (current !== expectedOld) throw changedSinceApproval(name);
    await handle.truncate(0);
    await handle.write(newText, 0, 'utf8');
  } finally {
    await handle.close();
  }
}
