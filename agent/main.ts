// `accord` CLI. `accord acp` serves ACP v1 on stdio; stdout carries protocol
// only, so every log goes to stderr (set up by the first import).
import './stderrConsole';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { createLoggedAgent } from './acp/sessionLog';
import { ProcessRunner } from './exec/processRunner';
import { runSessionsCli } from './log/cli';
import { login } from './login';
import { builtinTools } from './tools/index';

type Command = (args: string[]) => Promise<number>;

async function serveAcp(): Promise<number> {
  // Every session is recorded in its log (ACCORD_HOME or the platform state dir) and can be loaded again.
  const { app, closeLogs } = createLoggedAgent({ env: process.env, tools: builtinTools(), commands: new ProcessRunner() });
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  await app.connect(stream).closed;
  await closeLogs();
  return 0;
}

/** Subcommands by name: the hook where other parts plug in theirs (e.g. `sessions` from the session log). */
const commands: Record<string, Command> = {
  acp: () => serveAcp(),
  login: (args) => login(args, process.env),
  sessions: (args) => runSessionsCli(args),
};

const usage = 'usage: accord acp | accord login [anthropic|openai|openai-compatible] | accord sessions list|remove\n';

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
