// ACP `terminal/*` over real VS Code terminals: each command runs as a child
// process whose output is both shown in a terminal (a Pseudoterminal) and
// captured under the agent's byte limit.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import {
  RequestError,
  type CreateTerminalRequest,
  type TerminalExitStatus,
  type TerminalOutputResponse,
} from '@agentclientprotocol/sdk/unstable';
import { OutputBuffer } from './outputBuffer';
import { agentLine, forIconLabel } from '../text/agentText';

interface RunningTerminal {
  sessionId: string;
  agentName: string;
  child: ChildProcess;
  output: OutputBuffer;
  exit: Promise<TerminalExitStatus>;
  exitStatus?: TerminalExitStatus;
  terminal: vscode.Terminal;
}

/** What the panel draws of a terminal: the end of its output and how it exited. */
export interface TerminalSnapshot {
  output: string;
  dropped: boolean;
  exit?: { exitCode: number | null; signal: string | null };
}

/** Commands one agent may have running at once: an agent opening terminal after terminal must not fill the machine. */
export const MAX_RUNNING_TERMINALS = 32;
/** Terminals one agent may hold unreleased; past it the oldest finished ones are let go (their VS Code terminals stay). */
export const MAX_KEPT_TERMINALS = 64;

/** The most output one snapshot carries (the panel keeps the same tail). */
export const SNAPSHOT_CHARS = 200_000;

export class TerminalService implements vscode.Disposable {
  private readonly terminals = new Map<string, RunningTerminal>();
  private readonly changeEmitter = new vscode.EventEmitter<{ terminalId: string; sessionId: string }>();
  /** A terminal's output grew or it exited (read it with `snapshot`). */
  readonly onDidChange = this.changeEmitter.event;

  /**
   * environmentFor: the environment an agent's commands start from (agents/agentEnv.ts): the
   * agent's own, never the extension host's whole environment and never Accord's stored keys.
   */
  constructor(
    private readonly defaultCwd: () => string | undefined,
    private readonly environmentFor: (agentName: string) => Record<string, string> = () => ({}),
  ) {}

