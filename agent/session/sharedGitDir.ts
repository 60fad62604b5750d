// Makes a git dir that borrows another repository's objects, as
// `git clone --bare --shared` would, from one `git init` plus files written
// here (alternates, packed-refs, shallow, and for the agent's own repository
// HEAD, index and info/exclude). A local clone costs three processes (git,
// a shell, git-upload-pack) and needed three more to undo what it set up
// (`core.bare`, `core.worktree`, the `origin` remote); every child a ~100 MB
// agent starts costs its event loop a fork while the first turn streams.
//
// Everything is written through writeNoFollow: exclusively created temp
// files renamed into place, with every folder on the way lstat'ed, so a link
// planted where a file goes is replaced, never written through, and a link
// among the folders is refused.
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { git, type GitOptions } from './isolatedGit';
import { writeNoFollow } from './safeFs';

export interface Ref {
  sha: string;
  /** Full name, e.g. `refs/heads/main`. */
  name: string;
}

const OBJECT_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The repository's branches and tags: what `git clone --bare` copies (refs/heads and refs/tags, names unchanged). */
export async function branchesAndTags(options: GitOptions): Promise<Ref[]> {
  const listed = await git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/tags'], options);
  const refs: Ref[] = [];
  for (const line of listed.split('\n')) {
    const space = line.indexOf(' ');
    const sha = line.slice(0, space);
    const name = line.slice(space + 1);
    // git's ref names hold no spaces, newlines or control characters; anything else is not copied.
    if (space > 0 && OBJECT_NAME.test(sha) && /^refs\/(heads|tags)\/[^\s\0-\x1f\x7f]+$/.test(name)) refs.push({ sha, name });
  }
  return refs;
}

/** A packed-refs file: one line per ref, sorted by name in byte order, the last of a repeated name kept. No traits are claimed, so git peels tags itself. */
export function packedRefs(refs: readonly Ref[]): string {
  const byName = new Map<string, string>();
  for (const ref of refs) byName.set(ref.name, ref.sha);
  return [...byName]
    .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map(([name, sha]) => `${sha} ${name}\n`)
    .join('');
}

/** `--object-format` for a repository whose commits are named like `sample` (sha1 is git's default, so older gits get no flag). */
export function objectFormatArgs(sample: string): string[] {
  return sample.length === 64 ? ['--object-format=sha256'] : [];
}

export interface GitDirFiles {
  /** The objects folder borrowed through `objects/info/alternates` (an absolute path). */
  objects: string;
  refs: readonly Ref[];
  /** The lender's `shallow` file, if it has one (its history stops there; clone copies it too). */
  shallow?: Buffer;
  /** HEAD's content, when init's default is not the branch wanted. */
  head?: string;
  index?: Buffer;
  exclude?: Buffer;
}

/**
 * Writes the files that make `root/gitDir` (a git dir `git init` just made)
 * borrow `files.objects` and hold `files.refs`. `gitDir` is relative to
 * `root`, the folder whose contents are checked on the way down.
 */
export async function fillGitDir(root: string, gitDir: string, files: GitDirFiles): Promise<void> {
  const write = (name: string, data: string | Buffer) => writeNoFollow(root, `${gitDir}/${name}`, typeof data === 'string' ? Buffer.from(data) : data);
  if (!path.isAbsolute(files.objects) || /[\n\0]/.test(files.objects)) throw new Error(`Cannot borrow objects from ${JSON.stringify(files.objects)}: not a plain absolute path.`);
  await write('objects/info/alternates', `${files.objects}\n`);
  await write('packed-refs', packedRefs(files.refs));
  if (files.shallow) await write('shallow', files.shallow);
  if (files.head !== undefined) await write('HEAD', files.head);
  if (files.index) await write('index', files.index);
  if (files.exclude) await write('info/exclude', files.exclude);
}

/** The file's content if it is a regular file (not followed if it is a link), else undefined. */
export async function readIfFile(file: string): Promise<Buffer | undefined> {
  const found = await lstat(file).catch(() => undefined);
  return found?.isFile() ? readFile(file) : undefined;
}
