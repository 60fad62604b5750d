// The bundled agent with the daemon on, without a bridge process. The
// extension host is Node already, so it does here what `accord acp`
// (agent/cli/bridge.ts) did in a process of its own (~41 MB RSS, issue 17):
// the same socket checks, the same race-safe start of the daemon, the same
// hello/welcome, then ACP on the socket. To AgentProcess it looks like the
// bridge's process: stdin/stdout carry ACP, stderr says what the bridge
// would have printed, and 'exit' comes with the bridge's status (0 when the
// client ended, 1 when the daemon closed the connection or could not be
// trusted). When the daemon cannot be used at all, it runs the agent in a
// process of its own (`acp --no-daemon`), as the bridge would have served it.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { addressAt, dataDirOf, defaultDaemonAddress, homeAndTmpOf, UnsafeSocketError, type DaemonAddress } from '../../agent/daemon/address';
import { connectOrStart, handshake, WELCOME_TIMEOUT_MS } from '../../agent/daemon/connect';
import { forwardedEnv, type Welcome } from '../../agent/daemon/handshake';
import { connectionFlags, takeAgentOptions } from '../../agent/cli/options';

/** What AgentProcess needs of an agent's process: a ChildProcess is one, and so is a DaemonLink. */
export interface AgentChild {
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  kill(signal?: NodeJS.Signals): boolean;
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'error', listener: (error: Error) => void): this;
}

/** The command line of the bundled agent a DaemonLink stands in for: `<runtime> <cli> acp [agent options]`. */
export interface LinkCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface LinkOptions {
  /** The version said in the hello (default: the extension's, which is the bundled agent's). */
  version?: string;
  /** How long a listener has to answer the hello; one that says nothing is not a daemon. */
  welcomeTimeoutMs?: number;
  /** How long a started daemon has to listen. */
  startTimeoutMs?: number;
}

declare const ACCORD_VERSION: string;
const extensionVersion = typeof ACCORD_VERSION === 'string' ? ACCORD_VERSION : '0.0.0-dev';

export class DaemonLink extends EventEmitter implements AgentChild {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  /** The daemon's pid from its welcome (never signalled from here: the daemon outlives this client). */
  daemonPid: number | undefined;
  private socket: Socket | undefined;
  private fallback: ChildProcess | undefined;
  private killedBy: NodeJS.Signals | undefined;
  private ended = false;

  constructor(private readonly agent: LinkCommand, private readonly options: LinkOptions = {}) {
    super();
    const [cliPath, verb, ...rest] = agent.args;
    if (cliPath === undefined || verb !== 'acp') throw new Error(`a daemon link stands in for "<cli> acp [options]", not ${agent.args.join(' ')}`);
    this.run(cliPath, rest).catch((error: unknown) => {
      this.say(`accord acp: ${error instanceof Error ? error.message : String(error)}`);
      this.finish(1, null);
    });
  }

