// Where a program is on PATH, found in this process (what `which` answers).
// sandbox-runtime looks bubblewrap and socat up with `which` through
// spawnSync, which blocks the event loop and forks the whole agent, at each
// dependency check (detection, then again in initialize); it takes their
// paths instead when given (`bwrapPath`, `socatPath`), so the agent finds
// them here, once per process once found.
// The candidates are whichSync's (agent/sandbox/whichSync.ts), which answers
// the same question for the runtime's own lookups.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathCandidates } from './whichSync';

/**
 * The first executable regular file named `name` in PATH's folders, or
 * undefined. Relative and empty PATH entries are skipped: a program found
 * through them would depend on the agent's working directory.
 */
export async function findOnPath(name: string, searchPath = process.env.PATH ?? ''): Promise<string | undefined> {
  if (name.includes('/') || name.includes(path.sep)) return undefined;
  for (const candidate of pathCandidates(name, searchPath)) {
    const found = await stat(candidate).then((s) => s.isFile(), () => false);
    if (found && (await access(candidate, constants.X_OK).then(() => true, () => false))) return candidate;
  }
  return undefined;
}

/** Lookups whose found answer is kept for the process; a missing program is looked up again next time (it may be installed meanwhile). */
export class ProgramPaths {
  private readonly found = new Map<string, string>();

  constructor(private readonly find: (name: string) => Promise<string | undefined> = (name) => findOnPath(name)) {}

  async get(name: string): Promise<string | undefined> {
    const known = this.found.get(name);
    if (known) return known;
    const located = await this.find(name);
    if (located) this.found.set(name, located);
    return located;
  }

  /** The paths found so far, as srt's config names them. */
  srtConfig(): { bwrapPath?: string; socatPath?: string } {
    const bwrap = this.found.get('bwrap');
    const socat = this.found.get('socat');
    return { ...(bwrap ? { bwrapPath: bwrap } : {}), ...(socat ? { socatPath: socat } : {}) };
  }
}
