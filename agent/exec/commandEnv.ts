// The environment of a command run without the session machinery (the plain
// ProcessRunner): the same allowlist as every other command.
import { commandEnvironment } from '../sandbox/environment';

export function commandEnv(base: NodeJS.ProcessEnv, additions: Record<string, string>, pass: readonly string[] = []): Record<string, string> {
  return commandEnvironment(base, { additions, pass }).env;
}
