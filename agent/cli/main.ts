// `accord`: the small entry (dist/agent.js). It parses the command line and
// either relays stdio to the daemon (the common case, kept light so an
// editor's agent starts fast) or loads the agent core (dist/agent-core.js)
// for everything that runs the agent in this process.
import { join } from 'node:path';
import { runBridge, cliVersion } from './bridge';
import { requireWithCompileCache } from './compileCache';
import { dataDirOf } from '../daemon/address';
import { daemonControl } from './control';
import { isUsageError, takeAgentOptions, takeFlag, takeValue, usage, UsageError } from './options';

interface Core {
  runCommand(name: string, args: string[]): Promise<number>;
}

/** The agent core, loaded only by commands that run the agent here (esbuild leaves this require alone). */
function core(): Core {
  // Compiled under V8's default flags: the core sets its own (heapFlags.ts) once the built-ins it needs first are loaded.
  return requireWithCompileCache(join(__dirname, 'agent-core.js'), join(dataDirOf(process.env), 'cache')) as Core;
}

async function acp(args: string[]): Promise<number> {
  const { options, rest } = takeAgentOptions(args);
  if (rest[0] === 'serve' || rest[0] === 'stdio') rest.shift();
  if (rest.length > 0) throw new UsageError(`unknown option ${rest.join(' ')}`);
  if (options.noDaemon) return core().runCommand('acp', args);
  return runBridge(options, __filename, (reason) => {
    process.stderr.write(`accord acp: the daemon cannot be used (${reason}); serving in this process instead.\n`);
    return core().runCommand('acp', [...args.filter((a) => a !== 'serve' && a !== 'stdio'), '--no-daemon']);
  });
}

/** `accord agent [options] stdio|serve|headless [...]`: the options go to whichever transport. */
async function agent(args: string[]): Promise<number> {
  const at = args.findIndex((a) => a === 'stdio' || a === 'serve' || a === 'headless');
  if (at === -1) throw new UsageError('accord agent needs a transport: stdio, serve or headless.');
  const transport = args[at]!;
  const rest = [...args.slice(0, at), ...args.slice(at + 1)];
  if (transport === 'stdio') return acp(rest);
  return core().runCommand(transport, rest);
}

async function daemon(args: string[]): Promise<number> {
  if (args[0] === 'status' || args[0] === 'stop') {
    const rest = args.slice(1);
    const listen = takeValue(rest, '--listen') ?? takeValue(rest, '--daemon');
    const json = takeFlag(rest, '--json');
    if (rest.length > 0) throw new UsageError(`unknown option ${rest.join(' ')}`);
    return daemonControl(args[0], listen, json);
  }
  return core().runCommand('daemon', args);
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${cliVersion}\n`);
    return 0;
  }
  if (name === '-p' || name === '--print' || name.startsWith('--print=')) return core().runCommand('print', argv);
  switch (name) {
    case 'acp':
      return acp(args);
    case 'agent':
      return agent(args);
    case 'serve':
      return core().runCommand('serve', args);
    case 'daemon':
      return daemon(args);
    case 'sessions':
    case 'login':
      return core().runCommand(name, args);
    default:
      throw new UsageError(`unknown command "${name}"`);
  }
}

/** Exits once stdout has drained: a bridge's last relayed bytes must reach the client. */
const exit = (code: number) => process.stdout.write('', () => process.exit(code));

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  if (isUsageError(error)) {
    process.stderr.write(`accord: ${error.message}\n\n${usage}`);
    exit(2);
    return;
  }
  process.stderr.write(`accord: ${error instanceof Error ? error.message : String(error)}\n`);
  exit(1);
});
