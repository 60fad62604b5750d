// Where session logs live: the platform's per-user state directory, or
// ACCORD_HOME when set (tests, portable installs).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LogError } from './errors';

export interface DataDirInputs {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
}

/** The agent's data directory; `ACCORD_HOME` overrides the platform default. */
export function accordDataDir(
  inputs: DataDirInputs = { env: process.env, platform: process.platform, home: homedir() },
): string {
  const { env, platform, home } = inputs;
  if (env.ACCORD_HOME) return env.ACCORD_HOME;
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Accord');
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'Accord');
  // XDG: state (not data, not cache) is where histories and logs belong.
  const stateHome = env.XDG_STATE_HOME?.startsWith('/') ? env.XDG_STATE_HOME : join(home, '.local', 'state');
  return join(stateHome, 'accord');
}

export function sessionsDir(dataDir: string): string {
  return join(dataDir, 'sessions');
}

// Ids become file names, so only a conservative alphabet is accepted: no path
// separators, no dots, nothing a shell or Windows would treat specially.
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function checkSessionId(id: string): void {
  if (!SESSION_ID.test(id)) {
    throw new LogError(
      'bad_session_id',
      `"${id.slice(0, 140)}" is not a valid session id (1-128 letters, digits, "-" or "_").`,
    );
  }
}

export function sessionLogPath(dataDir: string, id: string): string {
  checkSessionId(id);
  return join(sessionsDir(dataDir), `${id}.jsonl`);
}
