// `accord agent headless --relay-url wss://…`: the agent dials out to a
// relay and serves ACP over that socket, for clients that reach it through
// the relay. It reconnects with backoff; sessions stay in this process, so
// a client resumes them after a reconnect.
import { WebSocket } from 'ws';
import { connectionFlags, takeAgentOptions, takeValue, UsageError } from '../cli/options';
import { SessionHost } from '../daemon/host';
import { generateSecret, isLoopback } from './auth';
import { webSocketStream } from './wsStream';

const MIN_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;

/** Exponential backoff with jitter: 250 ms doubling to 30 s. */
export function backoffDelay(attempt: number, random = Math.random): number {
  const base = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** Math.min(attempt, 20));
  return Math.round(base / 2 + random() * (base / 2));
}

export async function runRelay(argv: string[]): Promise<number> {
  const args = [...argv];
  const url = takeValue(args, '--relay-url');
  const secretArg = takeValue(args, '--secret');
  const { options, rest } = takeAgentOptions(args);
  if (rest.length > 0) throw new UsageError(`unknown option ${rest.join(' ')}`);
  if (!url) throw new UsageError('headless needs --relay-url wss://…');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--relay-url is not a URL: ${url}`);
  }
  if (parsed.protocol !== 'wss:' && !(parsed.protocol === 'ws:' && isLoopback(parsed.hostname))) {
    process.stderr.write(`accord headless: the relay URL must be wss:// (ws:// only to loopback): the secret would travel in clear text.\n`);
    return 2;
  }
  const given = secretArg ?? (process.env.ACCORD_AGENT_SECRET || undefined);
  const secret = given ?? generateSecret();
  if (!given) process.stdout.write(`accord headless: secret (shown once): ${secret}\n`);
  const flags = connectionFlags(options);
  const sessions = new SessionHost();
  let stopped = false;
  let current: WebSocket | undefined;
  let wake: (() => void) | undefined;
  const stop = () => {
    stopped = true;
    current?.terminate();
    wake?.();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  for (let attempt = 0; !stopped; ) {
    const outcome = await new Promise<'served' | 'failed'>((resolve) => {
      // The header, as serve expects it (no subprotocol: a relay that does not echo it would fail the handshake).
      const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${secret}` }, handshakeTimeout: 30_000 });
      current = socket;
      let opened = false;
      socket.on('open', () => {
        opened = true;
        process.stderr.write(`accord headless: connected to ${parsed.origin}\n`);
        void sessions.serve(webSocketStream(socket), flags).finally(() => resolve('served'));
      });
      socket.on('unexpected-response', (_request, response) => {
        process.stderr.write(`accord headless: the relay refused the connection (HTTP ${response.statusCode}).\n`);
        socket.terminate();
      });
      socket.on('error', (error) => process.stderr.write(`accord headless: ${error.message}\n`));
      socket.on('close', () => {
        if (!opened) resolve('failed');
      });
    });
    if (stopped) break;
    attempt = outcome === 'served' ? 0 : attempt + 1;
    const delay = backoffDelay(attempt);
    process.stderr.write(`accord headless: reconnecting in ${(delay / 1000).toFixed(1)} s\n`);
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, delay);
    });
  }
  await sessions.shutdown();
  return 0;
}
