// The lean chat model (agent/models/chat/) against @ai-sdk/openai-compatible's
// chat model: the same call options and the same SSE bytes, split anywhere,
// give the same request and the same stream parts, errors included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { assertSameOutcome, bothModels, run, type ServedResponse } from './leanChatFixtures';

const encoder = new TextEncoder();

// Text with what breaks naive parsers: multi-byte UTF-8, newlines, quotes, `data:` inside strings.
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom('', 'é', '日本語', '🙂👍🏽', 'a\nb', 'data: x', '\r\n', '"quoted"', '\\'),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const nullish = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.constant(null), fc.constant(undefined));

const toolDelta = fc.record(
  {
    index: nullish(fc.integer({ min: 0, max: 2 })),
    id: nullish(fc.constantFrom('call_a', 'call_b', 'call_c', '', ' ')),
    type: fc.constantFrom('function', undefined),
    function: fc.record(
      { name: nullish(fc.constantFrom('read', 'write', '', ' ')), arguments: nullish(fc.constantFrom('', '{', '"x":1', '}', '{"a":"b"}', '[1,2]', 'not json', ' {')) },
      { requiredKeys: [] },
    ),
    extra_content: fc.option(fc.record({ google: fc.record({ thought_signature: fc.constantFrom('sig', null) }) }), { nil: undefined }),
  },
  { requiredKeys: ['function'] },
);

const usage = fc.record(
  {
    prompt_tokens: nullish(fc.nat(1000)),
    completion_tokens: nullish(fc.nat(1000)),
    total_tokens: nullish(fc.nat(2000)),
    prompt_tokens_details: nullish(fc.record({ cached_tokens: nullish(fc.nat(100)) }, { requiredKeys: [] })),
    completion_tokens_details: nullish(
      fc.record({ reasoning_tokens: nullish(fc.nat(100)), accepted_prediction_tokens: nullish(fc.nat(9)), rejected_prediction_tokens: nullish(fc.nat(9)) }, { requiredKeys: [] }),
    ),
    extra: maybe(fc.constant({ nested: true })),
  },
  { requiredKeys: [] },
);

const delta = fc.record(
  {
    role: fc.oneof({ weight: 6, arbitrary: nullish(fc.constantFrom('assistant', '')) }, { weight: 1, arbitrary: fc.constant('user') }),
    content: nullish(
      fc.oneof(
        text,
        fc.array(
          fc.oneof(
            fc.record({ type: fc.constant('text'), text: fc.oneof(text, fc.constant(3)) }),
            fc.record({ type: fc.constant('thinking'), thinking: fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text }), fc.constant(null), fc.record({ type: fc.constant('other') }))) }),
            fc.record({ type: fc.constant('image') }),
          ),
          { maxLength: 3 },
        ),
      ),
    ),
    refusal: nullish(fc.oneof(text, fc.constant(false))),
    reasoning_content: nullish(text),
    reasoning: nullish(text),
    tool_calls: nullish(fc.array(toolDelta, { maxLength: 3 })),
  },
  { requiredKeys: [] },
);

const finishReason = nullish(fc.constantFrom('stop', 'length', 'tool_calls', 'function_call', 'content_filter', 'other_reason'));

const chunk = fc.record(
  {
    id: nullish(fc.constantFrom('chatcmpl-1', 'chatcmpl-2')),
    created: nullish(fc.constantFrom(1700000000, 1700000001)),
    model: nullish(fc.constantFrom('m', 'other')),
    object: fc.constant('chat.completion.chunk'),
    choices: fc.oneof(fc.constant([]), fc.tuple(fc.record({ index: fc.constant(0), delta: nullish(delta), finish_reason: finishReason }, { requiredKeys: [] }))),
    usage: nullish(usage),
  },
  { requiredKeys: ['choices'] },
);

const errorChunk = fc.record({
  error: fc.record({ message: text, type: nullish(fc.constant('server_error')), code: nullish(fc.oneof(fc.constant('x'), fc.constant(500))), metadata: maybe(fc.constant({ raw: 'r' })) }, { requiredKeys: ['message'] }),
});

