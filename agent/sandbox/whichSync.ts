// sandbox-runtime's `whichSync`, answered in this process. The runtime's own
// (dist/utils/which.js) runs `spawnSync('which', [bin], { timeout: 1000 })`:
// for ripgrep at every dependency check and for the shell on every command it
// wraps, each a blocking fork of the whole agent, and on a busy machine the
// 1 s timeout reads as "not found" (ripgrep missing: the session runs
// unsandboxed; the shell missing: the command fails). esbuild.mjs
// (srtWhichInProcess, scripts/srtWhichPlugin.mjs) puts this module in that
// file's place in the bundle.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a lookup of `name` may find it, in order: the absolute PATH entries
 * joined with the name. Relative and empty entries are skipped: a program
 * found through them would depend on the agent's working directory. A name
 * with a slash is no PATH lookup: only an absolute one is a candidate, itself.
 */
export function pathCandidates(name: string, searchPath: string): string[] {
  if (name === '') return [];
  if (name.includes('/') || name.includes(path.sep)) return path.isAbsolute(name) ? [name] : [];
  return searchPath
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir))
    .map((dir) => path.join(dir, name));
}

/** A regular file (through symlinks, as `which` sees it) this process may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable regular file `name` names on PATH, or null (the contract of srt's whichSync). */
export function whichSync(name: string, searchPath = process.env.PATH ?? ''): string | null {
  return pathCandidates(name, searchPath).find(isExecutableFile) ?? null;
}
