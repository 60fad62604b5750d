// The per-session workspace. The agent works on a copy of the project; the
// person's tree changes only when they accept a diff (isolatedApply.ts).
//
// - git project: `git clone --shared` into the agent's data dir. The base
//   commit carries the person's uncommitted changes (`git stash create`) and
//   their untracked, non-ignored files, built in a temporary index so their
//   own index and tree are untouched; `refs/accord/sessions/<id>` pins it in
//   the source repository so gc cannot prune objects the clone borrows.
//   Ignored build inputs (node_modules, .venv, ...) are symlinked read-only.
// - other folders: a shadow copy (reflink where the filesystem can), capped in
//   size, with a private git repository recording the base.
// - in place (an explicit option): the agent works in the real tree; a
//   private git dir beside the session records snapshots before changes.
//
// Everything a sandboxed command can write (the work tree, the session tmp)
// is hostile input for the code here. So the git dir host-side code runs git
// on lives outside the work tree (`<session>/git`, which commands can read
// but never write), and host-side scratch files live in
// `<dataDir>/private/<id>`, a 0700 directory made exclusively that commands
// cannot even read. The work tree's own `.git` is the agent's: a clone of
// that git dir it may commit in, which host-side code never reads (git skips
// `.git` when it walks the work tree).
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { cp, lstat, mkdir, readdir, realpath, rm, symlink, appendFile } from 'node:fs/promises';
import path from 'node:path';
import { git, gitRaw, splitZ, type GitOptions } from './isolatedGit';
import { makePrivateDir } from './privateDir';
import { branchesAndTags, fillGitDir, objectFormatArgs, readIfFile, type Ref } from './sharedGitDir';
import { inRepo, nothingGitAbove, repoAt, withExcludes, type PersonRepo } from './personRepo';
import { isWithin } from '../workspace/containment';

export type WorkspaceMode = 'git-clone' | 'shadow-copy' | 'in-place';

export interface IsolatedWorkspace {
  sessionId: string;
  mode: WorkspaceMode;
  /** The person's project folder (real path). Accepted changes go here. */
  source: string;
  /** Top of the tree changes are tracked in: the clone, the copy, or `source` itself for in-place. */
  workTree: string;
  /** Where the agent works: `workTree`, or the matching subfolder when `source` is inside a repository. */
  root: string;
  /** The git dir host-side code tracks changes in: `<session>/git`, or `<session>/snapshots.git` in place. Never inside the work tree. */
  gitDir: string;
  /** The folder accepted changes are written to: the source repository's top, or `source`. */
  applyTo: string;
  /** Commit every diff is taken against. */
  base: string;
  /** Session temp dir (TMPDIR for commands). */
  tmp: string;
  /** Host-side scratch (private index, merge files): 0700, invisible to commands. */
  privateDir: string;
  /** Ignored build inputs symlinked read-only into the workspace, relative to `workTree`. */
  linkedReadOnly: string[];
}

export interface CreateWorkspaceOptions {
  sessionId: string;
  source: string;
  /** The agent's data directory; the session lives in `<dataDir>/sessions/<id>/`. */
  dataDir: string;
  inPlace?: boolean;
  /** Cap for shadow copies of non-git folders, in bytes. Default 512 MiB. */
  maxCopyBytes?: number;
  /** Ignored directory names exposed read-only. */
  buildInputs?: readonly string[];
}

export const DEFAULT_BUILD_INPUTS = ['node_modules', '.venv', 'venv', 'bower_components', '.yarn', '.pnpm-store'];
const DEFAULT_MAX_COPY_BYTES = 512 * 1024 * 1024;
/** Mount points sandbox-runtime may leave while a command runs; never part of a diff. */
const SANDBOX_ARTIFACTS = ['.bashrc', '.bash_profile', '.zshrc', '.zprofile', '.profile', '.gitconfig', '.gitmodules', '.ripgreprc', '.mcp.json', '.idea', '.claude'];

export class WorkspaceError extends Error {
  override name = 'WorkspaceError';
}

function sessionDir(options: CreateWorkspaceOptions): string {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(options.sessionId)) throw new WorkspaceError(`"${options.sessionId}" is not a usable session id (letters, digits, "-" and "_").`);
  return path.join(options.dataDir, 'sessions', options.sessionId);
}

/** Where a session's host-side scratch lives: never under `sessions/`, so no session's sandbox can see it. */
export function privateRoot(dataDir: string): string {
  return path.join(dataDir, 'private');
}

