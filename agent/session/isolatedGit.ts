// Runs the git CLI without a shell for the isolated workspace. The inherited
// environment is cleaned of variables that would redirect git (GIT_DIR,
// GIT_INDEX_FILE, ...) so every call says exactly which repository it means.
import { execFile } from 'node:child_process';

export interface GitOptions {
  cwd: string;
  env?: Record<string, string>;
  input?: string | Buffer;
  /** Exit codes that are answers, not failures (e.g. 1 from `git merge-file`). */
  okCodes?: number[];
}

export interface GitResult {
  stdout: Buffer;
  code: number;
}

export class GitError extends Error {
  override name = 'GitError';
}

function gitEnv(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('GIT_')) env[name] = value;
  return {
    ...env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Accord',
    GIT_AUTHOR_EMAIL: 'accord@localhost',
    GIT_COMMITTER_NAME: 'Accord',
    GIT_COMMITTER_EMAIL: 'accord@localhost',
    ...extra,
  };
}

export function gitRaw(args: string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd: options.cwd, env: gitEnv(options.env), encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (code === 0 || options.okCodes?.includes(code)) return resolve({ stdout, code });
        const detail = stderr.toString('utf8').trim() || error?.message || `exit code ${code}`;
        reject(new GitError(`git ${args[0]} failed in ${options.cwd}: ${detail}`));
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
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
