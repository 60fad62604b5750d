// The step driver (agent/core/modelStep.ts) against the ai SDK's streamText,
// which the turn used before: both are fed the same model double and compared
// on everything the turn uses: what doStream received (prompt, tools, tool
// choice, settings), the parts in order (deltas, tool calls valid and invalid,
// finish reason, usage, errors) and the response messages the history keeps.
// fast-check generates the histories and the model's part sequences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jsonSchema, streamText, type ModelMessage, type ToolSet } from 'ai';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { ModelStep, type ModelTool } from '../../../agent/core/modelStep';
import { scriptedModel, type Script } from './modelStepDouble';

const SUPPORTED_URLS = { 'image/*': [/^https:\/\/ok\.example\//] };

const TOOLS: ModelTool[] = [
  { type: 'function', name: 'read', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, providerOptions: undefined },
  { type: 'function', name: 'run', description: 'Run a command', inputSchema: { type: 'object', properties: { command: { type: 'string' } } }, providerOptions: undefined },
];

const toolSet = (tools: readonly ModelTool[]): ToolSet =>
  Object.fromEntries(tools.map((tool) => [tool.name, { description: tool.description, inputSchema: jsonSchema(tool.inputSchema as never) }]));

interface Case {
  history: ModelMessage[];
  script: Script;
  tools: ModelTool[];
  toolChoice: 'auto' | 'none';
  providerOptions?: Record<string, Record<string, string>>;
}

/** What the turn sees of one step, in order, plus what doStream got and the history's new messages. */
interface Observed {
  events: unknown[];
  calls: unknown[];
  messages?: unknown;
}

/** Plain data for deep comparison: no undefined keys, bytes as base64, URLs and errors as text. */
function plain(value: unknown): unknown {
  if (value === undefined || value === null || typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('base64') };
  if (value instanceof URL) return { url: value.toString() };
  if (value instanceof AbortSignal) return 'signal';
  if (Array.isArray(value)) return value.map(plain);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (inner !== undefined) out[key] = plain(inner);
  return out;
}

const describeError = (error: unknown) =>
  error instanceof Error ? { name: error.name, message: error.message } : { text: typeof error === 'string' ? error : JSON.stringify(error) };

function record(events: unknown[], part: { type: string } & Record<string, any>): void {
  switch (part.type) {
    case 'text-delta':
    case 'reasoning-delta':
      events.push({ type: part.type, text: part.text });
      break;
    case 'tool-call':
      events.push(plain({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, invalid: part.invalid === true, error: part.invalid ? describeError(part.error) : undefined }));
      break;
    case 'finish-step':
      events.push(plain({ type: 'finish-step', finishReason: part.finishReason, usage: part.usage }));
      break;
    case 'error':
      events.push({ type: 'error', error: describeError(part.error) });
      break;
  }
}

async function viaStreamText(c: Case): Promise<Observed> {
  const model = scriptedModel(structuredClone(c.script), SUPPORTED_URLS);
  const events: unknown[] = [];
  let failed = false;
  const result = streamText({
    model,
    system: 'You are a test.',
    messages: structuredClone(c.history),
    tools: toolSet(c.tools),
    ...(c.toolChoice === 'none' ? { toolChoice: 'none' as const } : {}),
    ...(c.providerOptions ? { providerOptions: c.providerOptions } : {}),
    abortSignal: new AbortController().signal,
    maxRetries: 0,
    onError: () => {},
  });
  try {
    for await (const part of result.fullStream) {
      if (part.type === 'error') failed = true;
      record(events, part as never);
    }
  } catch (error) {
    failed = true;
    events.push({ type: 'error', error: describeError(error) });
  }
  return { events, calls: model.calls.map(plain), ...(failed ? {} : { messages: plain((await result.response).messages) }) };
}

async function viaModelStep(c: Case): Promise<Observed> {
  const model = scriptedModel(structuredClone(c.script), SUPPORTED_URLS);
  const events: unknown[] = [];
  let failed = false;
  const step = new ModelStep({
    model,
    system: 'You are a test.',
    messages: structuredClone(c.history),
    tools: c.tools,
    toolChoice: c.toolChoice,
    ...(c.providerOptions ? { providerOptions: c.providerOptions } : {}),
    abortSignal: new AbortController().signal,
    maxRetries: 0,
  });
  for await (const part of step.parts()) {
    if (part.type === 'error') failed = true;
    record(events, part);
  }
  return { events, calls: model.calls.map(plain), ...(failed ? {} : { messages: plain(step.responseMessages()) }) };
}

// --- generators -------------------------------------------------------------

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).toString('base64');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46]).toString('base64');

