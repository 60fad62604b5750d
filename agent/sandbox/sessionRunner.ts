// The CommandRunner a session uses. With the OS sandbox (srt: bubblewrap on
// Linux, Seatbelt on macOS) a command runs with cwd inside the session
// workspace, may write only there and in the session tmp, cannot read
// secrets, and reaches only the policy's domains through srt's proxy.
// Without it, the command still runs in the isolated workspace with a
// scrubbed environment, and `status` says why it is unsandboxed (the policy
// gate then asks before every command).
import { randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isWithin } from '../workspace/containment';
import type { CommandOptions, CommandOutcome, CommandRunner } from '../tools/tool';
import { commandEnvironment } from './environment';
import { DETECT_RECHECK_MS, sandboxHost, secretPaths, type SandboxStatus } from './sandboxHost';
import { ProbeCache } from './probeCache';
import { spawnCollect } from '../exec/spawnCollect';

export interface SessionRunnerSettings {
  /** The session workspace (real path): the only writable place besides `sessionTmp`. */
  workspace: string;
  /** A private temp dir for this session (real path); TMPDIR points here. */
  sessionTmp: string;
  /** From the project policy's `network.allowedDomains`. Empty: no network. */
  allowedDomains: readonly string[];
  /** Paths inside the workspace commands may never write (policy, git metadata, editor settings). */
  protectedPaths?: readonly string[];
  /** Variables the project policy passes to commands on top of the built-in allowlist (`environment.pass`). */
  passEnvironment?: readonly string[];
  /** Paths commands may not even read, on top of the secrets: the agent's data directory. */
  hiddenPaths?: readonly string[];
  /** Paths inside `hiddenPaths` commands may read again: the session's own copy and what its git borrows. */
  readablePaths?: readonly string[];
}

/** How to start a long-running process (an MCP server) under the same confinement as a command. */
export interface LaunchSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface LaunchingRunner extends CommandRunner {
  launch(argv: string[], cwd: string, envChanges: Record<string, string>): Promise<LaunchSpec>;
}

export interface SessionRunner {
  runner: LaunchingRunner;
  status: SandboxStatus;
  dispose(): void;
}

/**
 * Paths below the workspace that stay read-only for commands, on top of srt's
 * own list. With `wholeGit` (the person's own tree, in place) all of `.git`,
 * which their git trusts: HEAD, refs, index, commondir, objects. In a copy
 * `.git` is the agent's own repository, which nothing outside reads; its
 * hooks and config stay read-only all the same.
 */
export function defaultProtectedPaths(workspace: string, wholeGit = false): string[] {
  const git = wholeGit ? ['.git'] : ['.git/hooks', '.git/config', '.git/info'];
  return ['.accord', '.vscode', ...git, '.envrc'].map((p) => path.join(workspace, p));
}

const srtSharedWritePaths = ['/tmp/claude', '/private/tmp/claude'];

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

async function checkCwd(workspace: string, cwd: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(cwd);
  } catch {
    throw new Error(`Cannot run the command: its working directory ${cwd} does not exist.`);
  }
  if (!isWithin(workspace, real)) throw new Error(`Cannot run the command in ${real}: it is outside the session workspace ${workspace}.`);
  return real;
}

function tmpVariables(sessionTmp: string): Record<string, string> {
  return { TMPDIR: sessionTmp, TMP: sessionTmp, TEMP: sessionTmp };
}

class UnsandboxedRunner implements LaunchingRunner {
  constructor(private readonly settings: SessionRunnerSettings) {}

  async run(argv: string[], options: CommandOptions): Promise<CommandOutcome> {
    return spawnCollect({ ...options, ...(await this.launch(argv, options.cwd, options.envChanges)) });
  }

  async launch(argv: string[], cwd: string, envChanges: Record<string, string>): Promise<LaunchSpec> {
    const realCwd = await checkCwd(this.settings.workspace, cwd);
    const { env } = commandEnvironment(process.env, { pass: this.settings.passEnvironment ?? [], additions: { ...tmpVariables(this.settings.sessionTmp), ...envChanges } });
    return { argv, cwd: realCwd, env };
  }
}

/**
 * srt carries the command id into the sandbox (the proxy user name, an
 * environment variable): random, so nothing inside learns the agent's pid.
 */
const newCommandId = () => `accord-${randomUUID()}`;

class SandboxedRunner implements LaunchingRunner {
  constructor(
    private readonly settings: SessionRunnerSettings,
    private readonly manager: Awaited<ReturnType<typeof sandboxHost.acquire>>['manager'],
  ) {}

  async run(argv: string[], options: CommandOptions): Promise<CommandOutcome> {
    const commandId = newCommandId();
    const spec = await this.wrap(argv, options.cwd, options.envChanges, options.signal, commandId);
    try {
      const outcome = await spawnCollect({ ...options, ...spec });
      const annotated = this.manager.annotateStderrWithSandboxFailures(commandId, outcome.output);
      return { ...outcome, output: annotated };
    } finally {
      this.manager.cleanupAfterCommand();
    }
  }

  launch(argv: string[], cwd: string, envChanges: Record<string, string>): Promise<LaunchSpec> {
    return this.wrap(argv, cwd, envChanges, new AbortController().signal, newCommandId());
  }

