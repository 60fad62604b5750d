// `accord` CLI. `accord acp` serves ACP v1 on stdio; stdout carries protocol
// only, so every log goes to stderr (set up by the first import).
import './stderrConsole';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk/unstable';
import { guardLines, MAX_LINE_BYTES } from './acp/lineGuard';
import { createLoggedAgent } from './acp/sessionLog';
import { SessionWorkspaces } from './acp/workspaces';
import { DurableRequests } from './acp/durablePermissions';
import { ProcessRunner } from './exec/processRunner';
import { SessionStore } from './log';
import { sandboxHost } from './sandbox/sandboxHost';
import { runSessionsCli } from './log/cli';
import { login } from './login';
import { builtinTools } from './tools/index';

type Command = (args: string[]) => Promise<number>;

async function serveAcp(args: string[]): Promise<number> {
  const unknown = args.filter((a) => a !== '--always-approve' && a !== '--durable-requests');
  if (unknown.length > 0) {
    process.stderr.write(`accord acp: unknown option ${unknown.join(' ')}\n${usage}`);
    return 2;
  }
  // Every session is recorded in its log (ACCORD_HOME or the platform state dir) and can be loaded again;
  // its isolated workspace lives beside the log (<data dir>/sessions/<id>/).
  const logs = new SessionStore();
  // --always-approve is the person launching the agent deciding: every "ask" becomes allow; "deny" still applies.
  const isolation = new SessionWorkspaces({ dataDir: logs.dataDir, alwaysApprove: args.includes('--always-approve') });
  // --durable-requests: an approval question does not block the turn; it ends `waiting` and survives restarts.
  const durable = args.includes('--durable-requests') ? new DurableRequests() : undefined;
  const { app, closeLogs } = createLoggedAgent({ env: process.env, tools: builtinTools(), commands: new ProcessRunner(), isolation, ...(durable ? { durable } : {}) }, logs);
  // An oversized line is answered with an error instead of ending the connection (and every session on it).
  const stdio = guardLines(Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>, Writable.toWeb(process.stdout) as WritableStream<Uint8Array>);
  const stream = ndJsonStream(stdio.output, stdio.input, { maxMessageBytes: MAX_LINE_BYTES + 1 });
  // Logs synced and locks released, then the sandbox's proxies and socat
  // bridges stopped and waited for: exiting first would orphan them.
  const shutDown = async () => {
    await closeLogs();
    await isolation.releaseAll();
    await sandboxHost.settled();
  };
  // sandbox-runtime listens for SIGTERM/SIGINT itself, which would keep the process alive: end it here.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutDown().finally(() => process.exit(signal === 'SIGTERM' ? 143 : 130)));
  }
  await app.connect(stream).closed;
  await shutDown();
  return 0;
}

/** Subcommands by name: the hook where other parts plug in theirs (e.g. `sessions` from the session log). */
const commands: Record<string, Command> = {
  acp: (args) => serveAcp(args),
  login: (args) => login(args, process.env),
  sessions: (args) => runSessionsCli(args),
};

const usage = 'usage: accord acp [--always-approve] [--durable-requests] | accord login [anthropic|openai|openai-compatible] | accord sessions list|remove\n';

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(usage);
    process.exit(name ? 2 : 0);
  }
  try {
    process.exit(await command(args));
  } catch (error) {
    process.stderr.write(`accord ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

void main();
