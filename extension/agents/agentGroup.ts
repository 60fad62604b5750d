// An agent's process started in a process group of its own, so stopping it
// stops everything it started. Real agents are launchers: codex-acp's npm bin
// is a Node script that runs the native binary with spawnSync, and the binary
// outlives a SIGTERM to the script and ignores the end of its stdin; qwen and
// claude-agent-acp start a second process too. A signal to the direct child
// alone left those running for as long as the machine stayed up.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { AgentChild } from './daemonLink';

/** How long the group has after SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 3_000;

/** Sends a signal to a process group; false when the group is gone. */
export type GroupSignal = (groupId: number, signal: NodeJS.Signals | 0) => boolean;

const signalGroup: GroupSignal = (groupId, signal) => {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch {
    return false; // ESRCH: nothing of the group is left
  }
};

/**
 * Spawns `command` as the leader of a new process group (POSIX; on Windows
 * the plain child, which `kill` ends as before). `kill` signals the whole
 * group, then SIGKILLs what is still there after STOP_GRACE_MS, even when the
 * leader itself exited at once and left its children behind.
 */
export function spawnInGroup(command: string, args: readonly string[], options: SpawnOptions, how: GroupOptions = {}): AgentChild {
  const grouped = (how.platform ?? process.platform) !== 'win32';
  const child = spawn(command, args, { ...options, detached: grouped });
  if (!grouped) return child;
  return new GroupedChild(child, how.signal ?? signalGroup, how.graceMs ?? STOP_GRACE_MS);
}

export interface GroupOptions {
  signal?: GroupSignal;
  platform?: NodeJS.Platform;
  /** Tests shorten the grace. */
  graceMs?: number;
}

class GroupedChild implements AgentChild {
  private stopping = false;

  constructor(private readonly child: ChildProcess, private readonly signal: GroupSignal, private readonly graceMs: number) {}

  get stdin() {
    return this.child.stdin;
  }
  get stdout() {
    return this.child.stdout;
  }
  get stderr() {
    return this.child.stderr;
  }
  get exitCode() {
    return this.child.exitCode;
  }
  get signalCode() {
    return this.child.signalCode;
  }
  get pid() {
    return this.child.pid;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    const groupId = this.child.pid;
    if (groupId === undefined) return this.child.kill(signal);
    const sent = this.signal(groupId, signal);
    if (!this.stopping && signal !== 'SIGKILL') {
      this.stopping = true;
      // Unref'd: a window closing does not wait for it (the group then ends with the end of its stdin, or not at all, as before).
      setTimeout(() => {
        if (this.signal(groupId, 0)) this.signal(groupId, 'SIGKILL');
      }, this.graceMs).unref();
    }
    return sent || this.child.kill(signal);
  }

  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'error', listener: (error: Error) => void): this;
  once(event: 'exit' | 'error', listener: (...args: never[]) => void): this {
    // ChildProcess.once takes any listener; the overloads above are what callers see.
    this.child.once(event, listener as (...args: unknown[]) => void);
    return this;
  }
}
