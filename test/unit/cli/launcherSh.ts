// Runs the functions of dist/accord's source (agent/cli/accord.sh, the part
// between `# --- functions ---` and `# --- main ---`) in /bin/sh with a given
// environment, so the launcher's rules can be compared with the TypeScript
// they mirror without a test hook in the shipped script.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const launcherSource = readFileSync(join(process.cwd(), 'agent/cli/accord.sh'), 'utf8');

const functions = (() => {
  const start = launcherSource.indexOf('# --- functions ---');
  const end = launcherSource.indexOf('# --- main ---');
  if (start < 0 || end < start) throw new Error('agent/cli/accord.sh lost its function markers');
  return launcherSource.slice(start, end);
})();

export interface ShResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `script` runs after the launcher's functions, with `accord_version` set to `version`. */
export function runLauncherFunctions(script: string, env: Record<string, string | undefined>, options: { version?: string; cwd?: string } = {}): ShResult {
  const body = `accord_version='${options.version ?? '0.1.0'}'\n${functions}\n${script}\n`;
  // LAUNCHER_TEST_SHELL=bash: the same rules under another /bin/sh (bash is /bin/sh on Fedora and Arch).
  const shell = process.env.LAUNCHER_TEST_SHELL ?? '/bin/sh';
  const result = spawnSync(shell, ['-c', body], { env: env as NodeJS.ProcessEnv, cwd: options.cwd, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
