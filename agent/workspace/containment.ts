// Every path a tool touches goes through here: the requested path is resolved
// against the session root, symlinks are followed with realpath, and the
// result must lie inside the root by path component (never by string prefix:
// `/w/proj-evil` is not inside `/w/proj`). Protected paths are refused for
// writes whatever any rule says.
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** A path the agent may not use; the message tells the model what went wrong and what to do. */
export class PathError extends Error {
  override name = 'PathError';
}

const caseInsensitiveRoots = new Map<string, Promise<boolean>>();

/** Whether the filesystem holding `root` folds case (macOS and Windows defaults). */
export function isCaseInsensitive(root: string): Promise<boolean> {
  let known = caseInsensitiveRoots.get(root);
  if (!known) {
    known = probeCaseInsensitive(root);
    caseInsensitiveRoots.set(root, known);
  }
  return known;
}

async function probeCaseInsensitive(root: string): Promise<boolean> {
  const base = path.basename(root);
  const swapped = base === base.toUpperCase() ? base.toLowerCase() : base.toUpperCase();
  if (swapped === base) return process.platform === 'win32' || process.platform === 'darwin';
  try {
    const [a, b] = await Promise.all([stat(root), stat(path.join(path.dirname(root), swapped))]);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}

/** True when `candidate` is `root` or below it, comparing whole path components. */
export function isWithin(root: string, candidate: string, foldCase = false): boolean {
  const a = foldCase ? root.toLowerCase() : root;
  const b = foldCase ? candidate.toLowerCase() : candidate;
  const relative = path.relative(a, b);
  return relative === '' || (!relative.startsWith('..' + path.sep) && relative !== '..' && !path.isAbsolute(relative));
}

/** Refuses forms that must never reach the filesystem: NUL, URIs, `~`, and Windows device/UNC/drive paths elsewhere. */
function rejectForeignForms(requested: string): void {
  if (requested.length === 0) throw new PathError('The path is empty. Give a path relative to the workspace root.');
  if (requested.includes('\0')) throw new PathError('The path contains a NUL byte. Give a plain path inside the workspace.');
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(requested)) {
    throw new PathError(`"${requested}" is a URI. Give a plain path relative to the workspace root.`);
  }
  if (requested === '~' || requested.startsWith('~/') || requested.startsWith('~\\')) {
    throw new PathError(`"${requested}" is in the home directory, outside the workspace. Only files inside the workspace can be used.`);
  }
  // UNC and device paths are refused before any I/O: stat'ing `\\host\share` on
  // Windows would open a network connection to that host.
  if (/^[\\/]{2}/.test(requested) && (process.platform === 'win32' || requested.startsWith('\\'))) {
    throw new PathError(`"${requested}" is a network or device path. Only files inside the workspace can be used.`);
  }
  if (process.platform !== 'win32') {
    if (/^[a-z]:/i.test(requested)) {
      throw new PathError(`"${requested}" is a Windows drive path. Give a path relative to the workspace root.`);
    }
    if (requested.includes('\\')) {
      throw new PathError(`"${requested}" contains a backslash. Use "/" to separate directories.`);
    }
  }
}

/** The deepest existing ancestor of `absolute` (possibly itself) and the components below it. */
async function splitExisting(absolute: string): Promise<{ existing: string; rest: string[] }> {
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      await lstat(current);
      return { existing: current, rest };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
    }
    const parent = path.dirname(current);
    if (parent === current) return { existing: current, rest };
    rest.unshift(path.basename(current));
    current = parent;
  }
}

/**
 * Resolves `requested` (relative to `root`, or absolute) to an absolute path
 * inside `root`. Symlinks are followed — the file itself if it exists,
 * otherwise its deepest existing ancestor — and the real target must stay
 * inside the root's real path. The result is spelled under `root` as given
 * (which may itself be a symlink, e.g. macOS /var → /private/var), so paths
 * shown to the person match the workspace they opened. Throws PathError with
 * a message for the model.
 */
