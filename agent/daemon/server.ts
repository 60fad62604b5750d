// `accord daemon`: the one process per user (per data directory) that owns
// the sessions. Clients reach it over a private Unix socket (0600 in a 0700
// directory: only this user can connect); each connection says hello, then
// speaks ACP. An exclusive lock makes concurrent starts leave one daemon.
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { acpStream } from '../acp/messageOutput';
import { guardLines, MAX_LINE_BYTES } from '../acp/lineGuard';
import { LogLockedError } from '../log';
import { acquireLock } from '../log/lock';
import { SANDBOX_WARM_MS, sandboxHost } from '../sandbox/sandboxHost';
import { addressAt, checkSocketPath, defaultDaemonAddress, ensurePrivateDir, type DaemonAddress } from './address';
import { openHandoff, type Handoff } from './handoff';
import { parseJsonLine, readFirstLine, type DaemonStatus, type Hello, type Welcome } from './handshake';
import { CLIENT_STALL_MS, watchForStall } from './stallWatch';
import { agentVersion as version, SessionHost } from './host';
import { parseDuration, takeValue, UsageError } from '../cli/options';

const DEFAULT_IDLE_EXIT_MS = 10 * 60_000;

type HelloLine = Extract<Hello, { accord: 'hello' }>;

export async function runDaemon(args: string[]): Promise<number> {
  const rest = [...args];
  const listen = takeValue(rest, '--listen');
  const idleText = takeValue(rest, '--idle-exit') ?? process.env.ACCORD_DAEMON_IDLE_EXIT;
  const stallText = takeValue(rest, '--client-stall');
  if (rest.length > 0) throw new UsageError(`unknown option ${rest.join(' ')}`);
  const idleExitMs = idleText === undefined ? DEFAULT_IDLE_EXIT_MS : parseDuration(idleText);
  const clientStallMs = stallText === undefined ? CLIENT_STALL_MS : parseDuration(stallText);
  const address = listen ? addressAt(listen) : defaultDaemonAddress();
  ensurePrivateDir(address);
  // Sessions come and go all day: srt's proxies stay up between them (shutdown stops them).
  sandboxHost.keepWarm(SANDBOX_WARM_MS);

  let lock;
  try {
    lock = acquireLock(address.lockPath);
  } catch (error) {
    if (error instanceof LogLockedError) {
      // Lost a start race (or one is already running): the winner serves everyone.
      console.error(`accord daemon: another daemon already serves ${address.path}.`);
      return 0;
    }
    throw error;
  }
  const daemon = new Daemon(address, idleExitMs, clientStallMs);
  try {
    await daemon.listen();
  } catch (error) {
    lock.release();
    throw error;
  }
  const code = await daemon.finished;
  lock.release();
  return code;
}

class Daemon {
  private readonly server: Server;
  private readonly host = new SessionHost(() => this.checkIdle());
  private readonly startedAt = new Date().toISOString();
  private idleTimer: NodeJS.Timeout | undefined;
  /** A bridge of another version asked: exit as soon as idle, so the next bridge starts its own. */
  private retiring = false;
  private stopping = false;
  /** One-shot sockets offered to launchers (dist/accord) and not yet connected to. */
  private readonly handoffs = new Set<Handoff>();
  private done!: (code: number) => void;
  readonly finished = new Promise<number>((resolve) => (this.done = resolve));

