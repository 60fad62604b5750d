// The lean chat model (agent/models/chat/) on its real transport (modelFetch
// over node:http) against a local server: what it streams, and what a
// hostile or broken server cannot make it do (hold unbounded memory, leak a
// connection, show markup, follow a redirect elsewhere). Where the SDK's
// model can be asked the same, the two are compared.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { leanChatModel, type StreamLimits } from '../../../agent/models/chat/chatModel';
import { SseTooLargeError, MAX_EVENT_CHARS } from '../../../agent/models/chat/sseEvents';
import { MAX_TOOL_ARGUMENT_CHARS, ToolArgumentsTooLargeError } from '../../../agent/models/chat/chatStream';
import { SseEvents } from '../../../agent/models/chat/sseEvents';
import { modelFetch } from '../../../agent/models/http/modelFetch';
import { BrokenBodyError } from '../../../agent/models/http/modelResponse';
import { describeModelError } from '../../../agent/models/errors';
import { assertSameOutcome, run } from './leanChatFixtures';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: Handler) {
  const closed: number[] = [];
  const server = createServer((req, res) => {
    // No Date header: the lean and the SDK run are compared header for header, and may straddle a second.
    res.sendDate = false;
    req.resume();
    req.on('end', () => handler(req, res));
  });
  server.on('connection', (socket) => socket.on('close', () => closed.push(Date.now())));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    baseURL,
    closedConnections: () => closed.length,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const fetch = modelFetch as unknown as typeof globalThis.fetch;
const lean = (baseURL: string, limits?: StreamLimits): LanguageModelV3 =>
  leanChatModel('m', { name: 'local', baseURL, includeUsage: true, fetch, sdkModel: async () => sdk(baseURL), ...(limits ? { limits } : {}) });
const sdk = (baseURL: string): LanguageModelV3 => createOpenAICompatible({ name: 'local', baseURL, includeUsage: true, fetch }).chatModel('m');

const hi: LanguageModelV3CallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });
const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const chunk = (delta: unknown, finish: string | null = null) => event({ id: 'c1', created: 1700000000, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });

async function partsOf(model: LanguageModelV3, options = hi) {
  const { stream } = await model.doStream(options);
  const parts: { type: string; [key: string]: unknown }[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { parts };
      parts.push(value as { type: string });
    }
  } catch (error) {
    return { parts, error };
  }
}