  create(params: CreateTerminalRequest, agentName: string): { terminalId: string } {
    this.makeRoom(agentName);
    const terminalId = randomUUID();
    const cwd = params.cwd ?? this.defaultCwd();
    const env = { ...this.environmentFor(agentName), ...Object.fromEntries((params.env ?? []).map((e) => [e.name, e.value])) };
    // A lone command string with spaces is a shell line (several agents send them so); argv otherwise.
    const shellLine = (params.args ?? []).length === 0 && /\s/.test(params.command.trim());
    const child = spawn(params.command, params.args ?? [], {
      cwd, env, shell: shellLine, detached: process.platform !== 'win32', stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = new OutputBuffer(params.outputByteLimit ?? undefined);
    const writeEmitter = new vscode.EventEmitter<string>();
    const closeEmitter = new vscode.EventEmitter<number | void>();
    const pty: vscode.Pseudoterminal = {
      onDidWrite: writeEmitter.event,
      onDidClose: closeEmitter.event,
      // The agent's command line is text, never escape sequences (an OSC 8 link or a cursor move would be live here).
      open: () => writeEmitter.fire(`\x1b[2m$ ${agentLine([params.command, ...(params.args ?? [])].join(' '), 2000)}${cwd ? `   (in ${agentLine(cwd, 500)})` : ''}\x1b[0m\r\n`),
      close: () => killTree(child), // the person closed the terminal
    };
    const terminal = vscode.window.createTerminal({ name: `${forIconLabel(agentName, 40)}: ${forIconLabel(params.command, 60)}`, pty, isTransient: true });
    const onData = (chunk: Buffer) => {
      output.append(chunk);
      writeEmitter.fire(chunk.toString('utf8').replace(/\r?\n/g, '\r\n'));
      this.changeEmitter.fire({ terminalId, sessionId: params.sessionId });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    const exit = new Promise<TerminalExitStatus>((resolve) => {
      child.once('error', (error) => {
        onData(Buffer.from(`${error.message}\n`));
        resolve({ exitCode: 127, signal: null });
      });
      child.once('close', (code, signal) => resolve({ exitCode: code, signal: signal ?? null }));
    });
    const entry: RunningTerminal = { sessionId: params.sessionId, agentName, child, output, exit, terminal };
    void exit.then((status) => {
      entry.exitStatus = status;
      this.changeEmitter.fire({ terminalId, sessionId: params.sessionId });
      writeEmitter.fire(`\r\n\x1b[2m[exited${status.signal ? ` by ${status.signal}` : ` with code ${status.exitCode}`}]\x1b[0m\r\n`);
    });
    this.terminals.set(terminalId, entry);
    return { terminalId };
  }

  /** Whether the command ended (cheap: no output is read). */
  hasExited(terminalId: string): boolean {
    return this.terminals.get(terminalId)?.exitStatus !== undefined;
  }

  /** The terminal's output for the panel; undefined once released. */
  snapshot(terminalId: string): TerminalSnapshot | undefined {
    const t = this.terminals.get(terminalId);
    if (!t) return undefined;
    const text = t.output.text();
    const cut = text.length > SNAPSHOT_CHARS;
    return {
      output: cut ? text.slice(text.length - SNAPSHOT_CHARS) : text,
      dropped: cut || t.output.truncated,
      ...(t.exitStatus ? { exit: { exitCode: t.exitStatus.exitCode ?? null, signal: t.exitStatus.signal ?? null } } : {}),
    };
  }

  output(terminalId: string): TerminalOutputResponse {
    const t = this.get(terminalId);
    return { output: t.output.text(), truncated: t.output.truncated, ...(t.exitStatus ? { exitStatus: t.exitStatus } : {}) };
  }

  async waitForExit(terminalId: string, signal?: AbortSignal): Promise<TerminalExitStatus> {
    const t = this.get(terminalId);
    if (!signal) return t.exit;
    return Promise.race([t.exit, new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(RequestError.requestCancelled())))]);
  }

  kill(terminalId: string): Record<string, never> {
    killTree(this.get(terminalId).child);
    return {};
  }

  /** Kills the command if still running and forgets the id; the VS Code terminal stays for the person to read. */
  release(terminalId: string): Record<string, never> {
    const t = this.get(terminalId);
    if (!t.exitStatus) killTree(t.child);
    else this.changeEmitter.fire({ terminalId, sessionId: t.sessionId }); // the last state, before it is forgotten
    this.terminals.delete(terminalId);
    return {};
  }

  releaseSession(sessionId: string): void {
    for (const [id, t] of this.terminals) if (t.sessionId === sessionId) this.release(id);
  }

  /** The agent exited: nobody will read or release its terminals, so their commands stop now. */
  releaseAgent(agentName: string): void {
    for (const [id, t] of this.terminals) if (t.agentName === agentName) this.release(id);
  }

  dispose(): void {
    for (const id of [...this.terminals.keys()]) this.release(id);
    this.changeEmitter.dispose();
  }

  /** Refuses a command past MAX_RUNNING_TERMINALS running; lets the oldest finished terminals go past MAX_KEPT_TERMINALS. */
  private makeRoom(agentName: string): void {
    const own = [...this.terminals].filter(([, t]) => t.agentName === agentName);
    if (own.filter(([, t]) => t.exitStatus === undefined).length >= MAX_RUNNING_TERMINALS) {
      throw RequestError.invalidParams({}, `Accord runs at most ${MAX_RUNNING_TERMINALS} terminals at once for one agent; kill or release one first.`);
    }
    let kept = own.length;
    for (const [id, t] of own) {
      if (kept < MAX_KEPT_TERMINALS) break;
      if (t.exitStatus === undefined) continue;
      this.release(id);
      kept--;
    }
  }

  private get(terminalId: string): RunningTerminal {
    const t = this.terminals.get(terminalId);
    if (!t) throw RequestError.invalidParams({ terminalId }, `No terminal ${terminalId}: it was released or never created.`);
    return t;
  }
}

function killTree(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    if (process.platform !== 'win32') process.kill(-child.pid, 'SIGTERM');
    else child.kill();
  } catch {
    child.kill();
  }
}