const metadata = fc.option(fc.constantFrom({ test: { signature: 'sig' } }, { test: { cache: 'ephemeral' } }, { other: { a: '1' } }), { nil: undefined });
const json = fc.oneof(
  fc.constantFrom<unknown>({}, { path: 'a.ts' }, { command: 'ls', args: ['-l'] }, [1, 2], 'text', 3, null, { nested: { deep: [{ x: 1 }] } }),
);
const text = fc.constantFrom('', 'hello', 'two words', 'ünïcödé ✓', '\n');

const userPart = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({ type: fc.constant('image' as const), image: fc.constantFrom(PNG, JPEG, `data:image/png;base64,${PNG}`, 'https://ok.example/cat.png'), mediaType: fc.option(fc.constantFrom('image/jpeg', 'image/png'), { nil: undefined }) }),
  fc.record({ type: fc.constant('file' as const), data: fc.constantFrom('aGVsbG8=', 'data:text/plain;base64,aGVsbG8='), mediaType: fc.constantFrom('text/plain', 'application/pdf'), filename: fc.option(fc.constant('a.txt'), { nil: undefined }) }),
);

const toolOutput = fc.oneof(
  fc.record({ type: fc.constant('text' as const), value: text }),
  fc.record({ type: fc.constant('error-text' as const), value: text }),
  fc.record({ type: fc.constant('json' as const), value: json }),
  fc.record({ type: fc.constant('error-json' as const), value: json }),
  fc.record({
    type: fc.constant('content' as const),
    value: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant('text' as const), text }),
        fc.record({ type: fc.constant('media' as const), data: fc.constant(PNG), mediaType: fc.constantFrom('image/png', 'application/pdf') }),
        fc.record({ type: fc.constant('image-data' as const), data: fc.constant(PNG), mediaType: fc.constant('image/png') }),
      ),
      { maxLength: 3 },
    ),
  }),
);

/** One exchange: a user message, the assistant's reply (maybe with calls), the results (maybe missing). */
const exchange = fc
  .record({
    user: fc.oneof(text, fc.array(userPart, { minLength: 1, maxLength: 3 })),
    userOptions: metadata,
    reply: fc.oneof(
      text,
      fc.array(
        fc.oneof(
          fc.record({ type: fc.constant('text' as const), text, providerOptions: metadata }),
          fc.record({ type: fc.constant('reasoning' as const), text, providerOptions: metadata }),
          fc.record({ type: fc.constant('file' as const), data: fc.constant(PNG), mediaType: fc.constant('image/png') }),
        ),
        { maxLength: 3 },
      ),
    ),
    calls: fc.array(fc.record({ toolName: fc.constantFrom('read', 'run'), input: json, output: toolOutput, providerOptions: metadata }), { maxLength: 3 }),
    answered: fc.constantFrom('all', 'all', 'all', 'none', 'split'),
  })
  .map(({ user, userOptions, reply, calls, answered }, ) => {
    const messages: ModelMessage[] = [{ role: 'user', content: user, ...(userOptions ? { providerOptions: userOptions } : {}) } as ModelMessage];
    const ids = calls.map((_, i) => `call_${i}_${Math.random().toString(36).slice(2, 6)}`);
    const callParts = calls.map((call, i) => ({ type: 'tool-call' as const, toolCallId: ids[i]!, toolName: call.toolName, input: call.input, ...(call.providerOptions ? { providerOptions: call.providerOptions } : {}) }));
    messages.push({ role: 'assistant', content: typeof reply === 'string' && callParts.length === 0 ? reply : [...(typeof reply === 'string' ? [{ type: 'text' as const, text: reply }] : reply), ...callParts] } as ModelMessage);
    const results = calls.map((call, i) => ({ type: 'tool-result' as const, toolCallId: ids[i]!, toolName: call.toolName, output: call.output }));
    if (results.length > 0 && answered === 'all') messages.push({ role: 'tool', content: results } as ModelMessage);
    if (results.length > 0 && answered === 'split') {
      // Two tool messages in a row: the prompt merges them into one.
      messages.push({ role: 'tool', content: results.slice(0, 1), providerOptions: { test: { first: 'yes' } } } as ModelMessage);
      if (results.length > 1) messages.push({ role: 'tool', content: results.slice(1) } as ModelMessage);
    }
    return messages;
  });

const history = fc.array(exchange, { minLength: 1, maxLength: 3 }).map((exchanges) => [...exchanges.flat(), { role: 'user', content: 'go on' } as ModelMessage]);

