// The step driver's own behaviour beyond the differential test: what a
// hostile or broken provider can send (huge or deeply nested tool input,
// prototype keys, tool names that are not ours, a stream that never ends,
// hostile error text) and the request's retries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APICallError, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { RetryError as AiRetryError } from 'ai';
import { ModelStep, type ModelTool, type StepPart } from '../../../agent/core/modelStep';
import { RetryError, retryDelayMs } from '../../../agent/models/retry';
import { describeModelError } from '../../../agent/models/errors';
import { scriptedModel, v3Usage } from './modelStepDouble';

const TOOLS: ModelTool[] = [{ type: 'function', name: 'read', description: 'Read a file', inputSchema: { type: 'object' }, providerOptions: undefined }];
const finish: LanguageModelV3StreamPart = { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: v3Usage(10, 2) };

function step(model: unknown, signal = new AbortController().signal, maxRetries = 0) {
  return new ModelStep({ model, system: 's', messages: [{ role: 'user', content: 'go' }], tools: TOOLS, abortSignal: signal, maxRetries });
}

async function collect(s: ModelStep): Promise<StepPart[]> {
  const parts: StepPart[] = [];
  for await (const part of s.parts()) parts.push(part);
  return parts;
}

const calls = (parts: StepPart[]) => parts.filter((p): p is Extract<StepPart, { type: 'tool-call' }> => p.type === 'tool-call');

