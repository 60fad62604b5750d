// The process-wide side of `@anthropic-ai/sandbox-runtime` (srt): its
// SandboxManager is a singleton with one network proxy, so the domain
// allowlist is per process, not per command. While several sessions are
// active the proxy allows only the domains ALL of them allow (fail closed);
// filesystem rules are passed per command.
import os from 'node:os';
import path from 'node:path';
import { ProbeCache } from './probeCache';
import { ProgramPaths } from './programs';

type Srt = typeof import('@anthropic-ai/sandbox-runtime');
type Manager = Srt['SandboxManager'];

export type SandboxStatus =
  | { state: 'sandboxed'; platform: 'linux' | 'macos'; warnings: string[] }
  | { state: 'unsandboxed'; reason: string };

/** Secrets no sandboxed command may read. `~/.npm/_logs` is here so srt does not make it writable. */
export function secretPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = os.homedir();
  const config = env.XDG_CONFIG_HOME || path.join(home, '.config');
  return [
    '.ssh', '.aws', '.azure', '.gnupg', '.kube', '.docker', '.netrc', '.git-credentials', '.npmrc', '.pypirc', '.yarnrc.yml',
    '.config/gcloud', '.config/gh', '.config/hub', '.config/op', '.password-store', '.npm/_logs', '.claude',
    'Library/Keychains',
  ]
    .map((p) => path.join(home, p))
    .concat([path.join(config, 'accord'), path.join(config, 'gcloud'), path.join(config, 'gh')]);
}

let srtLoad: Promise<Srt> | undefined;

/** How long the sandbox's proxies outlive the last session of a long-lived agent process (keepWarm). */
export const SANDBOX_WARM_MS = 60_000;

/** srt is imported lazily: a bundle that cannot load it still runs, unsandboxed, and says why. */
function loadSrt(): Promise<Srt> {
  srtLoad ??= import('@anthropic-ai/sandbox-runtime');
  return srtLoad;
}

/** How often a negative detection may be probed again (a burst of new sessions probes once). */
export const DETECT_RECHECK_MS = 5_000;

export class SandboxHost {
  private readonly sessions = new Map<symbol, string[]>();
  private started: Promise<Manager> | undefined;
  private stopping: Promise<void> = Promise.resolve();

  /** Whether commands can be sandboxed: kept once they can; re-checked for a new session if not (see detect). */
  private detected: ProbeCache<SandboxStatus>;
  /** The last session gone, srt is stopped after a pause unless another session starts (a daemon's next session/new). */
  private lingering: { timer: NodeJS.Timeout; manager: Manager } | undefined;
  private lingerMs = 0;

  private readonly probe: () => Promise<SandboxStatus>;
  /** bubblewrap and socat, found in-process and handed to srt (which would otherwise spawn `which` for each, at each check). */
  private readonly programs: ProgramPaths;

  /** `probe`, `cache` and `programs` are for tests: the machine's answer, the clock and the PATH lookup. */
  constructor(probe?: () => Promise<SandboxStatus>, cache: { recheckMs?: number; now?: () => number } = {}, programs = new ProgramPaths()) {
    this.programs = programs;
    this.probe = probe ?? (() => this.detectNow());
    this.detected = new ProbeCache({
      lasting: (status) => status.state === 'sandboxed',
      recheckMs: cache.recheckMs ?? DETECT_RECHECK_MS,
      ...(cache.now ? { now: cache.now } : {}),
    });
  }

  /**
   * For processes that host sessions one after another and call settled()
   * on every way out (the daemon, `acp --no-daemon`): keep srt running for
   * `ms` after the last session ends. Off by default, so a short-lived user
   * of the runner exits as soon as its session is released.
   */
  keepWarm(ms: number): void {
    this.lingerMs = ms;
  }

  /**
   * Whether commands can be sandboxed here, and if not, why. Does not start
   * anything. Called for every new session; the probe spawns `which` for each
   * tool, so a positive answer is kept for the process, and a negative one is
   * probed again at most every DETECT_RECHECK_MS: a daemon running for days
   * sandboxes the next session once bubblewrap and socat are installed.
   */
  detect(): Promise<SandboxStatus> {
    if (process.env.ACCORD_SANDBOX === 'off') return Promise.resolve({ state: 'unsandboxed', reason: 'the sandbox was turned off with ACCORD_SANDBOX=off' });
    return this.detected.get(this.probe);
  }