async function refuseUnmerged(repo: PersonRepo): Promise<void> {
  const unmerged = await git(['ls-files', '--unmerged'], inRepo(repo));
  if (unmerged) {
    throw new WorkspaceError(`${repo.top} has unresolved merge conflicts, so its current state cannot be copied. Resolve them (or abort the merge) and start the session again, or start it in place.`);
  }
}

/**
 * `<dataDir>/` relative to the repository's top (posix, with a trailing
 * slash) when ACCORD_HOME is inside the project: its untracked files (every
 * transcript, every other session's copy) must never become part of a base.
 */
async function dataDirInRepo(repo: PersonRepo, dataDir: string): Promise<string | undefined> {
  const data = await realpath(dataDir).catch(() => path.resolve(dataDir));
  const relative = path.relative(repo.top, data);
  if (relative === '') {
    throw new WorkspaceError(
      `${repo.top} is Accord's data directory, so its files cannot be told apart from Accord's sessions. Open a project folder instead, or point ACCORD_HOME elsewhere.`,
    );
  }
  if (!isWithin(repo.top, data)) return undefined;
  return relative.split(path.sep).join('/') + '/';
}

/** Commits the project's current state (HEAD + uncommitted + untracked, minus ignored) without touching its index or files. */
async function captureBase(repo: PersonRepo, indexFile: string, sessionId: string, dataDir: string): Promise<string> {
  const head = await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], inRepo(repo)).catch(() => '');
  // `stash create` refuses unmerged paths, so they are looked for only when it fails (or when there is no commit to stash on).
  const stash = head
    ? await git(['stash', 'create'], inRepo(repo)).catch(async (error: unknown) => {
        await refuseUnmerged(repo);
        throw error;
      })
    : '';
  if (!head) await refuseUnmerged(repo);
  const untracked = splitZ((await gitRaw(['ls-files', '-z', '--others', '--exclude-standard'], inRepo(repo))).stdout);
  const tracked = head ? [] : splitZ((await gitRaw(['ls-files', '-z', '--cached'], inRepo(repo))).stdout);
  const accordData = await dataDirInRepo(repo, dataDir);
  const files = [...tracked, ...untracked].filter((f) => !f.endsWith('/') && !(accordData && f.startsWith(accordData)));
  let tree: string;
  if (head && files.length === 0) {
    // Nothing to add to what git recorded: the stash's (or HEAD's) tree as it is, without a scratch index.
    tree = `${stash || head}^{tree}`;
  } else {
    const scratch = { ...inRepo(repo), indexFile };
    await git(['read-tree', ...(stash ? [`${stash}^{tree}`] : head ? [head] : ['--empty'])], scratch);
    if (files.length > 0) await gitRaw(['update-index', '--add', '-z', '--stdin'], { ...scratch, input: files.join('\0') + '\0' });
    tree = await git(['write-tree'], scratch);
  }
  const message = `Accord session ${sessionId}: base (HEAD + uncommitted + untracked)`;
  return git(['commit-tree', tree, ...(head ? ['-p', head] : []), '-m', message], inRepo(repo));
}

async function linkBuildInputs(repo: PersonRepo, workTree: string, names: readonly string[]): Promise<string[]> {
  const top = repo.top;
  const listed = splitZ((await gitRaw(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], inRepo(repo))).stdout);
  const linked: string[] = [];
  for (const entry of listed) {
    if (!entry.endsWith('/')) continue;
    const relative = entry.slice(0, -1);
    if (!names.includes(path.posix.basename(relative))) continue;
    const parent = path.join(workTree, path.dirname(relative));
    const exists = await lstat(parent).then((s) => s.isDirectory(), () => false);
    if (!exists) continue;
    await symlink(path.join(top, relative), path.join(workTree, relative), 'dir');
    linked.push(relative);
  }
  return linked;
}

/**
 * The agent's own repository in the work tree (`.git`): borrowing the
 * session git dir's objects, with its branches and tags, on the session
 * branch, with the checkout's index, so `git status`/`commit` in a command
 * behave as in any clone. Made before any command runs; from then on it is
 * the agent's, and nothing host-side reads it. One `git init`; the rest is
 * copied from the session git dir, which is ours (see sharedGitDir.ts).
 */
async function makeAgentGit(workTree: string, gitDir: string, refs: readonly Ref[], base: string): Promise<void> {
  const agentGit = path.join(workTree, '.git');
  await rm(agentGit, { recursive: true, force: true });
  await git(['init', '--quiet', '--template=', ...objectFormatArgs(base), workTree], { cwd: workTree });
  const own = (name: string) => readIfFile(path.join(gitDir, name));
  const head = (await own('HEAD'))?.toString('utf8');
  if (!head || !/^ref: refs\/heads\/[^\s]+\n?$/.test(head)) throw new WorkspaceError(`The session's git dir ${gitDir} has no branch checked out.`);
  const index = await own('index');
  const shallow = await own('shallow');
  const exclude = await own('info/exclude');
  await fillGitDir(workTree, '.git', { objects: path.join(gitDir, 'objects'), refs, head, ...(index ? { index } : {}), ...(shallow ? { shallow } : {}), ...(exclude ? { exclude } : {}) });
}