test('happy path: text, a call and the finish come through in order, and the history gets the assistant message', async () => {
  const s = step(scriptedModel({
    parts: [
      { type: 'text-start', id: '0' }, { type: 'text-delta', id: '0', delta: 'Hel' }, { type: 'text-delta', id: '0', delta: 'lo' }, { type: 'text-end', id: '0' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: '{"path":"a.ts"}' },
      { ...finish, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
    ],
  }));
  const parts = await collect(s);
  assert.deepEqual(parts.map((p) => p.type), ['text-delta', 'text-delta', 'tool-call', 'finish-step']);
  assert.deepEqual(calls(parts)[0], { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.ts' } });
  assert.equal((parts.at(-1) as { finishReason: string }).finishReason, 'tool-calls');
  assert.deepEqual(JSON.parse(JSON.stringify(s.responseMessages())), [
    { role: 'assistant', content: [{ type: 'text', text: 'Hello' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.ts' } }] },
  ]);
});

test('an id opened again while still open starts a new part, and the first takes deltas again after the second ends (as streamText)', async () => {
  const s = step(scriptedModel({
    parts: [
      { type: 'text-start', id: 'x' }, { type: 'text-delta', id: 'x', delta: 'a' },
      { type: 'text-start', id: 'x' }, { type: 'text-delta', id: 'x', delta: 'b' }, { type: 'text-end', id: 'x' },
      { type: 'text-delta', id: 'x', delta: 'c' }, finish,
    ],
  }));
  const parts = await collect(s);
  assert.ok(!parts.some((p) => p.type === 'error'));
  assert.deepEqual((s.responseMessages()[0]!.content as Array<{ text: string }>).map((p) => p.text), ['ac', 'b']);
});

test('attack: tool names that are Object.prototype keys, or not ours, are invalid calls answered with a tool error', async () => {
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'not_ours'];
  const s = step(scriptedModel({ parts: [...names.map((toolName, i) => ({ type: 'tool-call' as const, toolCallId: `c${i}`, toolName, input: '{}' })), finish] }));
  const parsed = calls(await collect(s));
  assert.deepEqual(parsed.map((c) => c.invalid), names.map(() => true));
  for (const call of parsed) assert.match(String((call as { error: Error }).error.message), /unavailable tool/);
  const results = s.responseMessages().find((m) => m.role === 'tool')!.content as Array<{ toolCallId: string; output: { type: string } }>;
  assert.deepEqual(results.map((r) => r.output.type), names.map(() => 'error-text'));
});

test('attack: __proto__ and constructor.prototype keys in tool input are refused, nothing is polluted', async () => {
  const inputs = ['{"__proto__":{"polluted":1}}', '{"a":[{"__proto__":{"polluted":1}}]}', '{"constructor":{"prototype":{"polluted":1}}}'];
  const s = step(scriptedModel({ parts: [...inputs.map((input, i) => ({ type: 'tool-call' as const, toolCallId: `c${i}`, toolName: 'read', input })), finish] }));
  const parsed = calls(await collect(s));
  assert.deepEqual(parsed.map((c) => c.invalid), [true, true, true]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
});

test('attack: a tool input of many MB parses (or is flagged) without breaking the step', async () => {
  const big = JSON.stringify({ path: 'x'.repeat(16 * 1024 * 1024) });
  const s = step(scriptedModel({ parts: [
    { type: 'tool-call', toolCallId: 'big', toolName: 'read', input: big },
    { type: 'tool-call', toolCallId: 'cut', toolName: 'read', input: big.slice(0, -2) },
    finish,
  ] }));
  const parts = await collect(s);
  const [whole, cut] = calls(parts);
  assert.equal(whole!.invalid, undefined);
  assert.equal((whole!.input as { path: string }).path.length, 16 * 1024 * 1024);
  assert.equal(cut!.invalid, true);
  assert.equal(parts.at(-1)!.type, 'finish-step');
});

test('attack: deeply nested tool input is a valid or an invalid call, never a crash', async () => {
  const depth = 200_000;
  const nested = '['.repeat(depth) + ']'.repeat(depth);
  const objects = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const s = step(scriptedModel({ parts: [
    { type: 'tool-call', toolCallId: 'n1', toolName: 'read', input: nested },
    { type: 'tool-call', toolCallId: 'n2', toolName: 'read', input: objects },
    finish,
  ] }));
  const parts = await collect(s);
  assert.equal(calls(parts).length, 2);
  assert.equal(parts.at(-1)!.type, 'finish-step');
  assert.doesNotThrow(() => JSON.stringify(s.responseMessages().map((m) => m.role)));
});

test('attack: a provider that streams forever and ignores the abort signal still ends at the abort', async () => {
  const controller = new AbortController();
  let sent = 0;
  const model = {
    ...scriptedModel({ parts: [] }),
    async doStream() {
      // Never closes and never looks at the signal: a text delta per pull, forever.
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(c) { c.enqueue({ type: 'text-start', id: '0' }); },
        pull(c) { sent++; c.enqueue({ type: 'text-delta', id: '0', delta: 'x' }); },
      });
      return { stream };
    },
  };
  const s = step(model, controller.signal);
  let deltas = 0;
  for await (const part of s.parts()) {
    if (part.type === 'text-delta' && ++deltas === 50) controller.abort();
  }
  assert.equal(deltas, 50);
  assert.ok(sent >= 50);
});

test('attack: a provider whose stream goes silent (and ignores the signal) does not hold the step after an abort', async () => {
  const controller = new AbortController();
  const model = {
    ...scriptedModel({ parts: [] }),
    async doStream() {
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(c) { c.enqueue({ type: 'text-start', id: '0' }); c.enqueue({ type: 'text-delta', id: '0', delta: 'hi' }); },
        pull() { return new Promise<void>(() => undefined); }, // never answers
        cancel() { return new Promise<void>(() => undefined); }, // nor lets go
      });
      return { stream };
    },
  };
  const parts: StepPart[] = [];
  for await (const part of step(model, controller.signal).parts()) {
    parts.push(part);
    if (part.type === 'text-delta') controller.abort();
  }
  assert.deepEqual(parts, [{ type: 'text-delta', text: 'hi' }]);
});

test('attack: a provider error with hostile text reaches the person only as describeModelError words it', async () => {
  const hostile = `<img src=x onerror=alert(1)>\u001b[2J${'A'.repeat(2_000)}`;
  const error = new APICallError({ message: hostile, url: 'http://127.0.0.1/v1/chat', requestBodyValues: {}, statusCode: 500, responseBody: JSON.stringify({ error: { message: hostile } }), isRetryable: false });
  const parts = await collect(step(scriptedModel({ parts: [{ type: 'error', error }, finish] })));
  assert.ok(!parts.some((p) => p.type === 'text-delta'), 'the error text is never streamed as a message');
  const errorPart = parts.find((p) => p.type === 'error') as { error: unknown };
  assert.equal(errorPart.error, error);
  const text = await describeModelError(errorPart.error, 'openai-compatible:m', 'http://127.0.0.1/v1');
  assert.match(text, /^The provider had a server error for openai-compatible:m \(HTTP 500\)\./);
  assert.ok(text.length < 500, 'the provider text is cut short');
});

test('retries: retryable failures are retried, the last error is kept, retry-after-ms is honoured', async () => {
  const busy = () => new APICallError({ message: 'busy', url: 'u', requestBodyValues: {}, statusCode: 429, responseHeaders: { 'retry-after-ms': '0' }, isRetryable: true });
  const model = scriptedModel({ parts: [{ type: 'text-start', id: '0' }, { type: 'text-delta', id: '0', delta: 'ok' }, finish], callFails: [busy(), busy()] });
  const parts = await collect(step(model, undefined, 2));
  assert.equal(model.calls.length, 3);
  assert.deepEqual(parts.filter((p) => p.type === 'text-delta'), [{ type: 'text-delta', text: 'ok' }]);

  const failing = scriptedModel({ parts: [], callFails: [busy(), busy(), busy()] });
  const [failed] = await collect(step(failing, undefined, 2));
  assert.equal(failing.calls.length, 3);
  const error = (failed as { error: unknown }).error;
  assert.ok(RetryError.isInstance(error) && AiRetryError.isInstance(error), 'marked as the ai SDK marks it');
  assert.equal((error as RetryError).errors.length, 3);
  assert.match(await describeModelError(error, 'm', 'e'), /tried 3 times/);
});

test('retries: a non-retryable error is not retried and comes back as it was', async () => {
  const denied = new APICallError({ message: 'no', url: 'u', requestBodyValues: {}, statusCode: 401, isRetryable: false });
  const model = scriptedModel({ parts: [], callFails: [denied] });
  const [failed] = await collect(step(model, undefined, 2));
  assert.equal(model.calls.length, 1);
  assert.equal((failed as { error: unknown }).error, denied);
});

test('retries: an abort during the backoff ends the wait without another request', async () => {
  const controller = new AbortController();
  const busy = new APICallError({ message: 'busy', url: 'u', requestBodyValues: {}, statusCode: 503, isRetryable: true }); // 2 s backoff
  const model = scriptedModel({ parts: [], callFails: [busy, busy] });
  const original = model.doStream.bind(model);
  model.doStream = async (options) => {
    try {
      return await original(options);
    } finally {
      setImmediate(() => controller.abort());
    }
  };
  const parts = await collect(step(model, controller.signal, 2));
  assert.equal(model.calls.length, 1);
  assert.equal(parts.length, 1);
  assert.equal(parts[0]!.type, 'error');
});

test('retryDelayMs: the server\'s wait when it asks for less than a minute, else the backoff', () => {
  const withHeaders = (responseHeaders: Record<string, string>) => new APICallError({ message: 'm', url: 'u', requestBodyValues: {}, responseHeaders, isRetryable: true });
  assert.equal(retryDelayMs(withHeaders({ 'retry-after-ms': '1500' }), 2000), 1500);
  assert.equal(retryDelayMs(withHeaders({ 'retry-after': '3' }), 2000), 3000);
  assert.equal(retryDelayMs(withHeaders({ 'retry-after': '3', 'retry-after-ms': '10' }), 2000), 10);
  assert.equal(retryDelayMs(withHeaders({ 'retry-after': '600' }), 2000), 2000, 'ten minutes is not reasonable');
  assert.equal(retryDelayMs(withHeaders({ 'retry-after': '600' }), 900_000), 600_000, 'unless the backoff is longer');
  assert.equal(retryDelayMs(withHeaders({ 'retry-after-ms': '-5' }), 2000), 2000);
  assert.equal(retryDelayMs(withHeaders({ 'retry-after': new Date(10_000).toUTCString() }), 2000, () => 5_000), 5000);
  assert.equal(retryDelayMs(new Error('plain'), 4000), 4000);
});