  private async detectNow(): Promise<SandboxStatus> {
    let manager: Manager;
    try {
      manager = (await loadSrt()).SandboxManager;
    } catch (error) {
      return { state: 'unsandboxed', reason: `the sandbox library could not be loaded (${(error as Error).message})` };
    }
    if (process.platform !== 'linux' && process.platform !== 'darwin') {
      return { state: 'unsandboxed', reason: `commands cannot be sandboxed on ${process.platform} yet` };
    }
    if (!manager.isSupportedPlatform()) return { state: 'unsandboxed', reason: `this ${process.platform} system is not supported by the sandbox` };
    if (process.platform === 'linux') {
      // srt's check reads the paths from its config, and nothing runs yet
      // (a negative detection means no session holds srt): it is set here so
      // the check looks only for what was not found (srt then says it is missing).
      await Promise.all([this.programs.get('bwrap'), this.programs.get('socat')]);
      manager.updateConfig(this.config());
    }
    const check = await manager.checkDependenciesAsync();
    if (check.errors.length > 0) {
      const hint = process.platform === 'linux' ? ' (install bubblewrap and socat, e.g. "apt-get install bubblewrap socat")' : '';
      return { state: 'unsandboxed', reason: `${check.errors.join('; ')}${hint}` };
    }
    return { state: 'sandboxed', platform: process.platform === 'linux' ? 'linux' : 'macos', warnings: check.warnings };
  }

  /** Registers a session's network allowlist and returns the manager. */
  async acquire(allowedDomains: readonly string[]): Promise<{ manager: Manager; release(): void }> {
    const token = Symbol('sandbox-session');
    this.sessions.set(token, [...allowedDomains]);
    try {
      const manager = await this.start();
      this.applyNetwork(manager);
      return {
        manager,
        release: () => {
          this.sessions.delete(token);
          if (this.sessions.size > 0) this.applyNetwork(manager);
          else this.stop(manager);
        },
      };
    } catch (error) {
      this.sessions.delete(token);
      throw error;
    }
  }

  private start(): Promise<Manager> {
    if (this.lingering) {
      clearTimeout(this.lingering.timer);
      this.lingering = undefined;
    }
    this.started ??= (async () => {
      await this.stopping;
      const manager = (await loadSrt()).SandboxManager;
      await manager.initialize(this.config());
      return manager;
    })();
    this.started.catch(() => (this.started = undefined));
    return this.started;
  }

  /** Resolves once srt has stopped its proxies and socat bridges (after the last session's release). */
  settled(): Promise<void> {
    if (this.lingering) this.stopNow(this.lingering.manager);
    return this.stopping;
  }

  /**
   * The last session gone: srt's proxies and socat bridges stop, after
   * keepWarm's pause if one was set, so a daemon's next session does not
   * start them again (about half of a session's setup). The allowlist is
   * empty meanwhile (fail closed); settled() stops them at once.
   */
  private stop(manager: Manager): void {
    if (this.lingerMs <= 0) return this.stopNow(manager);
    if (this.lingering) clearTimeout(this.lingering.timer);
    const timer = setTimeout(() => this.stopNow(manager), this.lingerMs);
    timer.unref();
    this.lingering = { timer, manager };
  }

  private stopNow(manager: Manager): void {
    if (this.lingering) clearTimeout(this.lingering.timer);
    this.lingering = undefined;
    this.started = undefined;
    this.stopping = manager.reset().catch(() => undefined);
  }

  private allowedDomains(): string[] {
    const lists = [...this.sessions.values()];
    if (lists.length === 0) return [];
    return lists.reduce((common, list) => common.filter((d) => list.includes(d)));
  }

  private config() {
    return {
      ...this.programs.srtConfig(),
      network: { allowedDomains: this.allowedDomains(), deniedDomains: [], strictAllowlist: true },
      filesystem: { denyRead: secretPaths(), allowWrite: [], denyWrite: [] },
    };
  }

  private applyNetwork(manager: Manager): void {
    manager.updateConfig(this.config());
  }
}

export const sandboxHost = new SandboxHost();

/**
 * What an approval question says about where a command runs: the sandbox
 * state and the network it can reach (never just a command string).
 */
export function commandContext(status: SandboxStatus, allowedDomains: readonly string[]): { sandbox: string; network: string } {
  if (status.state === 'unsandboxed') {
    return { sandbox: `not sandboxed: ${status.reason}`, network: 'unrestricted (no sandbox)' };
  }
  const how = status.platform === 'linux' ? 'bubblewrap' : 'Seatbelt';
  return {
    sandbox: `sandboxed (${how}): writes only in the session workspace and its temp folder`,
    network: allowedDomains.length === 0 ? 'off' : `only ${allowedDomains.join(', ')}`,
  };
}