const chunkOf = (delta: unknown, finish: string | null = null) => JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });

/** A tool call as servers stream it: id and name first (or the name later, or no index at all), then the arguments in pieces. */
const toolCallRun = fc
  .record({
    index: fc.integer({ min: 0, max: 2 }),
    shape: fc.constantFrom('openai', 'name-later', 'no-index', 'one-piece'),
    name: fc.constantFrom('read', 'write'),
    args: fc.constantFrom('{"path":"a.txt"}', '{"text":"é🙂\\n\\"q\\""}', '[1,{"a":[2]}]', '{"unfinished":', ''),
    cuts: fc.array(fc.nat(20), { maxLength: 3 }),
  })
  .map(({ index, shape, name, args, cuts }) => {
    const id = `call_${index}`;
    const bounds = [...new Set(cuts.map((c) => Math.min(c, args.length)))].sort((a, b) => a - b);
    const pieces: string[] = [];
    let from = 0;
    for (const at of [...bounds, args.length]) {
      pieces.push(args.slice(from, at));
      from = at;
    }
    const at = shape === 'no-index' ? {} : { index };
    if (shape === 'one-piece') return [chunkOf({ tool_calls: [{ ...at, id, type: 'function', function: { name, arguments: args } }] })];
    const first = shape === 'name-later' ? { ...at, id, function: { arguments: pieces.shift() ?? '' } } : { ...at, id, type: 'function', function: { name, arguments: '' } };
    const rest = pieces.map((piece, i) => ({ ...at, function: { ...(shape === 'name-later' && i === 0 ? { name } : {}), arguments: piece } }));
    if (shape === 'name-later' && rest.length === 0) rest.push({ ...at, function: { name, arguments: '' } });
    return [first, ...rest].map((call) => chunkOf({ tool_calls: [call] }));
  });

// The data of a few events in a row: coherent runs (text, reasoning, a tool call, the finish and the usage) and anything else.
const eventRun = fc.oneof(
  { weight: 3, arbitrary: fc.array(text, { minLength: 1, maxLength: 4 }).map((ts) => ts.map((t) => chunkOf({ role: 'assistant', content: t }))) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('reasoning_content', 'reasoning'), fc.array(text, { minLength: 1, maxLength: 3 })).map(([field, ts]) => ts.map((t) => chunkOf({ [field]: t }))) },
  { weight: 3, arbitrary: toolCallRun },
  { weight: 2, arbitrary: fc.tuple(finishReason, nullish(usage)).map(([finish, u]) => [chunkOf({}, finish ?? 'stop'), JSON.stringify({ id: 'chatcmpl-1', choices: [], usage: u })]) },
  { weight: 3, arbitrary: chunk.map((c) => [JSON.stringify(c)]) },
  { weight: 1, arbitrary: errorChunk.map((c) => [JSON.stringify(c)]) },
  { weight: 1, arbitrary: fc.constantFrom('[DONE]', '', '{', 'not json', '{"choices":"x"}', '{"choices":[{"delta":{"content":5}}]}', '{"choices":[],"created":"soon"}', '{"choices":[],"created":1e999}', '[]', '{"__proto__":{"x":1},"choices":[]}', '{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}', '{"choices":[{"delta":null}],"error":{"message":"both"}}', '{"\\u005f_proto__":{},"choices":[]}', '{"choices":[],"constructor":{"prototype":{}}}', '{"choices":[],"constructor":1,"proto":2}', '{"choices":[{"delta":{"content":"\\u00e9\\n"}}]}').map((d) => [d]) },
  { weight: 1, arbitrary: chunk.map((c) => [JSON.stringify(c, null, 1)]) }, // JSON over several data: lines
);

const newline = fc.constantFrom('\n', '\r\n', '\r');
const junkLine = fc.constantFrom(': keep-alive', ':', 'event: message', 'id: 7', 'retry: 100', 'retry: x', 'unknown: y', 'data');