describe('lean chat model over HTTP', () => {
  test('happy: text, reasoning, a tool call in pieces and usage, as the SDK streams them', async () => {
    const server = await serve((_req, res) => {
      sse(res);
      res.write(chunk({ role: 'assistant', reasoning_content: 'think' }));
      res.write(chunk({ content: 'héllo ' }));
      // A multi-byte character split across two writes, and CRLF line ends.
      const bytes = Buffer.from(chunk({ content: '🙂 there' }).replace(/\n/g, '\r\n'));
      res.write(bytes.subarray(0, 40));
      res.write(bytes.subarray(40));
      res.write(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read', arguments: '' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }));
      res.write(': keep-alive\n\n');
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '"a.txt"}' } }] }));
      res.write(chunk({}, 'tool_calls'));
      res.write(event({ id: 'c1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } } }));
      res.end('data: [DONE]\n\n');
    });
    try {
      const ours = await run(lean(server.baseURL), hi);
      assertSameOutcome(ours, await run(sdk(server.baseURL), hi));
      assert.equal(ours.kind, 'stream');
      const parts = (ours as { parts: { type: string; [k: string]: unknown }[] }).parts;
      assert.deepEqual(parts.filter((p) => p.type === 'text-delta').map((p) => p.delta), ['héllo ', '🙂 there']);
      assert.deepEqual(parts.find((p) => p.type === 'tool-call'), { type: 'tool-call', toolCallId: 'call_1', toolName: 'read', input: '{"path":"a.txt"}' });
      const finish = parts.at(-1)!;
      assert.deepEqual(finish.finishReason, { unified: 'tool-calls', raw: 'tool_calls' });
      assert.deepEqual((finish.usage as { inputTokens: unknown }).inputTokens, { total: 10, noCache: 6, cacheRead: 4, cacheWrite: undefined });
    } finally {
      await server.close();
    }
  });

  test('attack: an endless data: line with no newline ends the stream with a clear error at the bound, and the connection is closed', async () => {
    let writes = 0;
    const server = await serve((_req, res) => {
      sse(res);
      res.write(chunk({ content: 'before' }));
      res.write('data: "');
      const more = () => {
        // Stops only when the client goes away: it must stop reading, not the server stop sending.
        if (res.destroyed || writes > 10_000) return;
        writes++;
        if (res.write('x'.repeat(16 * 1024))) setImmediate(more);
        else res.once('drain', more);
      };
      more();
    });
    try {
      const { parts, error } = await partsOf(lean(server.baseURL, { eventChars: 256 * 1024 }));
      assert.ok(error instanceof SseTooLargeError, String(error));
      assert.match(error.message, /longer than/);
      assert.deepEqual(parts.filter((p) => p.type === 'text-delta').map((p) => p.delta), ['before']);
      await waitUntil(() => server.closedConnections() === 1);
    } finally {
      await server.close();
    }
  });

  test('attack: the bounds by default (an event, all tool call arguments of a response)', () => {
    assert.equal(MAX_EVENT_CHARS, 16 * 1024 * 1024);
    assert.equal(MAX_TOOL_ARGUMENT_CHARS, 32 * 1024 * 1024);
    const events = new SseEvents(1000);
    assert.throws(() => events.push(new TextEncoder().encode(`data: ${'y'.repeat(600)}\ndata: ${'y'.repeat(600)}\n`), () => {}), SseTooLargeError);
  });

  test('happy: a huge JSON chunk under the bound arrives whole, however it is cut', async () => {
    const big = 'é'.repeat(2 * 1024 * 1024);
    const server = await serve((_req, res) => {
      sse(res);
      const bytes = Buffer.from(chunk({ content: big }) + chunk({}, 'stop'));
      for (let at = 0; at < bytes.length; at += 65_521) res.write(bytes.subarray(at, at + 65_521));
      res.end();
    });
    try {
      const { parts, error } = await partsOf(lean(server.baseURL));
      assert.equal(error, undefined);
      assert.equal(parts.filter((p) => p.type === 'text-delta').map((p) => p.delta).join(''), big);
    } finally {
      await server.close();
    }
  });

  test('attack: a tool call whose arguments never end is cut at the bound; one the stream leaves unfinished ends as the SDK ends it', async () => {
    const endless = await serve((_req, res) => {
      sse(res);
      res.write(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'write', arguments: '{"text":"' } }] }));
      let sent = 0;
      const more = () => {
        if (res.destroyed || sent > 5_000) return;
        sent++;
        if (res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: 'z'.repeat(4096) } }] }))) setImmediate(more);
        else res.once('drain', more);
      };
      more();
    });
    const unfinished = await serve((_req, res) => {
      sse(res);
      res.write(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'write', arguments: '{"text":"' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: 'never closed' } }] }));
      res.end(chunk({}, 'tool_calls'));
    });
    try {
      const { error } = await partsOf(lean(endless.baseURL, { toolArgumentChars: 200 * 1024 }));
      assert.ok(error instanceof ToolArgumentsTooLargeError, String(error));
      await waitUntil(() => endless.closedConnections() === 1);
      const ours = await run(lean(unfinished.baseURL), hi);
      assertSameOutcome(ours, await run(sdk(unfinished.baseURL), hi));
      const call = (ours as { parts: { type: string; input?: string }[] }).parts.find((p) => p.type === 'tool-call');
      assert.equal(call?.input, '{"text":"never closed');
    } finally {
      await endless.close();
      await unfinished.close();
    }
  });

  test('attack: a server that closes mid-event: what came before, then the same error as the SDK (a broken body)', async () => {
    const server = await serve((req, res) => {
      sse(res);
      res.write(chunk({ content: 'partial ' }));
      res.write('data: {"choices":[{"delta":{"content":"cut');
      setImmediate(() => req.socket.destroy());
    });
    try {
      const ours = await run(lean(server.baseURL), hi);
      assertSameOutcome(ours, await run(sdk(server.baseURL), hi));
      const { parts, error } = await partsOf(lean(server.baseURL));
      assert.deepEqual(parts.filter((p) => p.type === 'text-delta').map((p) => p.delta), ['partial ']);
      assert.ok((error as { cause?: unknown }).cause instanceof BrokenBodyError);
      assert.match(await describeModelError(error, 'local:m', server.baseURL), /closed the connection in the middle of its answer/);
    } finally {
      await server.close();
    }
  });

  test('attack: a hostile error body is bounded, kept as text, and the message is the status (no markup)', async () => {
    const hostile = `<html><script>alert(1)</script>${'<b>x</b>'.repeat(100_000)}</html>`;
    const server = await serve((_req, res) => {
      res.writeHead(503, 'Service Unavailable', { 'content-type': 'text/html', 'retry-after': '3' });
      res.end(hostile);
    });
    try {
      // Both stop at modelFetch's bound and say so (the SDK's handler would read up to 2 GiB; modelFetch's `body` is bounded). The rest is the same.
      const ours = (await run(lean(server.baseURL), hi)) as { error: { responseBody: string } };
      const theirs = (await run(sdk(server.baseURL), hi)) as { error: { responseBody: string } };
      assert.ok(hostile.startsWith(ours.error.responseBody.slice(0, 64 * 1024)));
      assert.match(ours.error.responseBody, /the rest of this 503 response is not shown/);
      assert.deepStrictEqual(ours.error, theirs.error);
      const error = (await Promise.resolve(lean(server.baseURL).doStream(hi)).catch((e: unknown) => e)) as { statusCode: number; isRetryable: boolean; message: string; responseBody: string; responseHeaders: Record<string, string> };
      assert.equal(error.statusCode, 503);
      assert.equal(error.isRetryable, true);
      assert.equal(error.message, 'Service Unavailable');
      assert.equal(error.responseHeaders['retry-after'], '3');
      assert.ok(error.responseBody.length < 70 * 1024, `${error.responseBody.length} chars kept`);
      const shown = await describeModelError(error, 'local:m', server.baseURL);
      assert.ok(shown.length < 600, shown);
    } finally {
      await server.close();
    }
  });

  test('attack: a redirect to another origin is not followed (the other origin gets nothing); the same origin is', async () => {
    let elsewhereHits = 0;
    const elsewhere = await serve((_req, res) => {
      elsewhereHits++;
      res.end();
    });
    const server = await serve((req, res) => {
      if (req.url === '/v1/chat/completions') {
        res.writeHead(307, { location: `${elsewhere.baseURL}/chat/completions` });
        res.end();
      }
    });
    const sameOrigin = await serve((req, res) => {
      if (req.url === '/v1/chat/completions') {
        res.writeHead(307, { location: '/v2/chat/completions' });
        res.end();
        return;
      }
      sse(res);
      res.end(chunk({ content: 'moved' }) + chunk({}, 'stop'));
    });
    try {
      const error = (await Promise.resolve(lean(server.baseURL).doStream(hi)).catch((e: unknown) => e)) as { statusCode: number };
      assert.equal(error.statusCode, 307);
      assert.equal(elsewhereHits, 0);
      const { parts } = await partsOf(lean(sameOrigin.baseURL));
      assert.deepEqual(parts.filter((p) => p.type === 'text-delta').map((p) => p.delta), ['moved']);
    } finally {
      await Promise.all([elsewhere.close(), server.close(), sameOrigin.close()]);
    }
  });

  test('abort: mid-body the stream ends with the reason and the connection closes; before the answer the call rejects', async () => {
    const server = await serve((req, res) => {
      if (req.headers['x-hold'] === 'headers') return; // never answers
      sse(res);
      res.write(chunk({ content: 'first' }));
    });
    try {
      const controller = new AbortController();
      const { stream } = await lean(server.baseURL).doStream({ ...hi, abortSignal: controller.signal });
      const reader = stream.getReader();
      for (;;) {
        const { value } = await reader.read();
        if (value?.type === 'text-delta') break;
      }
      controller.abort();
      await assert.rejects(reader.read(), { name: 'AbortError' });
      await waitUntil(() => server.closedConnections() === 1);
      const early = new AbortController();
      const pending = Promise.resolve(lean(server.baseURL).doStream({ ...hi, headers: { 'x-hold': 'headers' }, abortSignal: early.signal }));
      setTimeout(() => early.abort(), 20);
      await assert.rejects(pending, { name: 'AbortError' });
      await waitUntil(() => server.closedConnections() === 2);
    } finally {
      await server.close();
    }
  });

  test('calls with the SDK provider options or a response format go to the SDK model', async () => {
    const bodies: unknown[] = [];
    const server = await serve((req, res) => {
      sse(res);
      res.end(chunk({ content: 'ok' }) + chunk({}, 'stop'));
    });
    let sdkCalls = 0;
    const model = leanChatModel('m', {
      name: 'local',
      baseURL: server.baseURL,
      includeUsage: true,
      fetch: (async (url: string, init: RequestInit) => {
        bodies.push(JSON.parse(String(init.body)));
        return modelFetch(url, init as never);
      }) as unknown as typeof globalThis.fetch,
      sdkModel: async () => {
        sdkCalls++;
        return sdk(server.baseURL);
      },
    });
    try {
      await partsOf(model, { ...hi, providerOptions: { local: { user: 'u1', custom_field: 1 } } });
      await partsOf(model, { ...hi, responseFormat: { type: 'json' } });
      await partsOf(model, { ...hi, providerOptions: { anthropic: { x: 1 } } });
      assert.equal(sdkCalls, 1, 'the SDK model is made once, on first need');
      assert.equal(bodies.length, 1, 'only the call without those options went through the lean model');
    } finally {
      await server.close();
    }
  });
});

async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}
