// A reviewed change lands in the file itself, never through a symbolic link:
// a link in the person's tree may be one an agent working in place made (a
// "file" that points at ~/.bashrc, a folder that points outside the project),
// and Reject writes the old text back just as Accept writes the new. The
// agent-side apply this replaces refused links the same way.
import { lstat } from 'node:fs/promises';
import * as path from 'node:path';
import { isWithin } from '../../agent/workspace/containment';

export class LinkedPathError extends Error {}

/**
 * Refuses when `absolute`, or any folder between `top` and it, is a symbolic
 * link. Parts that do not exist yet are fine: they are created as plain
 * folders. A path outside `top` has only its own last component checked.
 */
export async function refuseLinks(top: string, absolute: string): Promise<void> {
  const relative = path.relative(top, absolute);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  let here = inside ? top : path.dirname(absolute);
  for (const part of inside ? relative.split(path.sep) : [path.basename(absolute)]) {
    here = path.join(here, part);
    let isLink: boolean;
    try {
      isLink = (await lstat(here)).isSymbolicLink();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw error;
    }
    if (isLink) {
      throw new LinkedPathError(
        here === absolute
          ? `${absolute} is a symbolic link; Accord never writes through links, so it is unchanged. Replace the link with a file if you want the change.`
          : `${absolute} is below ${here}, which is a symbolic link; Accord never writes through links, so it is unchanged.`,
      );
    }
  }
}

/**
 * Where the link check of a write to `file` starts: the workspace folder that
 * holds it. A bundled agent's paths are relative to the repository top, which
 * may be above the folder VS Code opened, so a file can be outside every
 * folder: then the check starts where the file and a folder meet (the
 * deepest such place below the filesystem root), so a folder link in the
 * repository between them is refused too. With no such place, the file
 * itself is checked.
 */
export function linkCheckTop(folders: readonly string[], file: string): string {
  const holding = folders.filter((folder) => isWithin(folder, file)).sort((a, b) => b.length - a.length)[0];
  if (holding !== undefined) return holding;
  let best: string | undefined;
  for (const folder of folders) {
    let shared = path.dirname(folder);
    while (!isWithin(shared, file) && path.dirname(shared) !== shared) shared = path.dirname(shared);
    const atRoot = path.dirname(shared) === shared;
    if (!atRoot && isWithin(shared, file) && (best === undefined || shared.length > best.length)) best = shared;
  }
  return best ?? file;
}
