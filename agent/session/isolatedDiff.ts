// What the agent changed: every change is a diff between the session's base
// commit and the work tree as it is now (committed by the agent or not).
// Paths are relative to the work tree top, with "/" separators.
import { copyFile, mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { IsolatedWorkspace } from './isolated';
import { git, gitRaw, splitZ } from './isolatedGit';

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

function gitOptions(workspace: IsolatedWorkspace, extra: Record<string, string> = {}) {
  return { cwd: workspace.workTree, env: { GIT_DIR: workspace.gitDir, GIT_WORK_TREE: workspace.workTree, ...extra } };
}

let indexCounter = 0;

/** A tree object of the work tree right now, built in a private index so the agent's own staging is untouched. */
export async function currentTree(workspace: IsolatedWorkspace): Promise<string> {
  const index = path.join(workspace.tmp, `.accord-index-${process.pid}-${++indexCounter}`);
  await mkdir(workspace.tmp, { recursive: true });
  // Seeding from the real index reuses its stat cache: unchanged files are not re-read.
  // The copy keeps the index's mtime: git treats entries as racily clean by
  // comparing them with it, so a same-size edit made within the second the
  // index was written is still noticed (a fresh mtime would hide it).
  const real = path.join(workspace.gitDir, 'index');
  await copyFile(real, index)
    .then(async () => {
      const { atime, mtime } = await stat(real);
      await utimes(index, atime, mtime);
    })
    .catch(() => undefined);
  try {
    const options = gitOptions(workspace, { GIT_INDEX_FILE: index });
    await git(['add', '-A', '--', '.'], options);
    return await git(['write-tree'], options);
  } finally {
    await rm(index, { force: true });
  }
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

/** The file's bytes in the base, or null when it did not exist there. */
export async function readBase(workspace: IsolatedWorkspace, file: string): Promise<Buffer | null> {
  const result = await gitRaw(['cat-file', 'blob', `${workspace.base}:${file}`], { ...gitOptions(workspace), okCodes: [128] });
  return result.code === 0 ? result.stdout : null;
}

/** The file's bytes in the work tree now, or null when it does not exist. */
export async function readCurrent(workspace: IsolatedWorkspace, file: string): Promise<Buffer | null> {
  return readFile(path.join(workspace.workTree, file)).catch(() => null);
}

/** A git patch (binary-safe, renames detected) of the current changes, limited to `files` when given. */
export async function patch(workspace: IsolatedWorkspace, files?: readonly string[]): Promise<string> {
  const tree = await currentTree(workspace);
  const args = ['diff-tree', '-p', '--binary', '-M', workspace.base, tree];
  if (files && files.length > 0) args.push('--', ...files);
  return (await gitRaw(args, gitOptions(workspace))).stdout.toString('utf8');
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
      const content = await readBase(workspace, original);
      if (content) {
        await mkdir(path.dirname(path.join(workspace.workTree, original)), { recursive: true });
        await writeFile(path.join(workspace.workTree, original), content);
      }
    }
    if (change.status === 'added' || change.status === 'renamed') await rm(path.join(workspace.workTree, change.path), { force: true });
  }
  return chosen.map((c) => c.path);
}
