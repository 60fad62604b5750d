// Parsing of the agent options every transport shares, and the spellings
// that lead to each transport. No dependencies: the bridge bundle uses it.
import { resolve } from 'node:path';

export interface AgentOptions {
  alwaysApprove: boolean;
  durableRequests: boolean;
  model?: string;
  project?: string;
  daemon?: string;
  noDaemon: boolean;
}

/** The grants and defaults a connection's sessions take from the agent options (the same for every transport). */
export function connectionFlags(options: AgentOptions): { alwaysApprove?: true; durableRequests?: true; project: string; model?: string } {
  return {
    ...(options.alwaysApprove ? { alwaysApprove: true as const } : {}),
    ...(options.durableRequests ? { durableRequests: true as const } : {}),
    project: options.project ?? process.cwd(),
    ...(options.model ? { model: options.model } : {}),
  };
}

/** Also thrown by the core bundle (its own copy of this class), so recognised by name. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function isUsageError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'UsageError';
}

const flags: Record<string, keyof AgentOptions> = {
  '--always-approve': 'alwaysApprove',
  '--durable-requests': 'durableRequests',
  '--no-daemon': 'noDaemon',
};
const valued: Record<string, keyof AgentOptions> = { '--model': 'model', '--project': 'project', '--daemon': 'daemon' };

/**
 * Takes the agent options out of `args` (in any position, `--x=v` or
 * `--x v`); returns them and what is left, in order.
 */
export function takeAgentOptions(args: readonly string[]): { options: AgentOptions; rest: string[] } {
  const options: AgentOptions = { alwaysApprove: false, durableRequests: false, noDaemon: false };
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const flag = flags[name];
    if (flag && inline === undefined) {
      (options as unknown as Record<string, unknown>)[flag] = true;
      continue;
    }
    const key = valued[name];
    if (key) {
      const value = inline ?? args[++i];
      if (value === undefined || value === '') throw new UsageError(`${name} needs a value.`);
      (options as unknown as Record<string, unknown>)[key] = key === 'project' ? resolve(value) : value;
      continue;
    }
    rest.push(arg);
  }
  return { options, rest };
}

/** Takes `--name value` / `--name=value` out of `args`. */
export function takeValue(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === name) {
      const value = args[i + 1];
      if (value === undefined) throw new UsageError(`${name} needs a value.`);
      args.splice(i, 2);
      return value;
    }
    if (arg.startsWith(`${name}=`)) {
      args.splice(i, 1);
      return arg.slice(name.length + 1);
    }
  }
  return undefined;
}

export function takeFlag(args: string[], name: string): boolean {
  const at = args.indexOf(name);
  if (at === -1) return false;
  args.splice(at, 1);
  return true;
}

/** "10m", "30s", "1500ms", "2h", "0" (right away), "never"; a bare number is seconds. */
export function parseDuration(text: string): number | null {
  if (text === 'never') return null;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new UsageError(`"${text}" is not a duration (e.g. 10m, 30s, 1500ms, never).`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(match[1]) * unit);
}

export const usage = `usage: accord <command> [options]

Editors and ACP clients (stdio):
  accord acp [agent options] [--daemon <address>] [--no-daemon]
  accord acp serve [...]            same as accord acp
  accord agent [agent options] stdio
      A thin bridge: ACP on stdin/stdout, relayed to the per-user daemon,
      which owns every session (several clients can watch one session; a
      closed editor does not stop a turn). Starts the daemon when none
      answers. --no-daemon serves in this process instead (also the fallback
      when the daemon's socket cannot be used).
      \`accord\` (dist/accord) is a POSIX shell launcher: \`dist/accord acp\` with
      the daemon running on Linux relays through socat (a few MB instead of a
      Node bridge). \`node dist/agent.js acp\` is the portable form (Windows, or
      a Node not on PATH).

Agent options (every transport):
  --always-approve     sessions created through this connection run every
                       "ask" as allowed ("deny" rules still apply); the
                       sessions say so in their _meta
  --durable-requests   their permission requests wait for an answer without
                       a time limit while no client is attached (default:
                       ACCORD_APPROVAL_TIMEOUT, 10 min, then declined);
                       with --no-daemon the turn ends "waiting" instead and
                       the request survives restarts
  --model <id>         model for new sessions, e.g. anthropic:claude-sonnet-4-5
  --project <dir>      the directory of a session that names none (default:
                       the working directory)

The daemon:
  accord daemon [--listen <address>] [--idle-exit <duration>] [--client-stall <duration>]
      Default address: a Unix socket, mode 0600, in a 0700 directory under
      $XDG_RUNTIME_DIR/accord (or <state dir>/run; ACCORD_HOME/run when
      ACCORD_HOME is set); a named pipe on Windows. Only your user can
      connect: the bridge refuses a socket or directory owned by another user,
      a symlink, or one others can reach. Exits when idle (no clients, no
      running turn) for --idle-exit (default 10m; ACCORD_DAEMON_IDLE_EXIT).
      A client that takes none of its output for --client-stall (default
      30s) is disconnected, so it cannot hold the other clients' turns.
  accord daemon status [--listen <address>]   live sessions, clients, turns
  accord daemon stop [--listen <address>]

Network:
  accord agent [agent options] serve --bind 127.0.0.1:2419 [--secret <token>] [--allow-origin <origin>]
  accord serve ...                  same
      ACP over WebSocket, one JSON-RPC message per text frame. The secret
      comes from --secret, else ACCORD_AGENT_SECRET, else is generated and
      printed once. Clients send "Authorization: Bearer <secret>", or (browsers)
      the subprotocol "accord.bearer.<secret>". A wrong or missing secret gets
      401 before the upgrade; a cross-site Origin gets 403 unless
      --allow-origin names it; a non-loopback --bind needs a secret.
  accord agent [agent options] headless --relay-url wss://... [--secret <token>]
      Connects out to a relay and serves ACP over that socket; reconnects
      with backoff.

One-shot:
  accord -p "<prompt>" [--cwd <dir>] [--model <id>] [--format text|json] [--always-approve]
      Runs one prompt and prints the reply (json: the updates as NDJSON).
      Exit status: 0 end_turn, 3 refusal, 130 cancelled, 1 anything else.
      Without --always-approve a permission request is refused and named.

Sessions and keys:
  accord sessions list|remove ...
  accord login [anthropic|openai|openrouter|google|openai-compatible]
  accord --help
`;
