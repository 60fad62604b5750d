// What the agent changed: every change is a diff between the session's base
// commit and the work tree as it is now (committed by the agent or not).
// Paths are relative to the work tree top, with "/" separators.
import { constants } from 'node:fs';
import { copyFile, stat, symlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import type { IsolatedWorkspace } from './isolated';
import { git, gitRaw, splitZ, type GitOptions } from './isolatedGit';
import { fileSizeNoFollow, kindAt, readNoFollow, removeNoFollow, REVIEW_LIMIT_BYTES, writeNoFollow, type SafeRead } from './safeFs';

export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface ChangedFile {
  path: string;
  /** Set for renames: where the file was in the base. */
  oldPath?: string;
  status: ChangeStatus;
  /** Line counts; 0 for binary files. */
  additions: number;
  deletions: number;
  binary: boolean;
}

/**
 * git on the session's own git dir and work tree, never on anything found
 * inside the copy. With the private index, git runs at the work tree: a
 * command that rewrites the index (update-index, and write-tree when it
 * updates the cache tree) looks at the files relative to its working
 * directory to mark entries that are still racily clean (same second as the
 * index). Anywhere else it cannot, the rewritten index is newer than them, and
 * a same-size edit made in that second is then taken as unchanged (git
 * compares whole seconds).
 */
function gitOptions(workspace: IsolatedWorkspace, indexFile?: string): GitOptions {
  return { cwd: indexFile ? workspace.workTree : workspace.gitDir, gitDir: workspace.gitDir, workTree: workspace.workTree, ...(indexFile ? { indexFile } : {}) };
}

/** One index operation per workspace at a time: the private index is shared by list, patch and discard. */
const indexQueues = new Map<string, Promise<unknown>>();

function serialized<T>(workspace: IsolatedWorkspace, work: () => Promise<T>): Promise<T> {
  const previous = indexQueues.get(workspace.privateDir) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.then(() => undefined, () => undefined);
  indexQueues.set(workspace.privateDir, settled);
  void settled.then(() => {
    if (indexQueues.get(workspace.privateDir) === settled) indexQueues.delete(workspace.privateDir);
  });
  return next;
}

/**
 * A tree object of the work tree right now, built in the session's private
 * index (in its 0700 private folder, not the agent's staging area). The index
 * persists between calls so unchanged files are not re-read; the first one is
 * seeded from the git dir's index, keeping its mtime: git treats entries as
 * racily clean by comparing them with it, so a same-size edit made within the
 * second the index was written is still noticed.
 */
export function currentTree(workspace: IsolatedWorkspace): Promise<string> {
  return serialized(workspace, async () => {
    const index = path.join(workspace.privateDir, 'index');
    const seeded = await stat(index).then(() => true, () => false);
    if (!seeded) {
      const real = path.join(workspace.gitDir, 'index');
      await copyFile(real, index, constants.COPYFILE_EXCL)
        .then(async () => {
          const { atime, mtime } = await stat(real);
          await utimes(index, atime, mtime);
        })
        .catch(() => undefined);
    }
    const options = gitOptions(workspace, index);
    const { candidates, oversized } = await recordOversized(workspace, options);
    // Nothing changed since this index was last brought up to date (git's own stat and racy checks said so): nothing to add.
    if (candidates > 0) {
      // --ignore-errors: one entry git cannot add (a fifo where a file was, a
      // nested repository with no commit) must not hide every other change.
      const added = await gitRaw(['add', '-A', '--ignore-errors', ...pathspecs(oversized)], { ...options, okCodes: [1], ...pathspecInput(oversized) });
      if (added.code === 1) await dropUnaddable(workspace, options);
    }
    return git(['write-tree'], options);
  });
}

/**
 * Stands in for a file past the review limit: a NUL makes git count it
 * binary, and `_accord/changes/file` reports the file itself as too large.
 */
const OVERSIZED_PLACEHOLDER = '\0Accord: this file is past the review limit; it was not read.\n';

/**
 * Files the agent changed or made that are past the review limit get the
 * placeholder in the private index instead of their content: `git add` would
 * read and deflate every byte (a sparse terabyte takes it hours and writes its
 * blob to the host's git dir), and nothing past the limit is ever reviewed or
 * landed. Returns their paths, which `git add` is then told to leave alone,
 * and how many paths git saw changed at all (none: `git add` has nothing to do).
 * Candidates come from git's own stat-based view (modified, deleted, new and
 * not ignored), so unchanged files are not looked at.
 */
async function recordOversized(workspace: IsolatedWorkspace, options: GitOptions): Promise<{ candidates: number; oversized: string[] }> {
  const candidates = splitZ((await gitRaw(['ls-files', '-z', '--modified', '--others', '--exclude-standard', '--', '.'], options)).stdout);
  const oversized: string[] = [];
  for (const candidate of candidates) {
    // No link is followed, on the way either: what a link points to is never sized (git lists a file below one as deleted).
    const size = await fileSizeNoFollow(workspace.workTree, candidate);
    if (size !== undefined && size > REVIEW_LIMIT_BYTES) oversized.push(candidate);
  }
  if (oversized.length === 0) return { candidates: candidates.length, oversized };
  const placeholder = await git(['hash-object', '-w', '--stdin'], { ...options, input: OVERSIZED_PLACEHOLDER });
  const entries = oversized.map((file) => `100644 ${placeholder}\t${file}\0`).join('');
  await gitRaw(['update-index', '-z', '--add', '--replace', '--index-info'], { ...options, input: entries });
  return { candidates: candidates.length, oversized };
}

/** `git add`'s pathspecs: the whole tree, bar the oversized files (read from stdin, so no count of them can overflow argv). */
function pathspecs(oversized: readonly string[]): string[] {
  return oversized.length === 0 ? ['--', '.'] : ['--pathspec-from-file=-', '--pathspec-file-nul'];
}

function pathspecInput(oversized: readonly string[]): Pick<GitOptions, 'input'> {
  return oversized.length === 0 ? {} : { input: ['.', ...oversized.map((file) => `:(exclude,literal)${file}`)].join('\0') + '\0' };
}

/**
 * After a partial `git add`, entries whose path now holds something git
 * cannot record (fifo, socket, device) still carry their old content: they
 * are removed from the private index, so the change shows as a deletion.
 */
async function dropUnaddable(workspace: IsolatedWorkspace, options: GitOptions): Promise<void> {
  const entries = splitZ((await gitRaw(['ls-files', '-z', '--cached'], options)).stdout);
  const gone: string[] = [];
  for (const entry of entries) {
    if ((await kindAt(workspace.workTree, entry).catch(() => 'missing')) === 'special') gone.push(entry);
  }
  if (gone.length > 0) await gitRaw(['update-index', '-z', '--force-remove', '--stdin'], { ...options, input: gone.join('\0') + '\0' });
}

const statusByLetter: Record<string, ChangeStatus> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted', R: 'renamed' };

/** Every file that differs from the base, with status and line counts. */
export async function listChanges(workspace: IsolatedWorkspace): Promise<ChangedFile[]> {
  const tree = await currentTree(workspace);
  const options = gitOptions(workspace);
  const names = splitZ((await gitRaw(['diff-tree', '-r', '-z', '-M', '--name-status', workspace.base, tree], options)).stdout);
  const stats = splitZ((await gitRaw(['diff-tree', '-r', '-z', '-M', '--numstat', workspace.base, tree], options)).stdout);
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  for (let i = 0; i < stats.length; i++) {
    const [added = '0', deleted = '0', single = ''] = stats[i]!.split('\t');
    // With -z a rename's numstat is "a\td\t" followed by old and new path as separate fields.
    const file = single !== '' ? single : ((i += 2), stats[i]!);
    counts.set(file, { additions: Number(added) || 0, deletions: Number(deleted) || 0, binary: added === '-' });
  }
  const changes: ChangedFile[] = [];
  for (let i = 0; i < names.length; i++) {
    const letter = names[i]![0]!;
    const status = statusByLetter[letter] ?? 'modified';
    if (status === 'renamed') {
      const oldPath = names[++i]!;
      const file = names[++i]!;
      changes.push({ path: file, oldPath, status, ...(counts.get(file) ?? { additions: 0, deletions: 0, binary: false }) });
    } else {
      const file = names[++i]!;
      changes.push({ path: file, status, ...(counts.get(file) ?? { additions: 0, deletions: 0, binary: false }) });
    }
  }
  return changes;
}

/** Size of a blob in the base, or undefined when the path did not exist there. */
async function baseSize(workspace: IsolatedWorkspace, file: string): Promise<number | undefined> {
  const result = await gitRaw(['cat-file', '-s', `${workspace.base}:${file}`], { ...gitOptions(workspace), okCodes: [128] });
  return result.code === 0 ? Number(result.stdout.toString().trim()) : undefined;
}

/** The file in the base: its bytes, `tooLarge` past the review limit (never read), or missing. */
export async function readBaseSafely(workspace: IsolatedWorkspace, file: string, limit = REVIEW_LIMIT_BYTES): Promise<SafeRead> {
  const size = await baseSize(workspace, file);
  if (size === undefined) return { kind: 'missing' };
  if (size > limit) return { kind: 'tooLarge', size };
  const result = await gitRaw(['cat-file', 'blob', `${workspace.base}:${file}`], { ...gitOptions(workspace), okCodes: [128], maxBuffer: limit + 1 });
  return result.code === 0 ? { kind: 'file', data: result.stdout, mode: 0o644 } : { kind: 'missing' };
}

/** The file's bytes in the base, or null when it did not exist there (or is past the review limit). */
export async function readBase(workspace: IsolatedWorkspace, file: string): Promise<Buffer | null> {
  const read = await readBaseSafely(workspace, file);
  return read.kind === 'file' ? read.data : null;
}

/** The file in the work tree now, without following links, bounded. */
export function readCurrentSafely(workspace: IsolatedWorkspace, file: string, limit = REVIEW_LIMIT_BYTES): Promise<SafeRead> {
  return readNoFollow(workspace.workTree, file, limit);
}

/** The file's bytes in the work tree now, or null when it does not exist as a regular file within the review limit. */
export async function readCurrent(workspace: IsolatedWorkspace, file: string): Promise<Buffer | null> {
  const read = await readCurrentSafely(workspace, file);
  return read.kind === 'file' ? read.data : null;
}

/**
 * Puts files back to their base content in the session's work tree (all
 * changed files when `files` is omitted). For an in-place session this is
 * the person's tree: the agent's changes to those files are undone.
 */
export async function discard(workspace: IsolatedWorkspace, files?: readonly string[]): Promise<string[]> {
  const changes = await listChanges(workspace);
  const chosen = files ? changes.filter((c) => files.includes(c.path)) : changes;
  for (const change of chosen) {
    if (change.status !== 'added') {
      const original = change.oldPath ?? change.path;
      await restoreFromBase(workspace, original);
    }
    if (change.status === 'added' || change.status === 'renamed') await removeNoFollow(workspace.workTree, change.path);
  }
  return chosen.map((c) => c.path);
}

/** Writes a path's base version (file or link, with its mode) back into the work tree, never through a link. */
async function restoreFromBase(workspace: IsolatedWorkspace, file: string): Promise<void> {
  const entry = (await git(['ls-tree', '-z', workspace.base, '--', file], gitOptions(workspace))).replace(/\0$/, '');
  const match = /^(\d+) blob (\S+)\t/.exec(entry);
  if (!match) return;
  const [, mode, sha] = match;
  const content = (await gitRaw(['cat-file', 'blob', sha!], gitOptions(workspace))).stdout;
  if (mode === '120000') {
    // The base had a link here: put the link itself back (symlink() never follows its target).
    await writeNoFollow(workspace.workTree, file, Buffer.alloc(0), 0o644, { replaceParents: true });
    await removeNoFollow(workspace.workTree, file);
    await symlink(content.toString(), path.join(workspace.workTree, file));
    return;
  }
  // The base had folders on this path: links or files the agent put in their place go (never what they point to).
  await writeNoFollow(workspace.workTree, file, content, mode === '100755' ? 0o755 : 0o644, { replaceParents: true });
}
