// A bare JSON-RPC line client for the benches: no SDK and no validation on
// the measuring side, so the numbers are the agent's, not the client's.
import type { Readable, Writable } from 'node:stream';

/** An agent's process (or the extension's in-process link to the daemon, extension/agents/daemonLink.ts). */
interface Child {
  readonly stdin: Writable;
  readonly stdout: Readable;
  once(event: 'close', listener: () => void): unknown;
  kill(signal?: NodeJS.Signals): boolean;
}

export interface RawConnection {
  request(method: string, params: unknown): Promise<unknown>;
  /** Called with each session/update's `update`. */
  onUpdate: (update: { sessionUpdate: string }) => void;
  /** Ends stdin (an editor closing) and waits for the process to exit, killing it if it lingers. */
  close(): Promise<void>;
}

export function rawConnection(child: Child): RawConnection {
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let buffered = '';
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const connection: RawConnection = {
    onUpdate: () => undefined,
    request(method, params) {
      const id = nextId++;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  child.stdout.on('data', (bytes: Buffer) => {
    buffered += bytes.toString('utf8');
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line) as { id?: number; method?: string; params?: { update: { sessionUpdate: string } }; result?: unknown; error?: { message: string } };
      if (message.method === 'session/update') connection.onUpdate(message.params!.update);
      else if (message.id !== undefined && !message.method) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(message.error.message));
        else waiter?.resolve(message.result);
      }
    }
  });
  void exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error('the agent exited'));
    pending.clear();
  });
  return connection;
}
