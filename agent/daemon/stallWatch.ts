// A client that stops reading (a frozen editor window, a suspended `accord
// acp`, a hostile local process) must not hold the others: every client of a
// session is sent each update before the next one goes out, so one socket
// that never drains would stop the session's stream, and with it every other
// client's turn. The daemon lets such a connection go; the client, if it comes
// back, loads the session again and misses nothing.
import type { Socket } from 'node:net';

/** How long a connection may have output waiting while taking none of it. */
export const CLIENT_STALL_MS = 30_000;

/**
 * Calls `onStalled` once `socket` has had output waiting and taken none of
 * it (no byte reached the kernel) for `limitMs`. A slow client that reads at
 * all is never let go; an idle one (nothing waiting) never either.
 */
export function watchForStall(socket: Socket, limitMs: number, onStalled: () => void): void {
  // bytesWritten counts what is still buffered too; less the buffer, it is what the kernel took.
  const taken = () => socket.bytesWritten - socket.writableLength;
  let last = taken();
  let stuckSince: number | undefined;
  const timer = setInterval(
    () => {
      const now = taken();
      if (socket.writableLength === 0 || now !== last) {
        last = now;
        stuckSince = undefined;
        return;
      }
      stuckSince ??= Date.now();
      if (Date.now() - stuckSince < limitMs) return;
      clearInterval(timer);
      onStalled();
    },
    Math.max(10, Math.min(1_000, Math.floor(limitMs / 4))),
  );
  timer.unref();
  socket.once('close', () => clearInterval(timer));
}
