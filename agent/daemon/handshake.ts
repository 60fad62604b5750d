// The one line each side sends before ACP starts on a daemon socket. The
// bridge says who it is and which flags its sessions get; the daemon answers
// with its version. After that the socket carries ACP ndjson only.
import type { Socket } from 'node:net';

/** Flags a connection's own sessions get (never sessions another client created). */
export interface ConnectionFlags {
  alwaysApprove?: boolean;
  durableRequests?: boolean;
  /** Directory for a session that names none. */
  project?: string;
  /** Model for sessions this connection creates. */
  model?: string;
  /**
   * The client's model settings and credentials (ANTHROPIC_*, OPENAI_*, OPENROUTER_*, GEMINI_*,
   * ACCORD_* but the daemon's own): turns this connection prompts use them,
   * so keys set after the daemon started (VS Code's Set API Key) apply.
   */
  env?: Record<string, string>;
}

/** The daemon's own settings, never taken from a client. */
export const DAEMON_KEYS = new Set(['ACCORD_HOME', 'ACCORD_DAEMON_IDLE_EXIT', 'ACCORD_BRIDGE_VERSION_FOR_TESTS', 'ACCORD_SANDBOX', 'ACCORD_APPROVAL_TIMEOUT']);

/**
 * The names a client forwards and the daemon accepts. dist/accord (agent/cli/accord.sh) builds
 * the same set in awk: keep the two in step (test/unit/cli/launcherParity.test.ts checks it).
 */
export const FORWARDED_NAME = /^(ANTHROPIC_|OPENAI_|OPENROUTER_|GEMINI_|GOOGLE_GENERATIVE_AI_|ACCORD_)[A-Z0-9_]*$/;

/** Names outside FORWARDED_NAME (ACCORD_x.y) are left out here too: the daemon would drop them anyway. */
export function forwardedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && FORWARDED_NAME.test(key) && !DAEMON_KEYS.has(key)) out[key] = value;
  }
  return out;
}

/** What a client may set, checked again on the daemon side (the hello is just JSON). */
export function acceptedEnv(env: unknown): Record<string, string> {
  if (env === null || typeof env !== 'object') return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env as Record<string, unknown>)) {
    if (typeof value === 'string' && FORWARDED_NAME.test(key) && !DAEMON_KEYS.has(key)) out[key] = value;
  }
  return out;
}

export type Hello =
  | {
      accord: 'hello';
      version: string;
      flags: ConnectionFlags;
      /** A bridge of another version asks the daemon to step down once idle. */
      restartWhenIdle?: boolean;
      /** dist/accord: answer with a one-shot socket (agent/daemon/handoff.ts) to relay on, and close this connection. */
      handoff?: boolean;
    }
  | { accord: 'status'; version: string }
  | { accord: 'stop'; version: string };

export interface Welcome {
  accord: 'welcome';
  version: string;
  pid: number;
  /** The daemon will exit once idle (a newer or older bridge asked). */
  retiring?: boolean;
  /** The one-shot socket a launcher's hello asked for. */
  handoff?: string;
}

export interface DaemonStatus {
  accord: 'status';
  version: string;
  pid: number;
  startedAt: string;
  clients: number;
  sessions: Array<{ sessionId: string; cwd: string; clients: number; turnRunning: boolean; pendingPermissions: number }>;
  idleExitMs: number | null;
  retiring: boolean;
}

const MAX_LINE = 64 * 1024;

/**
 * Reads the first line; whatever came after it is pushed back so the ACP
 * stream starts exactly where the line ended. Rejects on a line over 64 KiB
 * or a socket that ends first.
 */
export function readFirstLine(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const newline = buffered.indexOf(10);
      if (newline === -1) {
        if (buffered.length > MAX_LINE) {
          cleanup();
          reject(new Error('the first line is longer than 64 KiB'));
        }
        return;
      }
      cleanup();
      socket.pause();
      const rest = buffered.subarray(newline + 1);
      if (rest.length > 0) socket.unshift(rest);
      resolve(buffered.subarray(0, newline).toString('utf8'));
    };
    const onEnd = () => {
      cleanup();
      reject(new Error('the connection closed before its first line'));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('error', onError);
  });
}

export function parseJsonLine<T>(line: string): T | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === 'object' ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}
