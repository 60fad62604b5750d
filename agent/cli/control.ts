// `accord daemon status | stop`: one control line to the running daemon.
import { addressAt, defaultDaemonAddress, UnsafeSocketError } from '../daemon/address';
import { handshake, tryConnect } from '../daemon/connect';
import type { DaemonStatus } from '../daemon/handshake';
import { cliVersion } from './bridge';

export async function daemonControl(what: 'status' | 'stop', listen: string | undefined, json: boolean): Promise<number> {
  const address = listen ? addressAt(listen) : defaultDaemonAddress();
  let socket;
  try {
    socket = await tryConnect(address);
  } catch (error) {
    const prefix = error instanceof UnsafeSocketError ? 'refusing the daemon socket: ' : '';
    process.stderr.write(`accord daemon ${what}: ${prefix}${(error as Error).message}\n`);
    return 1;
  }
  if (!socket) {
    process.stdout.write(json ? `${JSON.stringify({ running: false, address: address.path })}\n` : `No Accord daemon is running (${address.path}).\n`);
    return what === 'status' ? 3 : 0;
  }
  try {
    if (what === 'stop') {
      const reply = await handshake<{ accord: string; pid: number }>(socket, { accord: 'stop', version: cliVersion });
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      process.stdout.write(json ? `${JSON.stringify({ stopped: true, pid: reply.pid })}\n` : `Stopped the Accord daemon (pid ${reply.pid}).\n`);
      return 0;
    }
    const status = await handshake<DaemonStatus>(socket, { accord: 'status', version: cliVersion });
    socket.destroy();
    if (json) {
      process.stdout.write(`${JSON.stringify({ running: true, address: address.path, ...status })}\n`);
      return 0;
    }
    const lines = [
      `Accord daemon ${status.version}, pid ${status.pid}, since ${status.startedAt}, on ${address.path}`,
      `${status.clients} client(s); idle exit ${status.idleExitMs === null ? 'never' : `${Math.round(status.idleExitMs / 1000)} s`}${status.retiring ? '; restarting once idle (version change)' : ''}`,
      ...status.sessions.map((s) => `  ${s.sessionId}  ${s.turnRunning ? 'running' : 'idle   '}  ${s.clients} client(s)${s.pendingPermissions ? `, ${s.pendingPermissions} approval(s) waiting` : ''}  ${JSON.stringify(s.cwd)}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    socket.destroy();
    process.stderr.write(`accord daemon ${what}: ${(error as Error).message}\n`);
    return 1;
  }
}
