// What `_accord/changes/file` answers for one changed file: both sides as
// text, read without following links and never past the review limit. The
// ACP adapter (acp/changesMethods.ts) only parses params and maps errors;
// every read of the copy happens here, in the session layer.
import type { IsolatedWorkspace } from './isolated';
import { listChanges, readBaseSafely, readCurrentSafely, type ChangedFile } from './isolatedDiff';
import { megabytes, tooLargeText, type SafeRead } from './safeFs';
import { jsonStringBytes } from '../core/jsonSize';

export interface FileSides {
  path: string;
  /** null: the file does not exist on that side, or has no text to show (binary, link, too large). */
  baseText: string | null;
  currentText: string | null;
  binary: boolean;
  /** Set when a side is past the review limit: "too large (N MB)". Neither side is sent. */
  tooLarge?: string;
  /** Set when the agent's side is a symbolic link: its target (never followed). */
  link?: string;
}

const text = (read: SafeRead) => (read.kind === 'file' ? read.data.toString('utf8') : null);

/**
 * What the two texts may take in the answer, as JSON. The answer is one
 * JSON-RPC line, and the ACP SDK's reader ends the whole connection (every
 * session on it) on a line over 32 MiB: two sides under the review limit can
 * pass it together, and a control character is 6 bytes as JSON, so a file of
 * them passes it alone. The rest of the 32 MiB is left for the envelope.
 */
export const ANSWER_TEXT_LIMIT_BYTES = 30 * 1024 * 1024;

export async function fileSides(workspace: IsolatedWorkspace, change: ChangedFile): Promise<FileSides> {
  const [base, current] = await Promise.all([
    change.status === 'added' ? ({ kind: 'missing' } as const) : readBaseSafely(workspace, change.oldPath ?? change.path),
    change.status === 'deleted' ? ({ kind: 'missing' } as const) : readCurrentSafely(workspace, change.path),
  ]);
  const path = change.path;
  const large = [base, current].flatMap((r) => (r.kind === 'tooLarge' ? [r.size] : []));
  if (large.length > 0) return { path, baseText: null, currentText: null, binary: true, tooLarge: tooLargeText(Math.max(...large)) };
  if (current.kind === 'link') return { path, baseText: null, currentText: null, binary: true, link: current.target };
  // Binary files have no text to show: both sides are null and `binary` says why.
  if (change.binary) return { path, baseText: null, currentText: null, binary: true };
  const [baseText, currentText] = [text(base), text(current)];
  const asJson = jsonStringBytes(baseText) + jsonStringBytes(currentText);
  if (asJson > ANSWER_TEXT_LIMIT_BYTES) return { path, baseText: null, currentText: null, binary: true, tooLarge: `too large (${megabytes(asJson)} as text)` };
  return { path, baseText, currentText, binary: false };
}

/** What the list's answer may take as JSON (one line, like the texts above). */
export const LIST_ANSWER_LIMIT_BYTES = 30 * 1024 * 1024;

/**
 * What `_accord/changes/list` answers. A list too long for one line (many
 * files, long paths) is an error that says so: an answer past the client's
 * line limit would end its connection, and a shortened list would hide changes.
 */
export async function changesAnswer(workspace: IsolatedWorkspace): Promise<{ changes: ChangedFile[] }> {
  const changes = await listChanges(workspace);
  const bytes = Buffer.byteLength(JSON.stringify(changes));
  if (bytes > LIST_ANSWER_LIMIT_BYTES) {
    throw new Error(
      `The session changed ${changes.length.toLocaleString('en-US')} files; their list (${megabytes(bytes)}) is too long to send for review. ` +
        'Nothing was lost: ask the agent to remove the files it does not need, or discard the session\'s changes.',
    );
  }
  return { changes };
}
