// Runs the git CLI without a shell for the session's copy and the person's
// repository. Everything a sandboxed command can write is hostile input here,
// so every run is pinned down the same way:
// - the git dir and work tree are always named (`--git-dir`/`--work-tree`),
//   never discovered from a `.git` the agent could have planted;
// - no system or global config (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null),
//   and the settings that run programs are forced off on the command line
//   (fsmonitor, hooks, pager, askpass, ssh, external diff);
// - the environment is built from an allowlist, so nothing of the agent's
//   (API keys, GIT_* redirections, proxies) reaches git or anything it starts.
import { execFile } from 'node:child_process';

export interface GitOptions {
  cwd: string;
  /** The git dir; always passed as `--git-dir` when given. */
  gitDir?: string;
  /** The work tree; always passed as `--work-tree` when given. */
  workTree?: string;
  /** Extra `-c name=value` settings (placed before the hardening, so they cannot undo it: callers name only harmless ones). */
  config?: string[];
  /** A private index (host-side scratch), the only variable callers may add. */
  indexFile?: string;
  input?: string | Buffer;
  /** Exit codes that are answers, not failures (e.g. 1 from `git merge-file`). */
  okCodes?: number[];
  /** Upper bound for stdout; a bigger answer fails instead of growing the agent. Default 512 MiB. */
  maxBuffer?: number;
  /** A run that takes longer is stopped (a fifo planted where git reads would otherwise hang it). Default 5 minutes. */
  timeoutMs?: number;
}

export interface GitResult {
  stdout: Buffer;
  code: number;
}

export class GitError extends Error {
  override name = 'GitError';
}

/** Variables git may see from the agent's environment: locating programs and speaking the person's language. */
const INHERITED = ['PATH', 'HOME', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TZ', 'TMPDIR', 'SYSTEMROOT', 'XDG_CONFIG_HOME'];

/**
 * `-c` settings that win over any config git reads (command-line config has
 * the highest precedence): nothing git could run on our behalf stays on.
 */
export const HARDENING = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.askPass=',
  'core.sshCommand=false',
  'credential.helper=',
  'diff.external=',
  'core.untrackedCache=false',
  'protocol.ext.allow=never',
  'submodule.recurse=false',
  'gc.auto=0',
  'maintenance.auto=false',
].flatMap((setting) => ['-c', setting]);

export function gitEnvironment(source: NodeJS.ProcessEnv = process.env, indexFile?: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_AUTHOR_NAME: 'Accord',
    GIT_AUTHOR_EMAIL: 'accord@localhost',
    GIT_COMMITTER_NAME: 'Accord',
    GIT_COMMITTER_EMAIL: 'accord@localhost',
    ...(indexFile ? { GIT_INDEX_FILE: indexFile } : {}),
  };
}

/** The full argv after `git`: hardening, then the explicit repository, then the command. */
export function gitArgv(args: readonly string[], options: Pick<GitOptions, 'gitDir' | 'workTree' | 'config'>): string[] {
  return [
    ...(options.config ?? []).flatMap((setting) => ['-c', setting]),
    ...HARDENING,
    ...(options.gitDir ? [`--git-dir=${options.gitDir}`] : []),
    ...(options.workTree ? [`--work-tree=${options.workTree}`] : []),
    ...args,
  ];
}

export function gitRaw(args: string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      gitArgv(args, options),
      { cwd: options.cwd, env: gitEnvironment(process.env, options.indexFile), encoding: 'buffer', maxBuffer: options.maxBuffer ?? 512 * 1024 * 1024, timeout: options.timeoutMs ?? 300_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (code === 0 || options.okCodes?.includes(code)) return resolve({ stdout, code });
        const stopped = error?.killed ? `stopped after ${Math.round((options.timeoutMs ?? 300_000) / 1000)} s` : undefined;
        const detail = stopped ?? (stderr.toString('utf8').trim() || error?.message || `exit code ${code}`);
        reject(new GitError(`git ${args[0]} failed in ${options.cwd}: ${detail}`));
      },
    );
    // git may exit before reading all of stdin (e.g. on an error): that is reported above, not thrown here.
    child.stdin?.on('error', () => undefined);
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/** stdout as text without the trailing newline. */
export async function git(args: string[], options: GitOptions): Promise<string> {
  return (await gitRaw(args, options)).stdout.toString('utf8').replace(/\n$/, '');
}

/** Splits NUL-separated output (`-z`), dropping the empty tail. */
export function splitZ(output: Buffer | string): string[] {
  return output.toString().split('\0').filter((s) => s.length > 0);
}
