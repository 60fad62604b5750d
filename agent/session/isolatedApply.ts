// Accepting changes: writes chosen files (or chosen hunks of a file) from the
// session into the person's real tree with a 3-way merge against the base.
// When the person changed the same lines since the session began, nothing is
// written for that file and a conflict is reported instead; files in
// protected places (.git/, .accord/, .vscode/, shell rc files) are refused.
//
// Neither tree is trusted to hold only files: a link or a special file on
// either side (or among the folders on the way) is refused, never followed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { applyPatch, structuredPatch } from 'diff';
import { protectedPathReason } from '../workspace/containment';
import type { IsolatedWorkspace } from './isolated';
import { gitRaw } from './isolatedGit';
import { listChanges, readBaseSafely, readCurrentSafely, type ChangedFile } from './isolatedDiff';
import { kindAt, readNoFollow, removeNoFollow, tooLargeText, writeNoFollow, type SafeRead } from './safeFs';

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
  await Promise.all([writeFile(files[0]!, ours, { flag: 'wx' }), writeFile(files[1]!, base, { flag: 'wx' }), writeFile(files[2]!, theirs, { flag: 'wx' })]);
  try {
    const conflictCodes = Array.from({ length: 127 }, (_, i) => i + 1);
    const result = await gitRaw(['merge-file', '-p', '-L', 'yours', '-L', 'base', '-L', 'agent', ...files], { cwd: scratch, okCodes: conflictCodes, maxBuffer: 256 * 1024 * 1024 });
    return { text: result.stdout, conflicts: result.code };
  } finally {
    await Promise.all(files.map((f) => rm(f, { force: true })));
  }
}

type Outcome = { write?: Buffer; mode?: number; remove?: boolean } | { conflict: string; merged?: string };

/** A side's content as merge input, or why it cannot be applied automatically. */
function contentOf(read: SafeRead, whose: 'agent' | 'yours'): Buffer | null | { refused: string } {
  if (read.kind === 'missing') return null;
  if (read.kind === 'file') return read.data;
  if (read.kind === 'tooLarge') return { refused: `the ${whose === 'agent' ? "agent's" : 'your'} file is ${tooLargeText(read.size)}; copy it by hand if you want it` };
  return { refused: whose === 'agent' ? 'the agent made this a symbolic link; links are not applied automatically, recreate it by hand if you want it' : 'this is a symbolic link in your tree; Accord never writes through links' };
}

/** Why `relative` in the person's tree cannot be written (a link, a special file, a link among its folders), or undefined. */
async function unwritable(root: string, relative: string): Promise<string | undefined> {
  const kind = await kindAt(root, relative);
  if (kind === 'through-link') return `${relative} is below a symbolic link in your tree; Accord never writes through links`;
  if (kind === 'link') return `${relative} is a symbolic link in your tree; Accord never writes through links`;
  if (kind === 'special') return `${relative} is not a regular file in your tree`;
  if (kind === 'folder') return `${relative} is a folder in your tree`;
  return undefined;
}

async function decide(workspace: IsolatedWorkspace, change: ChangedFile, request: AcceptRequest, scratch: string): Promise<Outcome> {
  for (const p of [change.path, ...(change.oldPath ? [change.oldPath] : [])]) {
    const reason = await unwritable(workspace.applyTo, p);
    if (reason) return { conflict: reason };
  }
  const baseRead = await readBaseSafely(workspace, change.oldPath ?? change.path);
  if (baseRead.kind === 'tooLarge') return { conflict: `the file is ${tooLargeText(baseRead.size)}; copy it by hand if you want it` };
  const base = baseRead.kind === 'file' ? baseRead.data : null;
  const agentRead = change.status === 'deleted' ? ({ kind: 'missing' } as const) : await readCurrentSafely(workspace, change.path);
  const agentSide = contentOf(agentRead, 'agent');
  if (agentSide !== null && !Buffer.isBuffer(agentSide)) return { conflict: agentSide.refused };
  let theirs = agentSide;
  if (request.hunks && base && theirs && !isBinary(base) && !isBinary(theirs)) {
    theirs = Buffer.from(takeHunks(base.toString('utf8'), theirs.toString('utf8'), request.hunks), 'utf8');
  }
  // A new file keeps the agent's permissions (an executable script stays executable), without setuid/setgid.
  const agentMode = agentRead.kind === 'file' ? agentRead.mode & 0o777 : 0o644;
  const oursRead = await readNoFollow(workspace.applyTo, change.path);
  const oursSide = contentOf(oursRead, 'yours');
  if (oursSide !== null && !Buffer.isBuffer(oursSide)) return { conflict: oursSide.refused };
  const ours = oursSide;
  const mode = oursRead.kind === 'file' ? oursRead.mode & 0o777 : agentMode;
  if (change.status === 'renamed') {
    const oldRead = await readNoFollow(workspace.applyTo, change.oldPath!);
    const oursOld = oldRead.kind === 'file' ? oldRead.data : null;
    if (!same(oursOld, base)) return { conflict: `${change.oldPath} changed in your tree since the session began, so the rename was not applied` };
    if (ours !== null && !same(ours, theirs)) return { conflict: `${change.path} already exists in your tree with different content` };
    return { write: theirs ?? Buffer.alloc(0), mode: agentMode };
  }
  if (same(ours, theirs)) return {};
  if (change.status === 'added') return ours === null ? { write: theirs!, mode } : { conflict: 'the file also exists in your tree with different content' };
  if (change.status === 'deleted') return same(ours, base) ? { remove: true } : { conflict: 'you changed the file since the session began; it was not deleted' };
  if (ours === null) return { conflict: 'you deleted the file since the session began' };
  if (same(ours, base)) return { write: theirs!, mode };
  if (isBinary(ours) || isBinary(base) || isBinary(theirs)) return { conflict: 'the file is binary and you changed it too' };
  const merged = await mergeText(ours, base!, theirs!, scratch);
  if (merged.conflicts === 0) return { write: merged.text, mode };
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
  // Merge inputs go in the private folder: the session tmp is the sandbox's to write.
  const scratch = await mkdtemp(path.join(workspace.privateDir, 'merge-'));
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
      try {
        if (outcome.remove) await removeNoFollow(workspace.applyTo, change.path);
        // Through a new file renamed over the target: a crash never leaves half a file, and a link is never written through.
        if (outcome.write) await writeNoFollow(workspace.applyTo, change.path, outcome.write, outcome.mode);
        if (change.status === 'renamed') await removeNoFollow(workspace.applyTo, change.oldPath!);
      } catch (error) {
        result.conflicts.push({ path: change.path, reason: (error as Error).message });
        continue;
      }
      result.applied.push(change.path);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return result;
}
