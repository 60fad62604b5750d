// Walks the workspace the way git sees it: .gitignore files at every level are
// honoured, .git is never entered, and symlinks are not followed (a link could
// lead outside the workspace). Used by list_files and search's JS fallback.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Files a walk looks at before giving up: a tree this big needs a narrower path. */
export const MAX_SCANNED_FILES = 100_000;

interface IgnoreScope {
  /** Directory of the .gitignore, relative to the root, posix separators ('' for the root). */
  dir: string;
  rules: Ignore;
}

const readOrEmpty = (file: string): Promise<string> => readFile(file, 'utf8').catch(() => '');

/** The directory's .gitignore; at the root also the repository's own .git/info/exclude. */
async function loadScope(root: string, dir: string): Promise<IgnoreScope | null> {
  const texts = [await readOrEmpty(path.join(root, dir, '.gitignore'))];
  if (dir === '') texts.unshift(await readOrEmpty(path.join(root, '.git', 'info', 'exclude')));
  const text = texts.join('\n');
  return text.trim() === '' ? null : { dir, rules: ignore().add(text) };
}

/** As git decides: the deepest .gitignore with a verdict wins, so `!keep.log` below can re-include what `*.log` above ignores. */
function isIgnored(scopes: IgnoreScope[], relative: string, isDir: boolean): boolean {
  for (let index = scopes.length - 1; index >= 0; index -= 1) {
    const scope = scopes[index]!;
    const local = scope.dir === '' ? relative : relative.slice(scope.dir.length + 1);
    const verdict = scope.rules.test(isDir ? `${local}/` : local);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/** The directory's .gitignore scopes from the root down to it, for a walk that starts below the root. */
async function scopesAbove(root: string, start: string): Promise<IgnoreScope[]> {
  const scopes: IgnoreScope[] = [];
  const parts = start === '' ? [] : start.split('/');
  for (let depth = 0; depth < parts.length; depth += 1) {
    const scope = await loadScope(root, parts.slice(0, depth).join('/'));
    if (scope) scopes.push(scope);
  }
  return scopes;
}

/**
 * Yields regular files under `start` (a directory inside `root`) as posix
 * paths relative to `root`, skipping ignored ones. Within a directory, files
 * come in name order before its subdirectories.
 */
export async function* walkFiles(root: string, start: string, signal: AbortSignal): AsyncGenerator<string> {
  const startRelative = path.relative(root, start).split(path.sep).join('/');
  if (startRelative !== '' && isIgnored(await scopesAbove(root, startRelative), startRelative, true)) return;
  const stack: { dir: string; scopes: IgnoreScope[] }[] = [{ dir: startRelative, scopes: await scopesAbove(root, startRelative) }];
  while (stack.length > 0) {
    signal.throwIfAborted();
    const { dir, scopes: inherited } = stack.pop()!;
    const own = await loadScope(root, dir);
    const scopes = own ? [...inherited, own] : inherited;
    let entries;
    try {
      entries = await readdir(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue; // unreadable or vanished directory: skip it, the walk goes on
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const entry of entries) {
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== '.git' && !isIgnored(scopes, relative, true)) subdirs.push(relative);
      } else if (entry.isFile() && !isIgnored(scopes, relative, false)) {
        yield relative;
      }
    }
    for (const sub of subdirs.reverse()) stack.push({ dir: sub, scopes });
  }
}
