// What `_accord/changes/file` answers for one changed file: both sides as
// text, read without following links and never past the review limit. The
// ACP adapter (acp/changesMethods.ts) only parses params and maps errors;
// every read of the copy happens here, in the session layer.
import type { IsolatedWorkspace } from './isolated';
import { readBaseSafely, readCurrentSafely, type ChangedFile } from './isolatedDiff';
import { tooLargeText, type SafeRead } from './safeFs';

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
  return { path, baseText: text(base), currentText: text(current), binary: false };
}