export async function resolveInside(root: string, requested: string): Promise<string> {
  rejectForeignForms(requested);
  const foldCase = await isCaseInsensitive(root);
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (error) {
    throw new PathError(`The workspace root ${root} is not accessible (${(error as Error).message}).`);
  }
  let lexical = path.resolve(root, requested);
  if (!isWithin(root, lexical, foldCase) && isWithin(realRoot, lexical, foldCase)) lexical = path.join(root, path.relative(realRoot, lexical));
  if (!isWithin(root, lexical, foldCase)) {
    throw new PathError(`"${requested}" resolves to ${lexical}, which is outside the workspace ${root}. Only files inside the workspace can be used.`);
  }
  let existing: string;
  let rest: string[];
  try {
    ({ existing, rest } = await splitExisting(lexical));
  } catch (error) {
    throw new PathError(`Cannot inspect "${requested}": ${(error as Error).message}`);
  }
  let real: string;
  try {
    real = await realpath(existing);
  } catch {
    // lstat saw it but realpath cannot follow it: a dangling or looping symlink.
    throw new PathError(`"${requested}" goes through a symlink (${existing}) whose target does not exist. Use the target path directly.`);
  }
  const resolved = path.join(real, ...rest);
  if (!isWithin(realRoot, resolved, foldCase)) {
    throw new PathError(`"${requested}" goes through a symlink to ${resolved}, which is outside the workspace ${root}. Only files inside the workspace can be used.`);
  }
  return path.join(root, path.relative(realRoot, resolved));
}

/** Directory names protected at any depth. `.git` covers hooks, config and submodule git dirs. */
const PROTECTED_DIRS = new Set(['.git', '.accord', '.vscode']);
/** Files that a shell, direnv or git executes or trusts on the person's behalf. */
const PROTECTED_FILES = new Set([
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile',
  '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout',
  '.cshrc', '.tcshrc', '.kshrc', '.mkshrc', '.inputrc', '.envrc', '.gitconfig',
]);

/**
 * Code points HFS+ leaves out when it compares names (the list git's
 * core.protectHFS uses): on such a disk `.g\u200Cit` is `.git`.
 */
const HFS_IGNORED = /[\u200C-\u200F\u202A-\u202E\u206A-\u206F\uFEFF]/g;

/**
 * Normalises one path component the way some filesystem might see it, so
 * `.GIT`, `.git.` (Windows drops trailing dots/spaces), `.git::$DATA` (NTFS
 * streams), NFD spellings, HFS+-ignored code points and 8.3 short names
 * (`GIT~1`) all compare equal.
 */
function canonicalComponent(component: string): string {
  let name = component.replace(HFS_IGNORED, '').normalize('NFC').toLowerCase();
  const stream = name.indexOf(':');
  if (stream > 0) name = name.slice(0, stream);
  name = name.replace(/[. ]+$/, '');
  const shortName = /^(git|vscode|accord)~\d+$/.exec(name);
  return shortName ? '.' + shortName[1] : name;
}

/**
 * Why the agent may never write `absolute`, or null when it may. Built in and
 * not configurable: no policy rule can make these writable. `absolute` is a
 * path inside `root` (as returned by resolveInside); the check is case-insensitive
 * everywhere, because refusing `.GIT/` on a case-sensitive disk costs nothing.
 */
export function protectedPathReason(root: string, absolute: string): string | null {
  const found = protectedPart(path.relative(root, absolute));
  if (!found) return null;
  if (found.kind === 'dir') {
    return `${absolute} is inside ${found.name}/, which the agent may never change (it holds ${found.holds}). Leave it unchanged and tell the person what change you would make.`;
  }
  return `${absolute} is a shell or tool startup file that runs code on the person's behalf; the agent may never change it. Tell the person what change you would make.`;
}

/**
 * The protected part of a relative path: a protected folder at any depth or
 * a startup file as its last component; null when none. Also used host-side:
 * the review never lands an agent's change to these places.
 */
export function protectedPart(relative: string): { kind: 'dir'; name: string; holds: string } | { kind: 'file'; name: string } | null {
  if (relative === '') return null;
  const components = relative.split(/[\\/]+/).map(canonicalComponent);
  for (const component of components) {
    if (PROTECTED_DIRS.has(component)) return { kind: 'dir', name: component, holds: describeProtected(component) };
  }
  const last = components[components.length - 1] ?? '';
  return PROTECTED_FILES.has(last) ? { kind: 'file', name: last } : null;
}

function describeProtected(component: string): string {
  if (component === '.git') return 'git history, config and hooks';
  if (component === '.accord') return "Accord's project policy";
  return "the editor's workspace settings and tasks";
}

/** resolveInside, then refuses protected paths. For every tool that creates, changes, moves or deletes. */
export async function resolveWritable(root: string, requested: string): Promise<string> {
  const lexicalReason = protectedPathReason(root, path.resolve(root, requested.includes('\0') ? '' : requested));
  const resolved = await resolveInside(root, requested);
  const reason = protectedPathReason(root, resolved) ?? lexicalReason;
  if (reason) throw new PathError(reason);
  return resolved;
}