/** An event as lines: its data (one data: line per line of it, with or without the space), maybe junk, then the blank line. */
const event = (data: string) => fc.tuple(fc.boolean(), fc.option(junkLine, { nil: undefined }), newline).map(([space, junk, nl]) => {
  const lines = data.split('\n').map((line) => `data:${space ? ' ' : ''}${line}`);
  if (junk) lines.splice(1, 0, junk);
  return lines.join(nl) + nl + nl;
});

/** The body: events, maybe a final one cut short, split at arbitrary byte offsets. */
const body = fc
  .tuple(
    fc.array(eventRun, { maxLength: 6 }).chain((runs) => fc.tuple(...runs.flat().map(event))),
    // The tail starts with a LF: after an event ended by a lone CR, eventsource-parser waits for bytes with a line end in
    // them before it takes that CR as one, so the SDK would drop the event when the body then ends without any (ours dispatches it).
    fc.option(eventRun.chain((run) => event(run[0]!)).map((e) => `\n${e.slice(0, Math.max(1, e.length - 3))}`), { nil: undefined }),
    fc.array(fc.nat(), { maxLength: 8 }),
  )
  .map(([events, tail, cuts]) => {
    const bytes = encoder.encode(events.join('') + (tail ?? ''));
    const offsets = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) => a - b);
    const pieces: Uint8Array[] = [];
    let from = 0;
    for (const at of [...offsets, bytes.length]) {
      if (at > from) pieces.push(bytes.slice(from, at));
      from = Math.max(from, at);
    }
    return pieces;
  });

const providerOptions = fc.option(fc.record({ openaiCompatible: fc.record({ name: fc.constantFrom('n1', 'n2') }) }), { nil: undefined });
const bytes = fc.uint8Array({ maxLength: 6 });
const fileData = fc.oneof(bytes, bytes.map((b) => Buffer.from(b).toString('base64')), fc.constant(new URL('https://example.com/a.png')));

const userPart = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text, providerOptions }, { requiredKeys: ['type', 'text'] }),
  fc.record({ type: fc.constant('file' as const), mediaType: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('image/png', 'image/*', 'application/pdf', 'text/plain', 'audio/wav') }, { weight: 1, arbitrary: fc.constantFrom('audio/mpeg', 'audio/ogg', 'video/mp4') }), data: fileData, filename: maybe(fc.constant('f.pdf')) }, { requiredKeys: ['type', 'mediaType', 'data'] }),
);
const toolInput = fc.oneof(fc.constant('{"path":"a"}'), fc.constant('not json'), fc.constant({ path: 'b', n: 1 }), fc.constant([1, 2]));
const assistantPart = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({ type: fc.constant('reasoning' as const), text }),
  fc.record({ type: fc.constant('tool-call' as const), toolCallId: fc.constantFrom('t1', 't2'), toolName: fc.constantFrom('read', 'write'), input: toolInput, providerOptions: fc.option(fc.constant({ google: { thoughtSignature: 'sig' } }), { nil: undefined }) }, { requiredKeys: ['type', 'toolCallId', 'toolName', 'input'] }),
);
const output = fc.oneof(
  fc.record({ type: fc.constant('text' as const), value: text }),
  fc.record({ type: fc.constant('error-text' as const), value: text }),
  fc.record({ type: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ type: fc.constant('error-json' as const), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ type: fc.constant('execution-denied' as const), reason: maybe(text) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('content' as const), value: fc.array(fc.record({ type: fc.constant('text' as const), text }), { maxLength: 2 }) }),
);
const message = fc.oneof(
  fc.record({ role: fc.constant('system' as const), content: text, providerOptions }, { requiredKeys: ['role', 'content'] }),
  fc.record({ role: fc.constant('user' as const), content: fc.array(userPart, { minLength: 1, maxLength: 3 }), providerOptions }, { requiredKeys: ['role', 'content'] }),
  fc.record({ role: fc.constant('assistant' as const), content: fc.array(assistantPart, { maxLength: 3 }) }),
  fc.record({ role: fc.constant('tool' as const), content: fc.array(fc.record({ type: fc.constant('tool-result' as const), toolCallId: fc.constantFrom('t1', 't2'), toolName: fc.constant('read'), output }), { minLength: 1, maxLength: 2 }) }),
);

