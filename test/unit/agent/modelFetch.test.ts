// modelFetch (agent/models/http/): the providers' fetch on node:http. What the
// providers read of a Response, keep-alive, abort, broken and hostile servers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { BODY_LIMIT, BrokenBodyError, ERROR_BODY_LIMIT, UnendedLineError } from '../../../agent/models/http/modelResponse';
import { MAX_REDIRECTS, modelFetch } from '../../../agent/models/http/modelFetch';
import { describeModelError } from '../../../agent/models/errors';
import { waitFor } from '../../support/waitFor';

interface TestServer {
  url: string;
  /** TCP connections accepted so far. */
  connections: number;
  /** Sockets still open. */
  open: Set<Socket>;
  requests: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<TestServer> {
  const state: TestServer = { url: '', connections: 0, open: new Set(), requests: [], close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({ method: req.method, url: req.url, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.on('connection', (socket: Socket) => {
    state.connections++;
    state.open.add(socket);
    socket.on('close', () => state.open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ chunks: Uint8Array[]; text: string }> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return { chunks, text: Buffer.concat(chunks).toString('utf8') };
}

/**
 * Writes `piece` again and again while the reader keeps up, up to `cap` bytes, and never ends
 * the response: only a reader that stops on its own finishes. Returns the bytes written so far.
 */
function flood(res: ServerResponse, piece: Buffer, cap: number): () => number {
  let written = 0;
  const more = () => {
    while (!res.destroyed && written < cap && res.write(piece)) written += piece.length;
    if (!res.destroyed && written < cap) res.once('drain', more);
  };
  more();
  return () => written;
}

describe('modelFetch', () => {
  test('a POST: headers lower-cased and trimmed, the body sent; the response streams as Uint8Array chunks', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, 'Fine', { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      setImmediate(() => res.end('data: two\n\n'));
    });
    try {
      const response = await modelFetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: '  Bearer k  ', 'user-agent': 'ai-sdk/x' },
        body: '{"model":"m","text":"héllo"}',
      });
      assert.equal(response.ok, true);
      assert.equal(response.status, 200);
      assert.equal(response.statusText, 'Fine');
      assert.equal(response.url, `${server.url}/v1/chat/completions`);
      assert.equal(response.headers.get('Content-Type'), 'text/event-stream');
      const { chunks, text } = await readAll(response.body);
      assert.ok(chunks.every((c) => c instanceof Uint8Array));
      assert.equal(text, 'data: one\n\ndata: two\n\n');
      const [seen] = server.requests;
      assert.equal(seen!.method, 'POST');
      assert.equal(seen!.headers.authorization, 'Bearer k');
      assert.equal(seen!.headers['content-type'], 'application/json');
      assert.equal(seen!.headers['content-length'], String(Buffer.byteLength('{"model":"m","text":"héllo"}')));
      assert.equal(seen!.body, '{"model":"m","text":"héllo"}');
    } finally {
      await server.close();
    }
  });

  test('keep-alive: sequential requests to one origin share one TCP connection', async () => {
    const server = await serve((_req, res) => res.end('{"ok":true}'));
    try {
      for (let i = 0; i < 3; i++) assert.deepEqual(await (await modelFetch(`${server.url}/v1/models`)).json(), { ok: true });
      assert.equal(server.requests.length, 3);
      assert.equal(server.connections, 1);
    } finally {
      await server.close();
    }
  });

  test('a kept-alive connection the server dropped as the request went out: sent once more on a new one', async () => {
    let served = 0;
    const server = await serve((req, res) => {
      // The second request on the first connection: the server hangs up without answering.
      if (++served === 2) return void req.socket.destroy();
      res.end('fine');
    });
    try {
      assert.equal(await (await modelFetch(`${server.url}/a`)).text(), 'fine');
      assert.equal(await (await modelFetch(`${server.url}/b`, { method: 'POST', body: 'x' })).text(), 'fine');
      assert.equal(server.connections, 2);
    } finally {
      await server.close();
    }
  });

  test('abort while the body streams: the reader gets an AbortError and the connection closes', async () => {
    let writer: ReturnType<typeof setInterval> | undefined;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // A body that never ends.
      writer = setInterval(() => res.write('data: more\n\n'), 5);
      res.on('close', () => clearInterval(writer));
    });
    try {
      const controller = new AbortController();
      const response = await modelFetch(`${server.url}/stream`, { method: 'POST', body: '{}', signal: controller.signal });
      const reader = response.body.getReader();
      assert.equal((await reader.read()).done, false);
      controller.abort();
      await assert.rejects(
        (async () => {
          for (;;) if ((await reader.read()).done) break;
        })(),
        (error: Error) => error.name === 'AbortError',
      );
      await waitFor('the server to see the connection closed', () => server.open.size === 0);
    } finally {
      clearInterval(writer);
      await server.close();
    }
  });