  /** Like ChildProcess.kill: the connection is dropped (the daemon and its sessions carry on) and 'exit' follows with the signal. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.fallback) return this.fallback.kill(signal);
    if (this.ended || this.killedBy) return false;
    this.killedBy = signal;
    // With an error, so a hello still waiting for its answer settles (and is ignored: killedBy is set).
    this.socket?.destroy(new Error('the connection was closed by its client'));
    setImmediate(() => this.finish(null, signal));
    return true;
  }

  private async run(cliPath: string, agentArgs: string[]): Promise<void> {
    const { options, rest } = takeAgentOptions(agentArgs.filter((a) => a !== 'serve' && a !== 'stdio'));
    if (rest.length > 0) throw new Error(`unknown option ${rest.join(' ')}`);
    const env = this.agent.env;
    const { home, tmp } = homeAndTmpOf(env);
    const address: DaemonAddress = options.daemon ? addressAt(options.daemon) : defaultDaemonAddress(env, process.platform, home, tmp);
    let socket: Socket;
    try {
      socket = await connectOrStart(address, {
        cliPath,
        explicit: Boolean(options.daemon),
        logPath: join(dataDirOf(env, process.platform, home), 'daemon.log'),
        env,
        cwd: this.agent.cwd,
        timeoutMs: this.options.startTimeoutMs,
      });
    } catch (error) {
      if (this.killedBy) return;
      // A planted or foreign socket is refused outright: falling back would hide it.
      if (error instanceof UnsafeSocketError) {
        this.say(`accord acp: refusing the daemon socket: ${error.message}`);
        this.finish(1, null);
        return;
      }
      this.say(`accord acp: the daemon cannot be used (${error instanceof Error ? error.message : String(error)}); serving in a process of its own instead.`);
      this.serveAlone(cliPath, agentArgs);
      return;
    }
    if (this.killedBy) {
      socket.destroy();
      return;
    }
    this.socket = socket;
    const version = env.ACCORD_BRIDGE_VERSION_FOR_TESTS ?? this.options.version ?? extensionVersion;
    // The client's first message (initialize) goes out right behind the hello, as the bridge sends it: one round trip less.
    const welcomed = handshake<Welcome>(socket, {
      accord: 'hello',
      version,
      flags: { ...connectionFlags({ ...options, project: options.project ?? this.agent.cwd ?? process.cwd() }), env: forwardedEnv(env) },
    }, this.options.welcomeTimeoutMs ?? WELCOME_TIMEOUT_MS);
    let inputEnded = false;
    // A client that destroys stdin instead of ending it has ended it too (a process would read EOF).
    const endInput = () => {
      if (inputEnded) return;
      inputEnded = true;
      socket.end();
    };
    this.stdin.once('end', endInput);
    this.stdin.once('close', endInput);
    this.stdin.pipe(socket, { end: false });
    let welcome: Welcome;
    try {
      welcome = await welcomed;
    } catch (error) {
      socket.destroy();
      if (this.killedBy) return;
      this.say(`accord acp: no welcome from the daemon at ${address.path}: ${error instanceof Error ? error.message : String(error)}`);
      this.finish(1, null);
      return;
    }
    this.daemonPid = typeof welcome.pid === 'number' ? welcome.pid : undefined;
    if (welcome.version !== version) {
      this.say(
        `accord acp: the running daemon is version ${String(welcome.version)}, this extension is ${version}. ` +
          'This connection uses it as it is; the daemon restarts with this version once it is idle (no clients, no running turn).',
      );
    }
    socket.pipe(this.stdout, { end: false });
    // A client that stopped reading (its stdout destroyed) unpipes and so pauses the socket: keep it
    // flowing into nothing, or the daemon's end of the connection is never read and 'exit' never comes.
    this.stdout.once('close', () => {
      socket.unpipe(this.stdout);
      socket.resume();
    });
    socket.resume();
    socket.on('error', () => undefined); // reported on close below
    socket.on('close', () => {
      if (this.killedBy) return;
      if (!inputEnded) this.say('accord acp: the daemon closed the connection.');
      this.finish(inputEnded ? 0 : 1, null);
    });
  }

  /** The bridge's fallback: the agent in a process of its own, relayed through this link's streams. */
  private serveAlone(cliPath: string, agentArgs: string[]): void {
    const args = [cliPath, 'acp', ...agentArgs.filter((a) => a !== 'serve' && a !== 'stdio'), '--no-daemon'];
    const child = spawn(this.agent.command, args, { cwd: this.agent.cwd, env: this.agent.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.fallback = child;
    this.stdin.pipe(child.stdin);
    child.stdin.on('error', () => undefined); // a process that died: its exit is reported
    child.stdout.pipe(this.stdout);
    child.stderr.pipe(this.stderr, { end: false });
    child.once('error', (error) => {
      this.emit('error', error);
      this.finish(null, null);
    });
    child.once('close', (code, signal) => this.finish(code, signal));
  }

  private say(line: string): void {
    if (!this.stderr.writableEnded) this.stderr.write(`${line}\n`);
  }

  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.ended) return;
    this.ended = true;
    this.exitCode = code;
    this.signalCode = signal;
    this.stdout.end();
    this.stderr.end();
    this.emit('exit', code, signal);
    this.emit('close', code, signal);
  }
}