const textId = fc.constantFrom('0', '1', 't');
const toolInput = fc.constantFrom('{"path":"a.ts"}', '', '  ', 'not json', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"x":1}}}', '[1,2', '{"a":{"b":{"c":[1,2,{"d":null}]}}}', 'null', '"str"', '42');
const usage = fc.record({
  inputTokens: fc.record({ total: fc.option(fc.nat(5000), { nil: undefined }), noCache: fc.option(fc.nat(5000), { nil: undefined }), cacheRead: fc.option(fc.nat(500), { nil: undefined }), cacheWrite: fc.option(fc.nat(500), { nil: undefined }) }),
  outputTokens: fc.record({ total: fc.option(fc.nat(5000), { nil: undefined }), text: fc.option(fc.nat(5000), { nil: undefined }), reasoning: fc.option(fc.nat(500), { nil: undefined }) }),
  raw: fc.option(fc.constant({ prompt_tokens: 1 }), { nil: undefined }),
});

// Casts: generated optional fields may be present as undefined, which the strict part types do not allow.
const part = fc.oneof(
  { weight: 3, arbitrary: fc.record({ type: fc.constant('text-start' as const), id: textId, providerMetadata: metadata }) },
  { weight: 8, arbitrary: fc.record({ type: fc.constant('text-delta' as const), id: textId, delta: text, providerMetadata: metadata }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('text-end' as const), id: textId, providerMetadata: metadata }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('reasoning-start' as const), id: textId, providerMetadata: metadata }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('reasoning-delta' as const), id: textId, delta: text, providerMetadata: metadata }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('reasoning-end' as const), id: textId, providerMetadata: metadata }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('tool-input-start' as const), id: fc.constant('c1'), toolName: fc.constant('read') }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('tool-input-delta' as const), id: fc.constant('c1'), delta: fc.constant('{"pa') }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('tool-input-end' as const), id: fc.constant('c1') }) },
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('tool-call' as const),
      toolCallId: fc.constantFrom('c1', 'c2', 'c3'),
      // Names that are Object.prototype keys are left out here: streamText looks them up on a plain object
      // and takes them for tools; the driver flags them invalid (see the attack test).
      toolName: fc.constantFrom('read', 'run', 'not_ours'),
      input: toolInput,
      providerExecuted: fc.option(fc.boolean(), { nil: undefined }),
      dynamic: fc.option(fc.boolean(), { nil: undefined }),
      providerMetadata: metadata,
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('tool-result' as const), toolCallId: fc.constantFrom('c1', 'p1'), toolName: fc.constant('web_search'), result: json as fc.Arbitrary<any>, providerMetadata: metadata }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('file' as const), mediaType: fc.constant('image/png'), data: fc.constantFrom(PNG, new Uint8Array([1, 2, 3]) as any) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('source' as const), sourceType: fc.constant('url' as const), id: fc.constant('s1'), url: fc.constant('https://example.com/') }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('response-metadata' as const), id: fc.constant('resp_1'), modelId: fc.constant('m') }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('error' as const), error: fc.constantFrom<unknown>('overloaded', { message: 'rate limited' }, new Error('provider said <script>alert(1)</script>')) }) },
) as unknown as fc.Arbitrary<LanguageModelV3StreamPart>;

const finish = fc.record({
  type: fc.constant('finish' as const),
  finishReason: fc.record({ unified: fc.constantFrom('stop' as const, 'length' as const, 'content-filter' as const, 'tool-calls' as const, 'error' as const, 'other' as const), raw: fc.option(fc.constantFrom('stop', 'end_turn', 'max_tokens'), { nil: undefined }) }),
  usage,
  providerMetadata: metadata,
});

const script = fc
  .record({
    start: fc.boolean(),
    parts: fc.array(part, { maxLength: 14 }),
    end: fc.constantFrom('finish', 'finish', 'finish', 'none', 'throws', 'finish-then-more'),
    finish,
    tail: fc.array(part, { maxLength: 3 }),
  })
  .map(({ start, parts, end, finish, tail }) => {
    const head: LanguageModelV3StreamPart[] = start ? [{ type: 'stream-start', warnings: [] }] : [];
    if (end === 'throws') return { parts: [...head, ...parts], streamThrows: new Error('socket hang up') };
    if (end === 'none') return { parts: [...head, ...parts] };
    if (end === 'finish-then-more') return { parts: [...head, ...parts, finish, ...tail, { ...finish, usage: { ...finish.usage, raw: undefined } }] };
    return { parts: [...head, ...parts, finish] };
  }) as unknown as fc.Arbitrary<Script>;

const testCase = fc.record({
  history,
  script,
  tools: fc.constantFrom(TOOLS, [] as ModelTool[]),
  toolChoice: fc.constantFrom('auto' as const, 'auto' as const, 'none' as const),
  providerOptions: fc.option(fc.constantFrom({ test: { store: 'false' } }, { openai: { reasoningEffort: 'low' } }), { nil: undefined }),
}) as unknown as fc.Arbitrary<Case>;