  constructor(
    private readonly address: DaemonAddress,
    private readonly idleExitMs: number | null,
    private readonly clientStallMs: number | null = CLIENT_STALL_MS,
  ) {
    this.server = createServer((socket) => void this.accept(socket));
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void this.stop(signal === 'SIGTERM' ? 143 : 130));
    process.on('unhandledRejection', (reason) => console.error(`accord daemon: unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}`));
  }

  async listen(): Promise<void> {
    const { path } = this.address;
    if (!path.startsWith('\\\\') && lstatSync(path, { throwIfNoEntry: false })) {
      // We hold the lock, so whatever socket is there was left by a dead daemon (checked to be ours first).
      checkSocketPath(this.address);
      unlinkSync(path);
    }
    // The socket is created 0600 from the start (umask), not chmod-ed after a window where others could connect.
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(path, () => {
          this.server.off('error', reject);
          resolve();
        });
      });
    } finally {
      process.umask(umask);
    }
    if (!path.startsWith('\\\\')) chmodSync(path, 0o600);
    console.error(`accord daemon ${version} (pid ${process.pid}) listening on ${path}`);
    this.checkIdle();
  }

  private async accept(socket: Socket): Promise<void> {
    socket.on('error', () => undefined);
    let hello: Hello | undefined;
    const timer = setTimeout(() => socket.destroy(), 30_000);
    try {
      hello = parseJsonLine<Hello>(await readFirstLine(socket));
    } catch {
      socket.destroy();
      return;
    } finally {
      clearTimeout(timer);
    }
    if (!hello || typeof hello.accord !== 'string') {
      socket.end(`${JSON.stringify({ accord: 'error', error: 'expected a hello line first' })}\n`);
      return;
    }
    if (this.stopping) {
      socket.end(`${JSON.stringify({ accord: 'error', error: 'the daemon is stopping; try again' })}\n`);
      return;
    }
    if (hello.accord === 'status') {
      socket.end(`${JSON.stringify(this.status())}\n`);
      return;
    }
    if (hello.accord === 'stop') {
      socket.write(`${JSON.stringify({ accord: 'stopping', pid: process.pid })}\n`);
      await this.stop(0);
      socket.end();
      return;
    }
    if (hello.accord !== 'hello') {
      socket.end(`${JSON.stringify({ accord: 'error', error: `unknown first line "${String((hello as { accord: unknown }).accord).slice(0, 40)}"` })}\n`);
      return;
    }
    if (hello.handoff === true) {
      await this.handOff(socket, hello);
      return;
    }
    if (hello.version !== version && !this.retiring) {
      this.retiring = true;
      console.error(`accord daemon: a bridge of version ${String(hello.version).slice(0, 40)} connected; this daemon (${version}) exits once idle.`);
    }
    this.serve(socket, hello);
  }

  private serve(socket: Socket, hello: HelloLine): void {
    clearTimeout(this.idleTimer);
    const welcome: Welcome = { accord: 'welcome', version, pid: process.pid, ...(this.retiring ? { retiring: true } : {}) };
    socket.write(`${JSON.stringify(welcome)}\n`);
    this.serveAcp(socket, hello);
  }

  /**
   * A launcher (dist/accord) asks for a one-shot socket: it relays with socat, which cannot
   * say hello first. Only a launcher of this very version gets one; any other gets a plain
   * welcome without a path and runs the Node bridge, which handles versions as always.
   */
  private async handOff(socket: Socket, hello: HelloLine): Promise<void> {
    const plain: Welcome = { accord: 'welcome', version, pid: process.pid };
    const handoff = hello.version === version && !this.retiring ? await openHandoff(this.address.dir) : undefined;
    if (!handoff || this.stopping) {
      handoff?.close();
      socket.end(`${JSON.stringify(plain)}\n`);
      return;
    }
    clearTimeout(this.idleTimer);
    this.handoffs.add(handoff);
    // Fixed key order: the launcher matches this line with a strict pattern, never parses it as code.
    socket.end(`${JSON.stringify({ ...plain, handoff: handoff.path })}\n`);
    const relayed = await handoff.taken;
    this.handoffs.delete(handoff);
    if (!relayed || this.stopping) {
      relayed?.destroy();
      this.checkIdle();
      return;
    }
    relayed.on('error', () => undefined);
    this.serveAcp(relayed, hello);
    relayed.resume();
  }

  private serveAcp(socket: Socket, hello: HelloLine): void {
    const stallMs = this.clientStallMs;
    if (stallMs !== null) {
      watchForStall(socket, stallMs, () => {
        console.error(`accord daemon: a client took none of its output for ${Math.round(stallMs / 1000)} s; letting it go so the other clients of its sessions go on.`);
        socket.destroy();
      });
    }
    // As on stdio: an oversized line is answered with an error instead of ending the connection.
    const lines = guardLines(Readable.toWeb(socket) as ReadableStream<Uint8Array>, Writable.toWeb(socket) as WritableStream<Uint8Array>);
    const stream = acpStream(lines, MAX_LINE_BYTES + 1);
    void this.host.serve(stream, hello.flags ?? {}).finally(() => socket.destroy());
  }

  status(): DaemonStatus {
    return {
      accord: 'status',
      version,
      pid: process.pid,
      startedAt: this.startedAt,
      clients: this.host.hub.connections.size,
      sessions: this.host.hub.status(),
      idleExitMs: this.idleExitMs,
      retiring: this.retiring,
    };
  }

  private checkIdle(): void {
    clearTimeout(this.idleTimer);
    if (this.stopping || this.host.hub.busy || this.handoffs.size > 0) return;
    if (this.retiring) {
      void this.stop(0);
      return;
    }
    if (this.idleExitMs === null) return;
    this.idleTimer = setTimeout(() => {
      if (!this.host.hub.busy) {
        console.error(`accord daemon: idle for ${Math.round(this.idleExitMs! / 1000)} s; exiting.`);
        void this.stop(0);
      }
    }, this.idleExitMs);
  }

  /** Stops accepting, ends running turns (recorded as cancelled), closes every log, then exits. */
  async stop(code: number): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearTimeout(this.idleTimer);
    this.server.close();
    for (const handoff of this.handoffs) handoff.close();
    await this.host.shutdown();
    this.done(code);
  }
}