async function excludeFromChanges(gitDir: string, lines: readonly string[]): Promise<void> {
  await mkdir(path.join(gitDir, 'info'), { recursive: true });
  await appendFile(path.join(gitDir, 'info', 'exclude'), ['', '# Accord: read-only links and sandbox mount points', ...lines, ''].join('\n'));
}

async function createClone(options: CreateWorkspaceOptions, repo: PersonRepo, dir: string, tmp: string, privateDir: string): Promise<IsolatedWorkspace> {
  const base = await captureBase(repo, path.join(privateDir, 'base-index'), options.sessionId, options.dataDir);
  await git(['update-ref', '--no-deref', `refs/accord/sessions/${options.sessionId}`, base], inRepo(repo));
  const workTree = path.join(dir, 'ws');
  const gitDir = path.join(dir, 'git');
  // What `git clone --bare --shared` of the person's repository holds, made
  // without its children (sharedGitDir.ts): the person's branches and tags,
  // their objects borrowed through alternates (never hardlinks: a sandboxed
  // command could rewrite a hardlinked object and corrupt the person's repo),
  // no remote. `init` with an explicit work tree writes core.bare=false and
  // core.worktree: the git dir is never inside the copy.
  const refs = await branchesAndTags(inRepo(repo));
  await git(['init', '--quiet', '--template=', ...objectFormatArgs(base)], { cwd: dir, gitDir, workTree });
  const shallow = await readIfFile(path.join(repo.commonDir, 'shallow'));
  await fillGitDir(dir, 'git', { objects: path.join(repo.commonDir, 'objects'), refs, ...(shallow ? { shallow } : {}) });
  const inClone: GitOptions = { cwd: dir, gitDir };
  await mkdir(workTree);
  const branch = `accord/${options.sessionId}`;
  await git(['checkout', '--quiet', '-b', branch, base], { ...inClone, cwd: workTree, workTree });
  const linkedReadOnly = await linkBuildInputs(repo, workTree, options.buildInputs ?? DEFAULT_BUILD_INPUTS);
  await excludeFromChanges(gitDir, [...linkedReadOnly.map((p) => `/${p}`), ...SANDBOX_ARTIFACTS.map((p) => `/${p}`)]);
  await makeAgentGit(workTree, gitDir, [...refs, { sha: base, name: `refs/heads/${branch}` }], base);
  const root = path.join(workTree, path.relative(repo.top, options.source));
  return { sessionId: options.sessionId, mode: 'git-clone', source: options.source, workTree, root, gitDir, applyTo: repo.top, base, tmp, privateDir, linkedReadOnly };
}

async function folderSize(folder: string, cap: number): Promise<number> {
  let total = 0;
  const pending = [folder];
  while (pending.length > 0 && total <= cap) {
    const dir = pending.pop()!;
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) if (entry.isDirectory()) pending.push(path.join(dir, entry.name));
    const sizes = await Promise.all(entries.filter((e) => e.isFile()).map((e) => lstat(path.join(dir, e.name)).then((s) => s.size)));
    total += sizes.reduce((a, b) => a + b, 0);
  }
  return total;
}

/**
 * The system `cp` clones files where the filesystem can (btrfs/xfs reflinks,
 * APFS clonefile) and is several times faster than fs.cp on many small
 * files; fs.cp with COPYFILE_FICLONE is the portable fallback.
 */
async function copyTree(from: string, to: string): Promise<void> {
  const args = process.platform === 'linux' ? ['-a', '--reflink=auto', from, to] : process.platform === 'darwin' ? ['-c', '-R', '-p', from, to] : undefined;
  if (args) {
    const copied = await new Promise<boolean>((resolve) => execFile('cp', args, (error) => resolve(!error)));
    if (copied) return;
    await rm(to, { recursive: true, force: true });
  }
  await cp(from, to, { recursive: true, mode: constants.COPYFILE_FICLONE, verbatimSymlinks: true, preserveTimestamps: true });
}

async function commitEverything(gitDir: string, workTree: string, message: string): Promise<string> {
  const opts: GitOptions = { cwd: gitDir, gitDir, workTree };
  await git(['add', '-A', '--', '.'], opts);
  const tree = await git(['write-tree'], opts);
  return git(['commit-tree', tree, '-m', message], opts);
}