test('the step driver gives what streamText gave for the same history and model stream (differential, generated)', async () => {
  await fc.assert(
    fc.asyncProperty(testCase, async (c) => {
      const [reference, ours] = [await viaStreamText(c), await viaModelStep(c)];
      assert.deepEqual(ours.calls, reference.calls, 'doStream options');
      assert.deepEqual(ours.events, reference.events, 'parts');
      assert.deepEqual(ours.messages, reference.messages, 'response messages');
    }),
    { numRuns: 400 },
  );
});

test('a history with an unanswered tool call fails the same way before any request', async () => {
  const c: Case = {
    history: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'x1', toolName: 'read', input: {} }, { type: 'tool-call', toolCallId: 'x2', toolName: 'read', input: {} }] },
      { role: 'user', content: 'again' },
    ],
    script: { parts: [] },
    tools: TOOLS,
    toolChoice: 'auto',
  };
  const [reference, ours] = [await viaStreamText(c), await viaModelStep(c)];
  assert.deepEqual(ours, reference);
  assert.deepEqual(ours.events, [{ type: 'error', error: { name: 'AI_MissingToolResultsError', message: 'Tool results are missing for tool calls x1, x2.' } }]);
  assert.equal(ours.calls.length, 0);
});

test('invalid calls: unknown tool, unreadable input and prototype keys are flagged and answered with the same tool error', async () => {
  const c: Case = {
    history: [{ role: 'user', content: 'go' }],
    script: {
      parts: [
        { type: 'tool-call', toolCallId: 'a', toolName: 'not_ours', input: '{}' },
        { type: 'tool-call', toolCallId: 'b', toolName: 'read', input: '{"path":' },
        { type: 'tool-call', toolCallId: 'c', toolName: 'read', input: '{"__proto__":{"polluted":true}}' },
        { type: 'tool-call', toolCallId: 'd', toolName: 'read', input: '' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } } },
      ],
    },
    tools: TOOLS,
    toolChoice: 'auto',
  };
  const [reference, ours] = [await viaStreamText(c), await viaModelStep(c)];
  assert.deepEqual(ours, reference);
  const calls = ours.events.filter((e): e is { type: 'tool-call'; invalid: boolean; input: unknown } => (e as { type: string }).type === 'tool-call');
  assert.deepEqual(calls.map((call) => call.invalid), [true, true, true, false]);
  assert.deepEqual(calls[3]!.input, {}, 'empty input reads as {}');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const toolMessage = (ours.messages as Array<{ role: string; content: Array<{ toolCallId: string; output: { type: string } }> }>).find((m) => m.role === 'tool')!;
  assert.deepEqual(toolMessage.content.map((r) => [r.toolCallId, r.output.type]), [['a', 'error-text'], ['b', 'error-text'], ['c', 'error-text']]);
});

test('attack: a damaged history (as a tampered session log could hold) fails before any request, as streamText failed', async () => {
  const damaged: unknown[][] = [
    [],
    [{ role: 'user', content: 5 }],
    [{ role: 'robot', content: 'hi' }],
    [{ role: 'user', content: [{ type: 'text' }] }],
    [{ role: 'user', content: [{ type: 'video', data: 'x' }] }],
    [{ role: 'user', content: [{ type: 'file', data: 'aGk=' }] }],
    [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 1, toolName: 'read', input: {} }] }],
    [{ role: 'user', content: 'hi' }, { role: 'tool', content: 'results' }],
    [{ role: 'user', content: 'hi' }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'read', output: { type: 'html', value: '<b>' } }] }],
    [{ role: 'user', content: 'hi', providerOptions: 'nope' }],
  ];
  for (const history of damaged) {
    const c: Case = { history: history as ModelMessage[], script: { parts: [] }, tools: TOOLS, toolChoice: 'auto' };
    const [reference, ours] = [await viaStreamText(c), await viaModelStep(c)];
    assert.deepEqual(ours, reference, JSON.stringify(history));
    assert.equal(ours.calls.length, 0, 'nothing was sent');
    assert.equal((ours.events[0] as { error: { name: string } }).error.name, 'AI_InvalidPromptError', JSON.stringify(history));
  }
  // A message that is not an object at all: streamText failed with a TypeError; the driver says what is wrong.
  const ours = await viaModelStep({ history: [null] as unknown as ModelMessage[], script: { parts: [] }, tools: TOOLS, toolChoice: 'auto' });
  assert.deepEqual(ours.events, [{ type: 'error', error: { name: 'AI_InvalidPromptError', message: 'Invalid prompt: The messages do not match the ModelMessage[] schema.' } }]);
});
