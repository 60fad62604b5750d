// Finds which catalogue agents are already on this machine: a program on
// PATH, or a package npx has cached. Reads only the filesystem (no vscode
// import, no spawning), so it is quick and safe to run on every "Add Agent".
import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { CatalogueAgent } from './catalogue';

export type Presence =
  | { state: 'path'; path: string }
  | { state: 'npx'; path: string }
  | { state: 'missing' };

export interface DetectEnv {
  PATH?: string;
  PATHEXT?: string;
  npm_config_cache?: string;
  HOME?: string;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (process.platform === 'win32') return true;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `command` on PATH (a bare name only: a path-like command is never searched). */
export function onPath(command: string, env: DetectEnv): string | undefined {
  if (!command || /[\\/]/.test(command)) return undefined;
  const exts = process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue; // an empty entry means the current directory: never trust it
    for (const ext of exts) {
      const candidate = join(dir, command + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** npm's cache folder: `npm_config_cache`, else ~/.npm (%LocalAppData%\npm-cache on Windows). */
export function npmCacheDir(env: DetectEnv & { LOCALAPPDATA?: string }): string {
  if (env.npm_config_cache) return env.npm_config_cache;
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'npm-cache');
  return join(env.HOME || homedir(), '.npm');
}

/**
 * The cached npx install of `pkg`, if any: `<cache>/_npx/<hash>/node_modules/<pkg>`
 * with a package.json naming that package. Returns its folder.
 */
export function inNpxCache(pkg: string, cacheDir: string): string | undefined {
  const root = join(cacheDir, '_npx');
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return undefined;
  }
  for (const hash of entries.sort()) {
    const dir = join(root, hash, 'node_modules', ...pkg.split('/'));
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (manifest.name === pkg) return dir;
    } catch {
      // not there, or not a package: keep looking
    }
  }
  return undefined;
}

export function detect(agent: CatalogueAgent, env: DetectEnv): Presence {
  const found = onPath(agent.command, env);
  if (found) return { state: 'path', path: found };
  if (agent.npm) {
    const cached = inNpxCache(agent.npm, npmCacheDir(env));
    if (cached) return { state: 'npx', path: cached };
  }
  return { state: 'missing' };
}