async function createShadow(options: CreateWorkspaceOptions, dir: string, tmp: string, privateDir: string): Promise<IsolatedWorkspace> {
  const cap = options.maxCopyBytes ?? DEFAULT_MAX_COPY_BYTES;
  const size = await folderSize(options.source, cap);
  if (size > cap) {
    const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
    throw new WorkspaceError(
      `${options.source} is larger than ${mb(cap)} (the limit for a private copy of a folder that is not a git repository). ` +
        'Make it a git repository (git init) so Accord can share its objects, start the session in place, or raise the limit.',
    );
  }
  const workTree = path.join(dir, 'ws');
  await copyTree(options.source, workTree);
  const gitDir = path.join(dir, 'git');
  // With an explicit work tree, init writes core.bare=false and core.worktree itself.
  await git(['init', '--quiet', '--template='], { cwd: dir, gitDir, workTree });
  // A copied `.git` (a broken repository the folder held) is not carried over.
  await rm(path.join(workTree, '.git'), { recursive: true, force: true });
  await excludeFromChanges(gitDir, SANDBOX_ARTIFACTS.map((p) => `/${p}`));
  const base = await commitEverything(gitDir, workTree, `Accord session ${options.sessionId}: base (copy of ${options.source})`);
  await git(['update-ref', 'HEAD', base], { cwd: dir, gitDir });
  const head = (await readIfFile(path.join(gitDir, 'HEAD')))?.toString('utf8').match(/^ref: (refs\/heads\/\S+)/)?.[1];
  if (!head) throw new WorkspaceError(`The copy's git dir ${gitDir} has no branch checked out.`);
  await makeAgentGit(workTree, gitDir, [{ sha: base, name: head }], base);
  return { sessionId: options.sessionId, mode: 'shadow-copy', source: options.source, workTree, root: workTree, gitDir, applyTo: options.source, base, tmp, privateDir, linkedReadOnly: [] };
}

async function createInPlace(options: CreateWorkspaceOptions, dir: string, tmp: string, privateDir: string): Promise<IsolatedWorkspace> {
  const gitDir = path.join(dir, 'snapshots.git');
  await git(['init', '--quiet', '--bare', '--template=', gitDir], { cwd: dir });
  const workspace: IsolatedWorkspace = { sessionId: options.sessionId, mode: 'in-place', source: options.source, workTree: options.source, root: options.source, gitDir, applyTo: options.source, base: '', tmp, privateDir, linkedReadOnly: [] };
  workspace.base = await snapshot(workspace, 'base');
  return workspace;
}

let snapshotCounter = 0;

/**
 * Records the current state of the work tree as a commit (for in-place
 * sessions: call before each change so every change has a "before").
 */
export async function snapshot(workspace: IsolatedWorkspace, label: string): Promise<string> {
  const sha = await commitEverything(workspace.gitDir, workspace.workTree, `Accord session ${workspace.sessionId}: ${label}`);
  await git(['update-ref', `refs/accord/snapshots/${Date.now()}-${++snapshotCounter}`, sha], { cwd: workspace.gitDir, gitDir: workspace.gitDir });
  return sha;
}

/** Creates the session's workspace. Throws WorkspaceError with a message for the person. */
/**
 * `onRoot` learns the workspace's root as soon as it is known, before the
 * copy is made (the first model request names it; nothing may run in it yet).
 */
