// The disk side of `fs/read_text_file` for any agent, Accord's or a third
// party's: what an agent names is hostile input to the extension host, which
// every extension shares. A path may name a FIFO (an open would wait forever),
// a device (/dev/zero never ends) or a file of many GB; and an answer past the
// ACP reader's 32 MiB line ends the agent's whole connection. Pure: no vscode import.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { jsonStringBytes } from '../../agent/core/jsonSize';
import { readAtMost } from '../../agent/session/safeFs';

/** The largest file read whole (a slice of it may still be asked for with line/limit). */
export const MAX_READ_BYTES = 64 * 1024 * 1024;
/** The largest text sent back, as JSON: under the 32 MiB line with room for the envelope. */
export const MAX_ANSWER_JSON_BYTES = 30 * 1024 * 1024;

export class UnreadableFileError extends Error {}

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** The file's text, or undefined when nothing is there. Never blocks on a FIFO, never reads past `maxBytes`. */
export async function readTextFileBounded(fsPath: string, maxBytes = MAX_READ_BYTES): Promise<string | undefined> {
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
    handle = await open(fsPath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UnreadableFileError(`${fsPath} is not a regular file; agents may read only files.`);
    if (stats.size > maxBytes) throw tooLarge(fsPath, stats.size, maxBytes);
    // The size can change under us (a file still being written): never more than one byte past the bound is read.
    const data = await readAtMost(handle, maxBytes);
    if (!data) throw tooLarge(fsPath, maxBytes + 1, maxBytes);
    return data.toString('utf8');
  } finally {
    await handle.close();
  }
}

function tooLarge(fsPath: string, size: number, maxBytes: number): UnreadableFileError {
  return new UnreadableFileError(`${fsPath} is too large to read (${size > maxBytes ? 'over ' : ''}${megabytes(size)}; at most ${megabytes(maxBytes)}).`);
}

/** Throws when `text` would not fit one ACP message; the agent can ask for fewer lines. */
export function checkAnswerFits(fsPath: string, text: string, maxJsonBytes = MAX_ANSWER_JSON_BYTES): void {
  const bytes = jsonStringBytes(text);
  if (bytes > maxJsonBytes) {
    throw new UnreadableFileError(`The text asked for from ${fsPath} is ${megabytes(bytes)} as JSON, past the ${megabytes(maxJsonBytes)} one message may carry; ask for fewer lines (line and limit).`);
  }
}
