// The agent core's commands (dist/agent-core.js), run by the small `accord`
// entry (agent/cli/main.ts) when the agent itself runs in this process:
// `acp --no-daemon` (ACP v1 or v2 on stdio), the daemon, `serve`, `-p`, `sessions`,
// `login`. stdout may carry protocol, so every log goes to stderr (set up by
// the first import).
import './stderrConsole';
import { webReadable, webWritable } from './acp/webStdio';
import { guardLines, MAX_LINE_BYTES } from './acp/lineGuard';
import { acpStream } from './acp/messageOutput';
import { loadDeferredBuiltins } from './acp/deferredBuiltins';
import { createLoggedAgent } from './acp/sessionLog';
import { serveVersions } from './acp/versions';
import { SessionWorkspaces } from './session/workspaces';
import { DurableRequests } from './acp/durablePermissions';
import { ProcessRunner } from './exec/processRunner';
import { SessionStore } from './log';
import { SANDBOX_WARM_MS, sandboxHost } from './sandbox/sandboxHost';
import type { LiveState } from './log/cli';
import { defaultDaemonAddress } from './daemon/address';
import type { DaemonStatus } from './daemon/handshake';
import { agentVersion } from './daemon/host';
import { builtinTools } from './tools/index';
import { takeAgentOptions, UsageError } from './cli/options';
import { applyAgentHeapFlags } from './cli/heapFlags';

type Command = (args: string[]) => Promise<number>;

async function serveAcp(args: string[]): Promise<number> {
  const { options, rest } = takeAgentOptions(args);
  if (rest.length > 0) throw new UsageError(`unknown option ${rest.join(' ')}`);
  if (options.model) process.env.ACCORD_MODEL = options.model;
  // Every session is recorded in its log (ACCORD_HOME or the platform state dir) and can be loaded again;
  // its isolated workspace lives beside the log (<data dir>/sessions/<id>/).
  const logs = new SessionStore();
  // --always-approve is the person launching the agent deciding: every "ask" becomes allow; "deny" still applies.
  const isolation = new SessionWorkspaces({ dataDir: logs.dataDir, alwaysApprove: options.alwaysApprove });
  // --durable-requests: an approval question does not block the turn; it ends `waiting` and survives restarts.
  const durable = options.durableRequests ? new DurableRequests() : undefined;
  const { app, closeLogs } = createLoggedAgent({ env: process.env, tools: builtinTools(), commands: new ProcessRunner(), isolation, ...(durable ? { durable } : {}) }, logs);
  // An oversized line is answered with an error instead of ending the connection (and every session on it).
  // Once the first answer (initialize) has left, what session/new will need is loaded while the client reads it,
  // then the agent's V8 flags are set: every built-in loaded before them is compiled with Node's code cache.
  const stdio = guardLines(webReadable(process.stdin), webWritable(process.stdout), MAX_LINE_BYTES, {
    afterFirstSend: () => loadDeferredBuiltins(require, applyAgentHeapFlags),
  });
  const stream = acpStream(stdio, MAX_LINE_BYTES + 1);
  // Logs synced and locks released, then the sandbox's proxies and socat
  // bridges stopped and waited for: exiting first would orphan them.
  const shutDown = async () => {
    await closeLogs();
    await isolation.releaseAll();
    await sandboxHost.settled();
  };
  // An editor opens session after session here: srt's proxies stay up between them (shutDown stops them).
  sandboxHost.keepWarm(SANDBOX_WARM_MS);
  // sandbox-runtime listens for SIGTERM/SIGINT itself, which would keep the process alive: end it here.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutDown().finally(() => process.exit(signal === 'SIGTERM' ? 143 : 130)));
  }
  // v1 or v2, as the client asks at initialize (acp/versions.ts).
  await serveVersions(app, stream).closed;
  await shutDown();
  return 0;
}

/**
 * Subcommands by name: the hook where other parts plug in theirs (e.g.
 * `sessions` from the session log). Each but `acp` is imported when run, so
 * an editor's `acp --no-daemon` neither evaluates nor loads what it does not
 * use (ws with node:http, https, tls and zlib for `serve`; readline for `login`).
 */
const commands: Record<string, Command> = {
  acp: (args) => serveAcp(args),
  daemon: async (args) => (await import('./daemon/server')).runDaemon(args),
  print: async (args) => (await import('./cli/print')).runPrint(args),
  serve: async (args) => (await import('./transports/serve')).runServe(args),
  headless: async (args) => (await import('./transports/relay')).runRelay(args),
  login: async (args) => (await import('./login')).login(args, process.env),
  sessions: async (args) => (await import('./log/cli')).runSessionsCli(args, { liveState: daemonLiveState }),
};

/** What the running daemon (if any) holds, for `accord sessions list`. */
async function daemonLiveState(): Promise<Map<string, LiveState>> {
  const { handshake, tryConnect } = await import('./daemon/connect');
  const socket = await tryConnect(defaultDaemonAddress());
  if (!socket) return new Map();
  try {
    const status = await handshake<DaemonStatus>(socket, { accord: 'status', version: agentVersion });
    return new Map(status.sessions.map((s) => [s.sessionId, { turnRunning: s.turnRunning, clients: s.clients, pendingPermissions: s.pendingPermissions }]));
  } finally {
    socket.destroy();
  }
}

/** Runs one core command; the caller exits with the status. UsageError propagates (the CLI prints usage). */
export async function runCommand(name: string, args: string[]): Promise<number> {
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command "${name}"`);
  // `acp` sets them after its first answer (serveAcp); the rest before they start work.
  if (name !== 'acp') applyAgentHeapFlags();
  return command(args);
}