  private async wrap(argv: string[], requestedCwd: string, envChanges: Record<string, string>, signal: AbortSignal, commandId: string): Promise<LaunchSpec> {
    if (argv.length === 0 || !argv[0]) throw new Error('The command is empty: give the program and its arguments as an argv array.');
    const { workspace, sessionTmp } = this.settings;
    const cwd = await checkCwd(workspace, requestedCwd);
    // Every word is single-quoted: the shell inside the sandbox only execs the argv.
    const exports = Object.entries(tmpVariables(sessionTmp)).map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ');
    const inner = `cd ${shellQuote(cwd)} && export ${exports} && exec ${argv.map(shellQuote).join(' ')}`;
    const wrapped = await this.manager.wrapWithSandboxArgv(
      inner,
      undefined,
      {
        filesystem: {
          denyRead: [...secretPaths(), ...(this.settings.hiddenPaths ?? [])],
          // On Linux srt binds writable paths back over a hidden folder itself;
          // Seatbelt rules for reads and writes are separate, so on macOS the
          // workspace and tmp must be read-allowed too. Both platforms keep a
          // deny nested inside an allowed path (a secret under the workspace).
          allowRead: [workspace, sessionTmp, ...(this.settings.readablePaths ?? [])],
          allowWrite: [workspace, sessionTmp],
          // srt makes /tmp/claude writable for its own use; shared between sessions, so closed here.
          denyWrite: [...(this.settings.protectedPaths ?? defaultProtectedPaths(workspace)), ...srtSharedWritePaths],
        },
      },
      signal,
      cwd,
      { commandId, commandText: argv.join(' ') },
    );
    return { argv: wrapped.argv, cwd, env: commandEnvironment(process.env, { pass: this.settings.passEnvironment ?? [], additions: envChanges }).env };
  }
}

/**
 * The runner for one session. `forceUnsandboxed` (a reason) skips the
 * sandbox, e.g. when the person chose so; otherwise a missing or broken
 * sandbox is detected and reported in `status`.
 */
/** The process-wide half of a session's runner: the sandbox detected and its proxy holding this session's domains. */
export type StartedSandbox =
  | { state: 'unsandboxed'; reason: string }
  | { state: 'sandboxed'; status: SandboxStatus; lease: Awaited<ReturnType<typeof sandboxHost.acquire>> };

/**
 * Needs only the policy's domains, not the workspace: session setup runs it
 * while the copy is being made (the two took about as long as each other).
 * Whoever starts it must pass it to createSessionRunner or release its lease.
 */
export async function startSandbox(allowedDomains: readonly string[], forceUnsandboxed?: string): Promise<StartedSandbox> {
  if (forceUnsandboxed) return { state: 'unsandboxed', reason: forceUnsandboxed };
  const status = await sandboxHost.detect();
  if (status.state === 'unsandboxed') return { state: 'unsandboxed', reason: status.reason };
  try {
    return { state: 'sandboxed', status, lease: await sandboxHost.acquire(allowedDomains) };
  } catch (error) {
    return { state: 'unsandboxed', reason: `the sandbox could not start (${(error as Error).message})` };
  }
}

/** Gives back a started sandbox that will not be used (the session's copy could not be made). */
export function releaseSandbox(started: StartedSandbox): void {
  if (started.state === 'sandboxed') started.lease.release();
}

export async function createSessionRunner(settings: SessionRunnerSettings, forceUnsandboxed?: string, started?: StartedSandbox): Promise<SessionRunner> {
  const unsandboxed = (reason: string): SessionRunner => ({
    runner: new UnsandboxedRunner(settings),
    status: { state: 'unsandboxed', reason },
    dispose: () => undefined,
  });
  const sandbox = started ?? (await startSandbox(settings.allowedDomains, forceUnsandboxed));
  if (sandbox.state === 'unsandboxed') return unsandboxed(sandbox.reason);
  const { lease, status } = sandbox;
  const runner = new SandboxedRunner(settings, lease.manager);
  const broken = await probe(runner, settings.workspace);
  if (broken) {
    lease.release();
    return unsandboxed(broken);
  }
  return { runner, status, dispose: () => lease.release() };
}

/** A sandbox that started `true` keeps working; one that could not is tried again for a later session (the restriction may be lifted). */
const started = new ProbeCache<string | undefined>({ lasting: (broken) => broken === undefined, recheckMs: DETECT_RECHECK_MS });

/**
 * bubblewrap can be installed yet unable to create namespaces (Docker's
 * default seccomp profile, Ubuntu's AppArmor userns restriction): run `true`
 * once (per process once it works) and report the failure instead of failing every command.
 */
function probe(runner: SandboxedRunner, workspace: string): Promise<string | undefined> {
  return started.get(() =>
    runner
      .run(['true'], { cwd: workspace, envChanges: {}, timeoutMs: 60_000, signal: new AbortController().signal, onOutput: () => undefined, maxOutputBytes: 8192 })
      .then(
        (outcome) => (outcome.exitCode === 0 ? undefined : `the sandbox is installed but cannot start commands (${outcome.output.trim() || `exit code ${outcome.exitCode}`})`),
        (error: Error) => `the sandbox is installed but cannot start commands (${error.message})`,
      ),
  );
}
