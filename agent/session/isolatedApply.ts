// Accepting changes: writes chosen files (or chosen hunks of a file) from the
// session into the person's real tree with a 3-way merge against the base.
// When the person changed the same lines since the session began, nothing is
// written for that file and a conflict is reported instead; files in
// protected places (.git/, .accord/, .vscode/, shell rc files) are refused.
import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { applyPatch, structuredPatch } from 'diff';
import { protectedPathReason, resolveInside } from '../workspace/containment';
import type { IsolatedWorkspace } from './isolated';
import { listChanges, readBase, readCurrent, type ChangedFile } from './isolatedDiff';

export interface AcceptRequest {
  path: string;
  /** Indexes of the hunks to take (as numbered by `hunksOf`); all when omitted. */
  hunks?: number[];
}

export interface ApplyConflict {
  path: string;
  reason: string;
  /** For text conflicts: the merge with conflict markers, for the person to resolve. Never written. */
  merged?: string;
}

export interface ApplyResult {
  applied: string[];
  conflicts: ApplyConflict[];
}

const isBinary = (data: Buffer | null) => data !== null && data.subarray(0, 8000).includes(0);
const same = (a: Buffer | null, b: Buffer | null) => (a === null ? b === null : b !== null && a.equals(b));

/** The hunks between base and current text of a file, numbered from 0 — what `hunks` indexes refer to. */
export function hunksOf(baseText: string, currentText: string) {
  return structuredPatch('base', 'current', baseText, currentText, undefined, undefined, { context: 3 }).hunks;
}

function takeHunks(baseText: string, currentText: string, chosen: readonly number[]): string {
  const all = structuredPatch('base', 'current', baseText, currentText, undefined, undefined, { context: 3 });
  const result = applyPatch(baseText, { ...all, hunks: all.hunks.filter((_, i) => chosen.includes(i)) });
  if (result === false) throw new Error('the chosen hunks no longer apply to the base');
  return result;
}

/** `git merge-file`: 0 conflicts → the merged text; otherwise the text with markers and the count. */
async function mergeText(ours: Buffer, base: Buffer, theirs: Buffer, scratch: string): Promise<{ text: Buffer; conflicts: number }> {
  const files = ['yours', 'base', 'agent'].map((n) => path.join(scratch, n));
  await Promise.all([writeFile(files[0]!, ours), writeFile(files[1]!, base), writeFile(files[2]!, theirs)]);
  return new Promise((resolve, reject) => {
    execFile('git', ['merge-file', '-p', '-L', 'yours', '-L', 'base', '-L', 'agent', ...files], { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      if (code < 0 || code > 127) return reject(new Error(stderr.toString() || 'git merge-file failed'));
      resolve({ text: stdout, conflicts: code });
    });
  });
}

/** Writes through a temp file + rename so a crash never leaves half a file; keeps the existing mode. */
async function writeAtomically(target: string, data: Buffer, modeForNewFile: number | undefined): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  const mode = await stat(target).then((s) => s.mode, () => modeForNewFile);
  const temp = `${target}.accord-${process.pid}-${Date.now()}`;
  await writeFile(temp, data, mode === undefined ? undefined : { mode });
  await rename(temp, target);
}

type Outcome = { write?: Buffer; remove?: boolean } | { conflict: string; merged?: string };

