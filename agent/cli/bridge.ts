// `accord acp`: ACP on stdin/stdout, relayed byte for byte to the daemon,
// which owns the sessions. The bridge understands nothing of ACP; it says
// hello, reports a version mismatch, and ends when either side does.
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { addressAt, dataDirOf, defaultDaemonAddress, UnsafeSocketError } from '../daemon/address';
import { connectOrStart, handshake, WELCOME_TIMEOUT_MS } from '../daemon/connect';
import { forwardedEnv } from '../daemon/handshake';
import { connectionFlags, type AgentOptions } from './options';

declare const ACCORD_VERSION: string;
export const cliVersion = typeof ACCORD_VERSION === 'string' ? ACCORD_VERSION : '0.0.0-dev';

/** What the bridge does when the daemon cannot be used: serve in this process. */
export type Fallback = (reason: string) => Promise<number>;

export async function runBridge(options: AgentOptions, cliPath: string, fallback: Fallback): Promise<number> {
  const address = options.daemon ? addressAt(options.daemon) : defaultDaemonAddress();
  let socket: Socket;
  try {
    socket = await connectOrStart(address, { cliPath, explicit: Boolean(options.daemon), logPath: join(dataDirOf(process.env), 'daemon.log') });
  } catch (error) {
    // A planted or foreign socket is refused outright: falling back would hide it.
    if (error instanceof UnsafeSocketError) {
      process.stderr.write(`accord acp: refusing the daemon socket: ${error.message}\n`);
      return 1;
    }
    return fallback(error instanceof Error ? error.message : String(error));
  }
  const version = process.env.ACCORD_BRIDGE_VERSION_FOR_TESTS ?? cliVersion;
  // The client's first message (initialize) goes out right behind the hello,
  // without waiting for the welcome: one round trip less on every start.
  const welcomed = handshake(socket, {
    accord: 'hello',
    version,
    flags: { ...connectionFlags(options), env: forwardedEnv(process.env) },
  }, WELCOME_TIMEOUT_MS);
  let inputEnded = false;
  process.stdin.on('end', () => {
    inputEnded = true;
    socket.end();
  });
  process.stdin.pipe(socket, { end: false });
  let welcome;
  try {
    welcome = await welcomed;
  } catch (error) {
    // stdin is already flowing to the daemon, so there is no falling back here: the editor restarts the bridge.
    socket.destroy();
    process.stderr.write(`accord acp: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  if (welcome.version !== version) {
    process.stderr.write(
      `accord acp: the running daemon is version ${welcome.version}, this bridge is ${version}. ` +
        'This connection uses it as it is; the daemon restarts with this version once it is idle (no clients, no running turn).\n',
    );
  }
  return pipe(socket, () => inputEnded);
}

/** Relays until stdin ends (0) or the daemon goes away (1: the editor's restart policy starts a new bridge, which starts a new daemon). */
function pipe(socket: Socket, inputEnded: () => boolean): Promise<number> {
  return new Promise((resolve) => {
    socket.pipe(process.stdout, { end: false });
    socket.resume();
    socket.on('error', () => undefined); // reported on close below
    socket.on('close', () => {
      if (!inputEnded()) process.stderr.write('accord acp: the daemon closed the connection.\n');
      resolve(inputEnded() ? 0 : 1);
    });
  });
}
