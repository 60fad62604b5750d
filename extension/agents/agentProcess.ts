// Runs the agent as a child process and speaks ACP to it over its stdio.
// The bundled agent runs on VS Code's own runtime (process.execPath with
// ELECTRON_RUN_AS_NODE=1), so users need no separate Node install.
import { Readable, Writable } from 'node:stream';
import * as vscode from 'vscode';
import {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientApp,
  type ClientCapabilities,
  type ClientConnection,
  type InitializeResponse,
  type Stream,
} from '@agentclientprotocol/sdk/unstable';
import type { AgentStatus } from '../../webview/protocol';
import { forLog } from '../text/agentText';
import { startupMark } from '../startup/startupMarks';
import { spawnAgent, type AgentChild, type AgentCommand } from './agentCommand';
import type { EarlyAgent } from '../startup/earlyAgent';

// Where they were defined before agentCommand.ts: callers keep importing them from here.
export { bundledAgentCommand, type AgentCommand } from './agentCommand';

export interface AgentProcessOptions {
  agent: AgentCommand;
  /** Receives the agent's stderr, line by line. */
  log: vscode.LogOutputChannel;
  /** Registers client-side ACP handlers (permissions, session updates...) on the app before it connects. */
  configureClient?: (app: ClientApp) => ClientApp;
  /** What this client serves to the agent; advertise only what the registered handlers really do. */
  clientCapabilities?: ClientCapabilities;
  /** Wraps the message stream, e.g. to record the ACP traffic log. */
  tapStream?: (stream: Stream) => Stream;
  /** How long the agent has to answer `initialize` before Accord gives up on it. */
  initializeTimeoutMs?: number;
  /** The process extension.ts already started with this very command: use it instead of starting one. */
  adopt?: EarlyAgent;
}

/** Long enough for an agent fetched by npx on a slow network; an agent that takes longer is told it did not answer. */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 90_000;

export interface StartFailure {
  /** 'start': the program could not be run; 'initialize': it ran but never became a working ACP agent. */
  stage: 'start' | 'initialize';
  message: string;
}

/**
 * One agent process and its ACP connection. `start()` spawns and initializes;
 * `onDidExit` fires when the process ends, which is where a restart policy
 * hooks in (this class never restarts by itself).
 */
export class AgentProcess implements vscode.Disposable {
  private child: AgentChild | undefined;
  private connectionValue: ClientConnection | undefined;
  private statusValue: AgentStatus = { state: 'stopped' };
  private initializeResult: InitializeResponse | undefined;
  private failureValue: StartFailure | undefined;
  private readonly statusEmitter = new vscode.EventEmitter<AgentStatus>();
  private readonly exitEmitter = new vscode.EventEmitter<{ code: number | null; signal: NodeJS.Signals | null }>();
  readonly onDidChangeStatus = this.statusEmitter.event;
  readonly onDidExit = this.exitEmitter.event;

  constructor(private readonly options: AgentProcessOptions) {}

  get status(): AgentStatus {
    return this.statusValue;
  }

  /** The agent's `initialize` answer, once connected. */
  get agentInfo(): InitializeResponse | undefined {
    return this.initializeResult;
  }

  /** Why start() failed, when it did. */
  get failure(): StartFailure | undefined {
    return this.failureValue;
  }

  /** True once `initialize` was answered (an agent that never got there is not restarted: it would fail again). */
  get everConnected(): boolean {
    return this.initializeResult !== undefined;
  }

  /** True when this is the process extension.ts started while the extension loaded (options.adopt). */
  get adopted(): boolean {
    return this.options.adopt !== undefined;
  }

  /** The live ACP connection, once connected. */
  get connection(): ClientConnection | undefined {
    return this.connectionValue;
  }

