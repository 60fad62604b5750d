// The person's repository as the session copy reads it: found once with
// `git rev-parse`, then always named explicitly (git dir and work tree), with
// only the one setting we take from their global config.
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { git, type GitOptions } from './isolatedGit';

/** The person's repository: its top and git dir, named explicitly from then on. */
export interface PersonRepo {
  top: string;
  gitDir: string;
  /** Where its objects live: the git dir, or for a linked worktree the main repository's (`--git-common-dir`). */
  commonDir: string;
  /** The person's global excludes file, read from their config without running anything (global config is otherwise off). */
  config: string[];
}

/** The repository `source` is in (its top, real path, and git dir), or undefined. */
export async function repoAt(source: string): Promise<Omit<PersonRepo, 'config'> | undefined> {
  try {
    const [top, gitDir, commonDir] = (await git(['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'], { cwd: source })).split('\n');
    if (!top || !gitDir || !commonDir) return undefined;
    // --git-common-dir may be relative to the directory git ran in.
    return { top: await realpath(top), gitDir, commonDir: path.resolve(source, commonDir) };
  } catch {
    return undefined;
  }
}

/**
 * True when no folder above `source` (a real path) has a `.git` entry of any
 * kind. git's discovery from `source` can then find no work tree but
 * `source` itself, or none at all, and the copy's root is the same either
 * way (its `ws` folder): the root can be reported before git runs. That run
 * is a fork of the agent (~7 ms of its main thread in a cold process) which
 * would otherwise come before a new session's first model request. False
 * when anything is there or cannot be looked at: git decides.
 */
export async function nothingGitAbove(source: string): Promise<boolean> {
  if (path.dirname(source) === source) return false;
  const above: string[] = [];
  for (let dir = path.dirname(source); ; dir = path.dirname(dir)) {
    above.push(path.join(dir, '.git'));
    if (path.dirname(dir) === dir) break;
  }
  return (await Promise.all(above.map(isAbsent))).every(Boolean);
}

/** Never fails: the root reported before the copy must stay the clone's (personalExcludesFile swallows git's errors). */
export async function withExcludes(found: Omit<PersonRepo, 'config'>): Promise<PersonRepo> {
  const excludes = await personalExcludesFile().catch(() => undefined);
  return { ...found, config: excludes ? [`core.excludesFile=${excludes}`] : [] };
}

/**
 * Global config is never loaded (it could name programs), but what the person
 * ignores globally (`core.excludesFile`, often `.env` files) must stay out of
 * the copy: that one value is read from their config files.
 */
async function personalExcludesFile(): Promise<string | undefined> {
  const home = process.env.HOME;
  if (!home) return undefined;
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  let found: string | undefined;
  for (const file of [path.join(xdg, 'git', 'config'), path.join(home, '.gitconfig')]) {
    // A file that is not there has nothing to say: no git run for it. Anything
    // else (a link, even a dangling one, or an lstat error) is left to git to
    // read exactly as before.
    if (await isAbsent(file)) continue;
    const value = await git(['config', '--file', file, '--path', '--get', 'core.excludesFile'], { cwd: home }).catch(() => '');
    if (value) found = value;
  }
  return found;
}

/** True only when nothing at all is at `file` (lstat: a link counts as there, whatever it points to). */
async function isAbsent(file: string): Promise<boolean> {
  return lstat(file).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
}

export const inRepo = (repo: PersonRepo): GitOptions => ({ cwd: repo.top, gitDir: repo.gitDir, workTree: repo.top, config: repo.config });
