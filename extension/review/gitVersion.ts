// What the person's git holds for one file: the version a review can offer to
// put back when an agent did not show what the file held before it wrote.
// Read with the same pinned git as every host-side run (no system or global
// config, nothing git could start), the repository named explicitly once
// found, the path matched literally and exactly, and the blob's size checked
// before it is read. The raw blob is taken: no filter or textconv runs. An
// untracked file costs two git runs, a tracked one five.
import * as path from 'node:path';
import { gitRaw, splitZ, type GitOptions } from '../../agent/session/isolatedGit';

/** A bigger blob is not offered: a review of it would not be read anyway. */
export const GIT_VERSION_LIMIT = 8 * 1024 * 1024;

export type GitVersion =
  /** A regular file in the index: its raw bytes; `from` says whether that is also HEAD's version, for the person. */
  | { tracked: true; content: Uint8Array; from: 'HEAD' | 'index' }
  | { tracked: false }
  /** In git, but not as anything Accord puts back (a link, a submodule, too big, a merge in progress), or git failed. */
  | { tracked: 'unknown'; why: string };

const REGULAR = new Set(['100644', '100755']);
const RUN = { timeoutMs: 10_000, maxBuffer: 1024 * 1024 };

/** `file` as the repository around `folder` (a workspace folder holding it) tracks it. */
export async function gitVersionOf(file: string, folder: string): Promise<GitVersion> {
  const relative = path.relative(folder, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return { tracked: 'unknown', why: 'it is outside the project folder' };
  let repo: GitOptions;
  let inRepo: string;
  try {
    const [gitDir, top, prefix = ''] = (await gitRaw(['rev-parse', '--absolute-git-dir', '--show-toplevel', '--show-prefix'], { cwd: folder, ...RUN })).stdout.toString('utf8').split('\n');
    if (!gitDir || !top) return { tracked: false };
    repo = { cwd: top, gitDir, workTree: top, ...RUN };
    inRepo = (prefix + relative.split(path.sep).join('/')).replace(/^\/+/, '');
  } catch {
    return { tracked: false }; // no repository (or no git): nothing to put back from
  }
  if (inRepo === '.git' || inRepo.startsWith('.git/')) return { tracked: 'unknown', why: "it is inside git's own folder" };
  try {
    // The index is what `git restore` puts back; a file not in it (untracked, or its removal staged) has no version to offer.
    const entry = entryFor(splitZ((await gitRaw(['--literal-pathspecs', 'ls-files', '--stage', '-z', '--', inRepo], repo)).stdout), inRepo, /^(\d+) ([0-9a-f]+) (\d)\t/);
    if (!entry) return { tracked: false };
    if (entry.stage !== '0') return { tracked: 'unknown', why: 'git is in the middle of a merge of it' };
    if (!REGULAR.has(entry.mode)) return { tracked: 'unknown', why: 'git holds it as a link or submodule, not a file' };
    const head = await gitRaw(['--literal-pathspecs', 'ls-tree', '-z', 'HEAD', '--', inRepo], { ...repo, okCodes: [128] });
    const committed = head.code === 0 ? entryFor(splitZ(head.stdout), inRepo, /^(\d+) \w+ ([0-9a-f]+)\t/) : undefined;
    const size = Number((await gitRaw(['cat-file', '-s', entry.sha], repo)).stdout.toString('utf8').trim());
    if (!Number.isFinite(size) || size > GIT_VERSION_LIMIT) return { tracked: 'unknown', why: `its version in git is over ${GIT_VERSION_LIMIT / 1024 / 1024} MB` };
    const blob = (await gitRaw(['cat-file', 'blob', entry.sha], { ...repo, maxBuffer: GIT_VERSION_LIMIT + 1 })).stdout;
    return { tracked: true, content: new Uint8Array(blob), from: entry.sha === committed?.sha ? 'HEAD' : 'index' };
  } catch (error) {
    return { tracked: 'unknown', why: `git could not be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** The entry for exactly `inRepo` (a folder's pathspec also lists the files under it). */
function entryFor(entries: string[], inRepo: string, shape: RegExp): { mode: string; sha: string; stage: string } | undefined {
  for (const line of entries) {
    const tab = line.indexOf('\t');
    const match = shape.exec(line);
    if (match && line.slice(tab + 1) === inRepo) return { mode: match[1]!, sha: match[2]!, stage: match[3] ?? '0' };
  }
  return undefined;
}