const callOptions: fc.Arbitrary<LanguageModelV3CallOptions> = fc
  .record(
    {
      prompt: fc.array(message, { minLength: 1, maxLength: 4 }) as fc.Arbitrary<LanguageModelV3Prompt>,
      maxOutputTokens: maybe(fc.nat(4096)),
      temperature: maybe(fc.constantFrom(0, 0.5, 1)),
      topP: maybe(fc.constant(0.9)),
      topK: maybe(fc.constant(40)),
      frequencyPenalty: maybe(fc.constant(0.1)),
      presencePenalty: maybe(fc.constant(0.2)),
      stopSequences: maybe(fc.constant(['END'])),
      seed: maybe(fc.constant(7)),
      headers: maybe(fc.constantFrom({ 'X-Extra': 'yes' }, { 'User-Agent': 'mine' }, { 'x-gone': undefined })),
      includeRawChunks: maybe(fc.boolean()),
      tools: maybe(
        fc.array(
          fc.oneof(
            fc.record({ type: fc.constant('function' as const), name: fc.constantFrom('read', 'write'), description: maybe(text), inputSchema: fc.constant({ type: 'object', properties: { path: { type: 'string' } } }), strict: maybe(fc.boolean()) }, { requiredKeys: ['type', 'name', 'inputSchema'] }),
            fc.record({ type: fc.constant('provider' as const), id: fc.constant('x.search') as fc.Arbitrary<`${string}.${string}`>, name: fc.constant('search'), args: fc.constant({}) }),
          ),
          { maxLength: 3 },
        ),
      ),
      toolChoice: maybe(fc.oneof(fc.constantFrom({ type: 'auto' as const }, { type: 'none' as const }, { type: 'required' as const }), fc.constant({ type: 'tool' as const, toolName: 'read' }))),
    },
    { requiredKeys: ['prompt'] },
  )
  .map((options) => options as LanguageModelV3CallOptions);

test('the same call and the same SSE bytes give the same request and the same parts as the SDK', async () => {
  await fc.assert(
    fc.asyncProperty(callOptions, body, fc.constantFrom(undefined, 'sk-test'), fc.constantFrom('local', 'openrouter', 'my-server'), fc.constantFrom('model-response' as const, 'web-response' as const), async (options, pieces, apiKey, name, as) => {
      const serve = (): ServedResponse => ({ pieces });
      const { sdk, lean, sdkSent, leanSent } = bothModels(serve, { name, as, ...(apiKey ? { apiKey } : {}) });
      const expected = await run(sdk, options);
      const actual = await run(lean, options);
      assert.deepStrictEqual(leanSent, sdkSent);
      assertSameOutcome(actual, expected);
    }),
    { numRuns: 400 },
  );
});

test('HTTP errors: the same APICallError (status, retryability, headers, bounded body, data)', async () => {
  const status = fc.constantFrom(400, 401, 404, 408, 409, 429, 500, 502, 503);
  const errorBody = fc.oneof(
    errorChunk.map((c) => JSON.stringify(c)),
    fc.constantFrom('', '   ', 'Bad Gateway', '<html><script>alert(1)</script></html>', '{"error":"plain string"}', '{"message":"no wrapper"}'),
  );
  await fc.assert(
    fc.asyncProperty(status, errorBody, fc.option(fc.constantFrom('0', '2', 'Wed, 21 Oct 2026 07:28:00 GMT'), { nil: undefined }), fc.constantFrom('model-response' as const, 'web-response' as const), async (code, text, retryAfter, as) => {
      const serve = (): ServedResponse => ({ status: code, headers: { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) }, pieces: [encoder.encode(text)] });
      const { sdk, lean } = bothModels(serve, { as });
      const options: LanguageModelV3CallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
      assert.deepStrictEqual(await run(lean, options), await run(sdk, options));
    }),
    { numRuns: 100 },
  );
});
