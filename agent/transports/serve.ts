// `accord serve --bind host:port`: ACP over WebSocket for clients that
// cannot spawn a process (browsers, remote editors). The process keeps its
// sessions across client reconnects: a client that comes back resumes or
// loads them, mid-turn included.
import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_LINE_BYTES } from '../acp/lineGuard';
import { WebSocketServer } from 'ws';
import { connectionFlags, takeAgentOptions, takeValue, UsageError } from '../cli/options';
import { SessionHost } from '../daemon/host';
import { generateSecret, isLoopback, offeredSecret, originAllowed, secretMatches } from './auth';
import { webSocketStream } from './wsStream';

export function parseBind(bind: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(bind);
  const port = Number(match?.[2]);
  if (!match || port > 65535) throw new UsageError(`--bind takes host:port (e.g. 127.0.0.1:2419), not "${bind}"`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/** Refuses before any upgrade, with a bare status line and nothing else. */
function refuse(socket: Duplex, status: 401 | 403 | 400): void {
  const text = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden' }[status];
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  socket.destroy();
}

export async function runServe(argv: string[]): Promise<number> {
  const args = [...argv];
  const bind = takeValue(args, '--bind') ?? '127.0.0.1:2419';
  const secretArg = takeValue(args, '--secret');
  const allowedOrigins: string[] = [];
  for (let origin = takeValue(args, '--allow-origin'); origin !== undefined; origin = takeValue(args, '--allow-origin')) allowedOrigins.push(origin);
  const { options, rest } = takeAgentOptions(args);
  if (rest.length > 0) throw new UsageError(`unknown option ${rest.join(' ')}`);
  const { host, port } = parseBind(bind);
  const given = secretArg ?? (process.env.ACCORD_AGENT_SECRET || undefined);
  if (!isLoopback(host) && !given) {
    process.stderr.write(`accord serve: refusing to listen on ${host}, which is not loopback, without a secret you chose: pass --secret or set ACCORD_AGENT_SECRET.\n`);
    return 2;
  }
  const secret = given ?? generateSecret();
  const flags = connectionFlags(options);

  const sessions = new SessionHost();
  const subprotocols = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_LINE_BYTES,
    // A browser that authenticated with the subprotocol must get it echoed, or it drops the connection.
    handleProtocols: (_protocols, request) => subprotocols.get(request) ?? false,
  });
  const server = createServer((_request, response) => {
    response.writeHead(426, { 'Content-Length': '0', Connection: 'close' }).end();
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    if (!originAllowed(request, allowedOrigins)) return refuse(socket, 403);
    const offered = offeredSecret(request);
    if (!secretMatches(offered.secret, secret)) return refuse(socket, 401);
    if (offered.subprotocol) subprotocols.set(request, offered.subprotocol);
    wss.handleUpgrade(request, socket, head, (ws) => void sessions.serve(webSocketStream(ws), flags).finally(() => ws.close()));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  process.stdout.write(`accord serve: listening on ws://${shown}:${actualPort}\n`);
  if (!given) process.stdout.write(`accord serve: secret (shown once): ${secret}\n`);

  return new Promise<number>((resolve) => {
    const stop = (code: number) => {
      wss.clients.forEach((client) => client.terminate());
      server.close();
      void sessions.shutdown().finally(() => resolve(code));
    };
    process.once('SIGTERM', () => stop(143));
    process.once('SIGINT', () => stop(130));
  });
}