  async start(): Promise<void> {
    if (this.child) return;
    const { agent } = this.options;
    const log = lateSafe(this.options.log);
    this.setStatus({ state: 'starting' });
    const early = this.options.adopt;
    log.info(`starting agent: ${agent.command} ${agent.args.join(' ')}${early ? ' (started while the extension loaded)' : ''}`);

    const child = early?.child ?? spawnAgent(agent);
    this.child = child;
    startupMark(early ? 'agent adopted' : 'agent spawned');
    const lastStderr: string[] = [];
    pipeLines(child.stderr!, (line) => {
      log.info(`[agent] ${forLog(line)}`);
      lastStderr.push(line.slice(0, 500));
      if (lastStderr.length > 3) lastStderr.shift();
    }, early?.takeStderr() ?? '');
    // An adopted process may have failed or ended already: its events are gone, what they said was kept.
    const earlyError = early?.error();
    const earlyExit = early?.exit();
    const spawnFailed = new Promise<Error>((resolve) => (earlyError ? resolve(earlyError) : child.once('error', resolve)));
    const onceExited = (listener: (code: number | null, signal: NodeJS.Signals | null) => void) => {
      if (earlyExit) setTimeout(() => listener(earlyExit.code, earlyExit.signal), 0);
      else child.once('exit', listener);
    };
    const exitedEarly = new Promise<Error>((resolve) => onceExited((code, signal) =>
      resolve(new Error(`the agent exited (${signal ? `signal ${signal}` : `code ${code}`}) before answering initialize`))));
    onceExited((code, signal) => {
      this.child = undefined;
      this.connectionValue?.close();
      this.connectionValue = undefined;
      log.warn(`agent exited (code ${code}, signal ${signal})`);
      // Before initialize was answered, start() reports why (with the exit code); afterwards, this is a stop.
      if (this.statusValue.state !== 'error' && this.everConnected) {
        this.setStatus({ state: 'stopped', message: `The agent stopped (exit code ${code ?? signal}).` });
      }
      this.exitEmitter.fire({ code, signal });
    });

    const app = (this.options.configureClient ?? ((a) => a))(client({ name: 'accord-vscode' }));
    const rawStream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    );
    const stream = this.options.tapStream ? this.options.tapStream(rawStream) : rawStream;
    const connection = app.connect(stream);
    this.connectionValue = connection;
    const limitMs = this.options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<Error>((resolve) => {
      timer = setTimeout(() => resolve(new Error(`the agent did not answer initialize within ${Math.round(limitMs / 1000)} s`)), limitMs);
    });
    let stage: StartFailure['stage'] = 'initialize';
    try {
      // An adopted process that already failed: its streams are gone, so say why without asking it anything.
      if (earlyError) {
        stage = 'start';
        throw earlyError;
      }
      if (earlyExit) throw await exitedEarly;
      const result = await Promise.race([
        connection.agent.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: this.options.clientCapabilities ?? {},
          clientInfo: { name: 'accord-vscode', title: 'Accord for VS Code', version: ACCORD_VERSION },
        }),
        spawnFailed.then((error) => {
          stage = 'start';
          return Promise.reject(error);
        }),
        exitedEarly.then((error) => Promise.reject(error)),
        timedOut.then((error) => Promise.reject(error)),
      ]);
      if (result.protocolVersion !== PROTOCOL_VERSION) {
        throw new Error(`the agent speaks ACP version ${result.protocolVersion}; Accord speaks ${PROTOCOL_VERSION}`);
      }
      this.initializeResult = result;
      startupMark('initialize answered');
      const info = result.agentInfo;
      log.info(forLog(`connected to ${info?.name ?? 'agent'} ${info?.version ?? ''}`.trim()));
      this.setStatus({ state: 'connected', agentName: info?.title ?? info?.name ?? 'agent', agentVersion: info?.version });
    } catch (error) {
      let reason = error instanceof Error ? error.message : String(error);
      if (stage === 'initialize' && !reason.includes('initialize within')) {
        // The connection usually closes a moment before the exit is reported: wait for it, to say how the agent ended.
        const exit = await Promise.race([exitedEarly, new Promise<undefined>((r) => setTimeout(() => r(undefined), 2000))]);
        if (exit) reason = exit.message;
      }
      // What an agent that refuses to start prints is the most useful thing to show: read its stderr to the end (bounded) first.
      const stderr = child.stderr;
      if (stage === 'initialize' && stderr && !stderr.readableEnded && (child.exitCode !== null || child.signalCode !== null)) {
        await Promise.race([new Promise((r) => stderr.once('end', r)), new Promise((r) => setTimeout(r, 2000))]);
      }
      if (lastStderr.length > 0) reason += `. Its last output: ${lastStderr.join(' / ')}`;
      this.failureValue = { stage, message: reason };
      const message = `Could not start the agent: ${reason}. See "Accord: Show Agent Log".`;
      log.error(forLog(message));
      this.setStatus({ state: 'error', message });
      this.stop();
    } finally {
      clearTimeout(timer);
    }
  }

  /** Restricted workspaces do not start agents: an agent reads and changes files and runs commands. */
  markUntrusted(): void {
    this.setStatus({ state: 'untrusted', message: 'Trust this workspace to start the agent.' });
  }

  stop(): void {
    this.connectionValue?.close();
    this.child?.kill();
  }

  dispose(): void {
    this.stop();
    this.statusEmitter.dispose();
    this.exitEmitter.dispose();
  }

  private setStatus(status: AgentStatus): void {
    this.statusValue = status;
    this.statusEmitter.fire(status);
  }
}

/** `already`: what was read from the stream before (an adopted process's first output), handled first. */
function pipeLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void, already = ''): void {
  let pending = '';
  if (already) {
    const lines = already.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) onLine(line);
  }
  stream.setEncoding('utf8');
  stream.resume(); // paused by an early start that kept its limit
  stream.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) onLine(line);
  });
  stream.on('end', () => {
    if (pending.trim()) onLine(pending);
  });
}

/**
 * The agent exits (and may still print) after its host closed the log channel
 * on purpose; those late lines are dropped instead of throwing "Channel has
 * been closed" into the extension host.
 */
function lateSafe(log: Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'error'>): Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'error'> {
  const safe = (write: (message: string) => void) => (message: string) => {
    try {
      write(message);
    } catch {
      // the channel is closed: nobody can read this line any more
    }
  };
  return { info: safe((m) => log.info(m)), warn: safe((m) => log.warn(m)), error: safe((m) => log.error(m)) };
}