async function decide(workspace: IsolatedWorkspace, change: ChangedFile, request: AcceptRequest, scratch: string): Promise<Outcome> {
  const link = await lstat(path.join(workspace.workTree, change.path)).then((s) => s.isSymbolicLink(), () => false);
  if (link) return { conflict: 'the agent made this a symbolic link; links are not applied automatically, recreate it by hand if you want it' };
  // The person's tree may hold symlinks too: the target must resolve inside it.
  await resolveInside(workspace.applyTo, change.path);
  if (change.oldPath) await resolveInside(workspace.applyTo, change.oldPath);
  const base = await readBase(workspace, change.oldPath ?? change.path);
  let theirs = change.status === 'deleted' ? null : await readCurrent(workspace, change.path);
  if (request.hunks && base && theirs && !isBinary(base) && !isBinary(theirs)) {
    theirs = Buffer.from(takeHunks(base.toString('utf8'), theirs.toString('utf8'), request.hunks), 'utf8');
  }
  const target = path.join(workspace.applyTo, change.path);
  const ours = await readFile(target).catch(() => null);
  if (change.status === 'renamed') {
    const oursOld = await readFile(path.join(workspace.applyTo, change.oldPath!)).catch(() => null);
    if (!same(oursOld, base)) return { conflict: `${change.oldPath} changed in your tree since the session began, so the rename was not applied` };
    if (ours !== null && !same(ours, theirs)) return { conflict: `${change.path} already exists in your tree with different content` };
    return { write: theirs ?? Buffer.alloc(0) };
  }
  if (same(ours, theirs)) return {};
  if (change.status === 'added') return ours === null ? { write: theirs! } : { conflict: 'the file also exists in your tree with different content' };
  if (change.status === 'deleted') return same(ours, base) ? { remove: true } : { conflict: 'you changed the file since the session began; it was not deleted' };
  if (ours === null) return { conflict: 'you deleted the file since the session began' };
  if (same(ours, base)) return { write: theirs! };
  if (isBinary(ours) || isBinary(base) || isBinary(theirs)) return { conflict: 'the file is binary and you changed it too' };
  const merged = await mergeText(ours, base!, theirs!, scratch);
  if (merged.conflicts === 0) return { write: merged.text };
  return { conflict: `you changed the same lines (${merged.conflicts} conflicting region${merged.conflicts === 1 ? '' : 's'})`, merged: merged.text.toString('utf8') };
}

/**
 * Applies the chosen files (all changed files when `requests` is omitted) to
 * `workspace.applyTo`. An in-place session has nothing to apply.
 */
export async function applyToProject(workspace: IsolatedWorkspace, requests?: readonly AcceptRequest[]): Promise<ApplyResult> {
  const changes = await listChanges(workspace);
  const wanted = requests ?? changes.map((c) => ({ path: c.path }));
  const result: ApplyResult = { applied: [], conflicts: [] };
  if (workspace.mode === 'in-place') return { applied: wanted.map((w) => w.path), conflicts: [] };
  const scratch = await mkdtemp(path.join(workspace.tmp, 'merge-'));
  try {
    for (const request of wanted) {
      const change = changes.find((c) => c.path === request.path);
      if (!change) {
        result.conflicts.push({ path: request.path, reason: 'the session has no change to this file' });
        continue;
      }
      const touched = [change.path, ...(change.oldPath ? [change.oldPath] : [])];
      const refusal = touched.map((p) => protectedPathReason(workspace.applyTo, path.join(workspace.applyTo, p))).find((r) => r);
      if (refusal) {
        result.conflicts.push({ path: change.path, reason: refusal });
        continue;
      }
      let outcome: Outcome;
      try {
        outcome = await decide(workspace, change, request, scratch);
      } catch (error) {
        result.conflicts.push({ path: change.path, reason: (error as Error).message });
        continue;
      }
      if ('conflict' in outcome) {
        result.conflicts.push({ path: change.path, reason: outcome.conflict, ...(outcome.merged !== undefined ? { merged: outcome.merged } : {}) });
        continue;
      }
      const target = path.join(workspace.applyTo, change.path);
      if (outcome.remove) await unlink(target).catch(() => undefined);
      if (outcome.write) {
        // A new file keeps the agent's permissions (an executable script stays executable), without setuid/setgid.
        const agentMode = await stat(path.join(workspace.workTree, change.path)).then((s) => s.mode & 0o777, () => undefined);
        await writeAtomically(target, outcome.write, agentMode);
      }
      if (change.status === 'renamed') await unlink(path.join(workspace.applyTo, change.oldPath!)).catch(() => undefined);
      result.applied.push(change.path);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return result;
}
