// A one-shot socket for a client that cannot say hello on the connection it
// relays: dist/accord (a shell) ends as `socat STDIO UNIX-CONNECT:<path>`,
// and socat only relays bytes. The launcher says hello on a short first
// connection; the daemon answers with the path of one of these and serves
// the one connection made there as if the hello had come on it.
import { randomBytes } from 'node:crypto';
import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

/** How long a hand-off waits for its one connection (the launcher connects within milliseconds). */
export const HANDOFF_TTL_MS = 10_000;

/** The launcher checks the path it is given against exactly this shape (agent/cli/accord.sh). */
export const handoffName = (token: string) => `handoff-${token}.sock`;

/** sun_path is 108 bytes on Linux: a longer path is not offered (the client takes its Node bridge). */
const MAX_SOCKET_PATH = 100;

export interface Handoff {
  path: string;
  /** The one connection, or undefined once the hand-off expired or was closed without one. */
  readonly taken: Promise<Socket | undefined>;
  /** Stops listening and removes the path (idempotent). */
  close(): void;
}

/**
 * Listens on a fresh, unguessable path (128 random bits) inside `dir`, the
 * daemon's private 0700 directory, with mode 0600 from the start. The first
 * connection is handed over and the listener closed and unlinked at once, so
 * a second connection (a replay, a race) finds nothing; so does one after
 * `ttlMs`. Resolves undefined when the path would be too long for a socket.
 */
export async function openHandoff(dir: string, ttlMs = HANDOFF_TTL_MS): Promise<Handoff | undefined> {
  const path = join(dir, handoffName(randomBytes(16).toString('hex')));
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) return undefined;
  let settle!: (socket: Socket | undefined) => void;
  const taken = new Promise<Socket | undefined>((resolve) => (settle = resolve));
  let closed = false;
  const server: Server = createServer({ pauseOnConnect: true }, (socket) => {
    // Connections already accepted in the same turn of the loop as the first get nothing.
    if (closed) {
      socket.destroy();
      return;
    }
    settle(socket);
    close();
  });
  const timer = setTimeout(() => close(), ttlMs);
  function close(): void {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    server.close();
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
    settle(undefined);
  }
  // bind() runs synchronously inside listen() for a path, so the umask is back before anything else of the daemon runs.
  const umask = process.umask(0o177);
  try {
    server.listen(path);
  } finally {
    process.umask(umask);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.once('listening', () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o600);
  } catch {
    close();
    return undefined;
  }
  return { path, taken, close };
}