export async function createWorkspace(options: CreateWorkspaceOptions, onRoot?: (root: string) => void | Promise<void>): Promise<IsolatedWorkspace> {
  const dir = sessionDir(options);
  const source = await realpath(options.source).catch(() => {
    throw new WorkspaceError(`The project folder ${options.source} does not exist.`);
  });
  const resolved = { ...options, source };
  await mkdir(dir, { recursive: true });
  const tmp = path.join(dir, 'tmp');
  await mkdir(tmp, { recursive: true });
  const realDir = await realpath(dir);
  const realTmp = await realpath(tmp);
  // The same roots createInPlace, createClone and createShadow return.
  const rootIn = (repo: { top: string } | undefined) => (options.inPlace ? source : path.join(realDir, 'ws', repo ? path.relative(repo.top, source) : ''));
  // With no repository possible above the project, its root is known without running git, which then runs after the plan (personRepo.ts).
  const gitLater = !options.inPlace && (await nothingGitAbove(source));
  let found = options.inPlace || gitLater ? undefined : await repoAt(source);
  const root = rootIn(found);
  await onRoot?.(root);
  if (gitLater) {
    found = await repoAt(source);
    if (rootIn(found) !== root) {
      // Only a repository git found some other way (a bare one above naming a work tree elsewhere): never work in a root the session was not told.
      await rm(dir, { recursive: true, force: true });
      throw new WorkspaceError(`The project folder ${source} is in a git work tree at ${found!.top}, which Accord did not expect; open that folder instead, or start the session in place.`);
    }
  }
  let privateDir: string;
  try {
    privateDir = await makePrivateDir(privateRoot(options.dataDir), options.sessionId);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw new WorkspaceError(`Cannot create the session's private folder: ${(error as Error).message}`);
  }
  try {
    if (options.inPlace) return await createInPlace(resolved, realDir, realTmp, privateDir);
    const repo = found ? await withExcludes(found) : undefined;
    if (repo) return await createClone(resolved, repo, realDir, realTmp, privateDir);
    if (realDir.startsWith(source + path.sep)) {
      throw new WorkspaceError(
        `${source} contains Accord's data directory (${options.dataDir}), so it cannot be copied into it. ` +
          'Open a project folder instead, start the session in place, or point ACCORD_HOME elsewhere.',
      );
    }
    return await createShadow(resolved, realDir, realTmp, privateDir);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    await rm(privateDir, { recursive: true, force: true });
    throw error;
  }
}

const modes: readonly WorkspaceMode[] = ['git-clone', 'shadow-copy', 'in-place'];

/** The recorded workspace (a `session_created` record's `workspace`), checked field by field. */
export function workspaceFromRecord(record: Record<string, unknown>): IsolatedWorkspace | undefined {
  const text = (key: string) => (typeof record[key] === 'string' ? (record[key] as string) : undefined);
  const mode = modes.find((m) => m === record.mode);
  const linked = Array.isArray(record.linkedReadOnly) && record.linkedReadOnly.every((p) => typeof p === 'string') ? (record.linkedReadOnly as string[]) : undefined;
  const [sessionId, source, workTree, root, gitDir, applyTo, base, tmp, recordedPrivate] = ['sessionId', 'source', 'workTree', 'root', 'gitDir', 'applyTo', 'base', 'tmp', 'privateDir'].map(text);
  if (!mode || !linked || !sessionId || !source || !workTree || !root || !gitDir || !applyTo || base === undefined || !tmp) return undefined;
  // Sessions recorded before the private folder existed: it sits at the same place beside `sessions/`.
  const privateDir = recordedPrivate ?? path.join(privateRoot(path.resolve(tmp, '..', '..', '..')), sessionId);
  return { sessionId, mode, source, workTree, root, gitDir, applyTo, base, tmp, privateDir, linkedReadOnly: linked };
}

/**
 * Deletes what an unfinished making of a session's copy left (the agent
 * stopped mid-way). `source`, the session's folder as its log names it, is
 * where the base may already be pinned: that ref goes too.
 */
export async function removeUnfinished(sessionId: string, dataDir: string, source?: string): Promise<void> {
  if (source !== undefined) await unpinBase(sessionId, source);
  const dir = sessionDir({ sessionId, dataDir, source: '' });
  await rm(dir, { recursive: true, force: true });
  await rm(path.join(privateRoot(dataDir), sessionId), { recursive: true, force: true });
}

// The ids a session log may have (agent/log/paths.ts): one ref name component, nothing git resolves specially.
const PINNABLE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Drops `refs/accord/sessions/<id>` in the repository `source` is in, and
 * only that ref: the id comes from a log, so it must be one plain name
 * component, and `--no-deref` deletes a symbolic ref planted there itself,
 * never the branch it points at. A ref that is not there is no error.
 */
async function unpinBase(sessionId: string, source: string): Promise<void> {
  if (!PINNABLE_ID.test(sessionId) || !path.isAbsolute(source)) return;
  // Dropping a ref reads no ignore rules: the person's excludes are not looked up for it.
  const repo = await repoAt(source);
  if (repo) await git(['update-ref', '--no-deref', '-d', `refs/accord/sessions/${sessionId}`], inRepo({ ...repo, config: [] })).catch(() => undefined);
}

/** Deletes the session's copy and unpins its base. The person's tree is not touched. */
export async function removeWorkspace(workspace: IsolatedWorkspace, dataDir: string): Promise<void> {
  if (workspace.mode === 'git-clone') await unpinBase(workspace.sessionId, workspace.applyTo);
  await rm(path.join(dataDir, 'sessions', workspace.sessionId), { recursive: true, force: true });
  await rm(path.join(privateRoot(dataDir), workspace.sessionId), { recursive: true, force: true });
}
