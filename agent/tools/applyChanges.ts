// Carrying out approved file changes exactly as the person saw them.
import { errorResult, failure, success } from './results';
import { writeExactly } from './textFiles';
import type { FileChange, ToolEffect, ToolResult, ToolUserContent } from './tool';

/** The card's diff for one change. */
export function diffContent(change: FileChange): ToolUserContent {
  return { type: 'diff', path: change.movedTo ?? change.path, oldText: change.oldText, newText: change.newText ?? '' };
}

/**
 * Writes each approved text change (not moves or deletes) exactly as approved.
 * Shared by edit_file and write_file.
 */
export async function applyFileChanges(
  root: string,
  approved: ToolEffect,
  signal: AbortSignal,
  summarize: (change: FileChange) => string,
): Promise<ToolResult> {
  if (approved.type === 'error') return failure(approved.message);
  if (approved.type !== 'files') return failure('This call was not approved as a file change, so nothing was written.');
  const done: string[] = [];
  try {
    for (const change of approved.changes) {
      signal.throwIfAborted();
      if (change.newText === null || change.movedTo !== undefined) return failure('This tool only writes file contents; nothing was written.');
      await writeExactly(root, change.path, change.oldText, change.newText);
      done.push(summarize(change));
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const result = errorResult(error);
    return done.length ? failure(`${done.join(' ')} Then: ${result.forModel}`) : result;
  }
  return success(done.join(' '), approved.changes.map(diffContent));
}