  test('abort before the response: rejects with the signal reason, the connection closes', async () => {
    const server = await serve(() => undefined); // never answers
    try {
      const controller = new AbortController();
      const pending = modelFetch(`${server.url}/slow`, { method: 'POST', body: '{}', signal: controller.signal });
      await waitFor('the request to arrive', () => server.requests.length === 1);
      controller.abort();
      await assert.rejects(pending, (error: Error) => error.name === 'AbortError');
      await waitFor('the server to see the connection closed', () => server.open.size === 0);
      // An aborted signal up front sends nothing.
      await assert.rejects(modelFetch(`${server.url}/never`, { signal: AbortSignal.abort() }), (error: Error) => error.name === 'AbortError');
      assert.equal(server.requests.length, 1);
    } finally {
      await server.close();
    }
  });

  test('a server that closes mid-body: the stream errors saying so, not a silent end', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: half\n\n', () => res.socket?.destroy());
    });
    try {
      const response = await modelFetch(`${server.url}/cut`, { method: 'POST', body: '{}' });
      await assert.rejects(readAll(response.body), (error: Error) => error instanceof BrokenBodyError && error instanceof TypeError);
    } finally {
      await server.close();
    }
  });

  test('a refused connection: TypeError("fetch failed") with the cause, as the AI SDK expects', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    await server.close();
    await assert.rejects(modelFetch(`${url}/v1/messages`, { method: 'POST', body: '{}' }), (error: Error) => {
      assert.ok(error instanceof TypeError);
      assert.equal(error.message, 'fetch failed');
      assert.equal((error.cause as NodeJS.ErrnoException).code, 'ECONNREFUSED');
      return true;
    });
  });

  test('redirects: same origin followed (307 keeps the POST body); another origin is not followed', async () => {
    const other = await serve((_req, res) => res.end('elsewhere'));
    const server = await serve((req, res) => {
      if (req.url === '/old') return void res.writeHead(307, { location: '/new' }).end();
      if (req.url === '/away') return void res.writeHead(302, { location: `${other.url}/steal` }).end();
      res.end('moved here');
    });
    try {
      const response = await modelFetch(`${server.url}/old`, { method: 'POST', headers: { 'x-api-key': 'secret' }, body: 'payload' });
      assert.equal(await response.text(), 'moved here');
      assert.equal(response.redirected, true);
      assert.equal(response.url, `${server.url}/new`);
      assert.deepEqual(server.requests.map((r) => [r.method, r.url, r.body]), [['POST', '/old', 'payload'], ['POST', '/new', 'payload']]);

      const away = await modelFetch(`${server.url}/away`, { method: 'POST', headers: { 'x-api-key': 'secret' }, body: 'payload' });
      assert.equal(away.status, 302);
      assert.equal(away.ok, false);
      assert.equal(other.requests.length, 0, 'the key never went to another origin');
    } finally {
      await server.close();
      await other.close();
    }
  });

  test('a redirect loop stops after MAX_REDIRECTS and answers the last 3xx', async () => {
    const server = await serve((req, res) => res.writeHead(308, { location: `/loop${Number(req.url!.slice(5) || 0) + 1}` }).end());
    try {
      const response = await modelFetch(`${server.url}/loop0`, { method: 'POST', body: 'x' });
      assert.equal(response.status, 308);
      assert.equal(server.requests.length, MAX_REDIRECTS + 1);
    } finally {
      await server.close();
    }
  });

  test('an error body larger than the bound: read up to the bound, cut with a note, the rest not read', async () => {
    let written = () => 0;
    const server = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      // Far past the bound, and never ending: only a bounded read finishes.
      written = flood(res, Buffer.alloc(16 * 1024, 'x'), 64 * 1024 * 1024);
    });
    try {
      const response = await modelFetch(`${server.url}/v1/responses`, { method: 'POST', body: '{}' });
      assert.equal(response.ok, false);
      const text = await response.text();
      assert.ok(text.startsWith('x'.repeat(1000)));
      assert.ok(Buffer.byteLength(text) < ERROR_BODY_LIMIT + 200, `${Buffer.byteLength(text)} bytes`);
      assert.match(text, /the rest of this 500 response is not shown/);
      await waitFor('the connection to close', () => server.open.size === 0);
      assert.ok(written() < 64 * 1024 * 1024, 'the server was not read to the end');
    } finally {
      await server.close();
    }
  });

  test("the providers' own error handlers read a never-ending error body through `body`: it ends at the bound, with the note", async () => {
    // Anthropic's and OpenAI's SDK handlers read `response.body` with a bound of 2 GiB; the web body is bounded itself.
    let written = () => 0;
    const server = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'text/html' });
      written = flood(res, Buffer.alloc(16 * 1024, '<'), 64 * 1024 * 1024);
    });
    try {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      const model = createAnthropic({ apiKey: 'k', baseURL: `${server.url}/v1`, fetch: modelFetch as unknown as typeof fetch })('claude-test');
      const error = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }).then(
        () => assert.fail('a 400 must fail the call'),
        (e: unknown) => e as { statusCode?: number; responseBody?: string },
      );
      assert.equal(error.statusCode, 400);
      assert.ok(Buffer.byteLength(error.responseBody ?? '') < ERROR_BODY_LIMIT + 200, `${Buffer.byteLength(error.responseBody ?? '')} bytes`);
      assert.match(error.responseBody ?? '', /the rest of this 400 response is not shown/);
      await waitFor('the connection to close', () => server.open.size === 0);
      assert.ok(written() < 64 * 1024 * 1024, 'the server was not read to the end');
    } finally {
      await server.close();
    }
  });

  test("attack: an event stream whose line never ends fails at BODY_LIMIT through the providers' own parsers, and the connection closes", async () => {
    // The SDK's event-stream parser (Anthropic, OpenAI) holds an unfinished line whole.
    let written = () => 0;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message_start\ndata: ');
      written = flood(res, Buffer.alloc(64 * 1024, 'x'), 4 * BODY_LIMIT);
    });
    try {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      const model = createAnthropic({ apiKey: 'k', baseURL: `${server.url}/v1`, fetch: modelFetch as unknown as typeof fetch })('claude-test');
      let failure: unknown;
      try {
        // The provider may read the stream's start before it answers doStream: the error can come from either.
        const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
        for await (const part of stream as unknown as AsyncIterable<{ type: string; error?: unknown }>) if (part.type === 'error') failure ??= part.error;
      } catch (error) {
        failure ??= error;
      }
      assert.ok(failure instanceof UnendedLineError || (failure as { cause?: unknown })?.cause instanceof UnendedLineError, String(failure));
      assert.match(await describeModelError(failure, 'anthropic:claude-test', server.url), /more than 32 MB without a line break/);
      await waitFor('the connection to close', () => server.open.size === 0);
      assert.ok(written() < 4 * BODY_LIMIT, 'the server was not read to the end');
    } finally {
      await server.close();
    }
  });

  test('a successful body with many lines is not bounded by the line check', async () => {
    const line = `data: ${'y'.repeat(1023)}\n`;
    const lines = Math.ceil((BODY_LIMIT * 1.5) / line.length);
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const more = () => {
        let flowing = true;
        while (sent < lines && flowing) {
          flowing = res.write(line.repeat(64));
          sent += 64;
        }
        if (sent < lines) res.once('drain', more);
        else res.end();
      };
      more();
    });
    try {
      const response = await modelFetch(`${server.url}/v1/stream`, { method: 'POST', body: '{}' });
      let bytes = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
      assert.ok(bytes > BODY_LIMIT, `${bytes} bytes`);
    } finally {
      await server.close();
    }
  });

  test('response headers with odd casing and duplicates: case-insensitive, joined, iterated sorted', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, [
        ['X-RateLimit-Remaining', '5'],
        ['x-ratelimit-remaining', '4'],
        ['CONTENT-TYPE', 'application/json'],
        ['Retry-After-Ms', '10'],
      ].flat());
      res.end('{}');
    });
    try {
      const response = await modelFetch(`${server.url}/h`);
      assert.equal(response.headers.get('x-ratelimit-remaining'), '5, 4');
      assert.equal(response.headers.get('Content-Type'), 'application/json');
      assert.equal(response.headers.has('RETRY-AFTER-MS'), true);
      assert.equal(response.headers.get('absent'), null);
      const names = [...response.headers].map(([name]) => name);
      assert.deepEqual(names, [...names].sort());
      assert.ok(names.every((n) => n === n.toLowerCase()));
      const seen: string[] = [];
      response.headers.forEach((value, name) => seen.push(`${name}=${value}`));
      assert.ok(seen.includes('retry-after-ms=10'));
      assert.equal(Object.prototype.toString.call(response.headers), '[object Headers]');
      await response.text();
    } finally {
      await server.close();
    }
  });

  test('a huge header block: rejected as a network error, nothing hangs', async () => {
    const server = await serve((_req, res) => {
      const socket = res.socket!;
      socket.write(`HTTP/1.1 200 OK\r\n${Array.from({ length: 2000 }, (_, i) => `x-filler-${i}: ${'y'.repeat(40)}\r\n`).join('')}\r\n`);
    });
    try {
      await assert.rejects(modelFetch(`${server.url}/big`), (error: Error) => {
        assert.ok(error instanceof TypeError);
        assert.equal(error.message, 'fetch failed');
        assert.equal((error.cause as NodeJS.ErrnoException).code, 'HPE_HEADER_OVERFLOW');
        return true;
      });
    } finally {
      await server.close();
    }
  });

  test('a header value with a line break: refused before anything is sent', async () => {
    const server = await serve((_req, res) => res.end());
    try {
      await assert.rejects(modelFetch(`${server.url}/x`, { headers: { 'x-injected': 'a\r\nx-evil: 1' } }), TypeError);
      await assert.rejects(modelFetch(`${server.url}/x`, { headers: { 'bad name': 'v' } }), TypeError);
      assert.equal(server.requests.length, 0);
    } finally {
      await server.close();
    }
  });

  test('https: a certificate no trusted authority signed is refused, as fetch refuses it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accord-modelfetch-tls-'));
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    let answered = 0;
    const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
      answered++;
      res.end('should not be read');
    });
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
      await assert.rejects(modelFetch(url, { method: 'POST', headers: { 'x-api-key': 'secret' }, body: '{}' }), (error: Error) => {
        assert.ok(error instanceof TypeError);
        assert.equal(error.message, 'fetch failed');
        assert.equal((error.cause as NodeJS.ErrnoException).code, 'DEPTH_ZERO_SELF_SIGNED_CERT');
        return true;
      });
      assert.equal(answered, 0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('only http: and https: endpoints', async () => {
    await assert.rejects(modelFetch('file:///etc/passwd'), TypeError);
  });
});
