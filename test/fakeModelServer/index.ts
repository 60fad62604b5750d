// A scripted stand-in for model providers, on 127.0.0.1 with no dependencies.
// Serves OpenAI chat completions, OpenAI Responses and Anthropic Messages as
// SSE; every request takes the next scripted reply and is recorded.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicEvents } from './anthropic';
import { openaiChatEvents } from './openaiChat';
import { openaiResponsesEvents } from './openaiResponses';
import type { Reply, StreamReply } from './script';

export * from './script';

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** Which TCP connection carried it (1 for the server's first): keep-alive shows as a repeated number. */
  connection: number;
}

export interface FakeModelServer {
  /** e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  port: number;
  requests: RecordedRequest[];
  /** performance.now() at each SSE event written, for latency benches. */
  sentAt: number[];
  /** Queue replies; each model request consumes one. An empty queue answers "ok". */
  script(...replies: Reply[]): void;
  /** Drops replies no request has taken. */
  clearScript(): void;
  /** Resolves when the next request arrives (or at once if `count` already arrived). */
  waitForRequests(count: number): Promise<void>;
  /** Connections still open (a stalled stream keeps one). */
  openStreams(): number;
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

type Format = { head?: unknown[]; parts: unknown[][]; tail: unknown[] };

function formatFor(path: string, reply: StreamReply, model: string): { format: Format; named: boolean } | undefined {
  if (path.endsWith('/chat/completions')) return { format: openaiChatEvents(reply, model), named: false };
  if (path.endsWith('/responses')) return { format: openaiResponsesEvents(reply, model), named: true };
  if (path.endsWith('/messages')) return { format: anthropicEvents(reply, model), named: true };
  return undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readBody(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startFakeModelServer(): Promise<FakeModelServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const sentAt: number[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const open = new Set<ServerResponse>();
  const connectionIds = new WeakMap<object, number>();
  let connections = 0;

  async function stream(res: ServerResponse, reply: StreamReply, format: Format, named: boolean): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = async (event: unknown) => {
      if (reply.delayMs) await sleep(reply.delayMs);
      if (res.destroyed) return;
      const data = typeof event === 'string' ? event : JSON.stringify(event);
      const type = named && typeof event === 'object' && event ? (event as { type: string }).type : undefined;
      res.write(`${type ? `event: ${type}\n` : ''}data: ${data}\n\n`);
      sentAt.push(performance.now());
    };
    for (const event of format.head ?? []) await send(event);
    for (const [index, events] of format.parts.entries()) {
      if (reply.stallAfterParts === index) return; // keep the connection open, send nothing more
      if (reply.closeAfterParts === index) {
        // The parts so far go out, then the connection ends with the HTTP body unfinished.
        res.socket?.end();
        return;
      }
      if (reply.malformedAfterParts === index) {
        res.end('data: {"this is not json\n\n');
        return;
      }
      for (const event of events) await send(event);
    }
    if (reply.stallAfterParts !== undefined && reply.stallAfterParts >= format.parts.length) return;
    for (const event of format.tail) await send(event);
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-local', object: 'model' }] }));
      return;
    }
    // A reachability check (Claude Code sends HEAD / when a session starts) is not a model request: it takes no scripted reply.
    if (req.method === 'HEAD') {
      res.writeHead(200).end();
      return;
    }
    const body = await readBody(req);
    requests.push({ path, headers: req.headers, body, connection: connectionIds.get(req.socket) ?? 0 });
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    // Only the model endpoints take scripted replies: Claude Code's /v1/messages/count_tokens, say, gets a 404 and leaves the queue alone.
    const modelPath = ['/chat/completions', '/responses', '/messages'].some((end) => path.endsWith(end));
    if (!modelPath) {
      res.writeHead(404).end();
      return;
    }
    const reply: Reply = queue.shift() ?? { type: 'stream', parts: [{ text: 'ok' }] };
    if (reply.type === 'error') {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body ?? { error: { message: `fake error ${reply.status}`, type: 'fake_error' } }));
      return;
    }
    const model = typeof body === 'object' && body && typeof body.model === 'string' ? body.model : 'fake';
    const chosen = formatFor(path, reply, model);
    if (!chosen) {
      res.writeHead(404).end();
      return;
    }
    open.add(res);
    res.on('close', () => open.delete(res));
    await stream(res, reply, chosen.format, chosen.named);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => connectionIds.set(socket, ++connections));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    sentAt,
    script: (...replies) => void queue.push(...replies),
    clearScript: () => void queue.splice(0),
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    openStreams: () => open.size,
    connections: () => connections,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
