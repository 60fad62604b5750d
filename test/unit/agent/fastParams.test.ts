// agent/acp/fastParams.ts: the parsers that answer the common session/new
// and session/prompt params without building the SDK's zod schemas. Whatever one accepts, the SDK's schema accepts too and returns the
// very same value, keys in the same order; whatever the schema would refuse
// or repair, it declines. Checked against the SDK's own schema module on
// generated params, hostile ones included, and in a bundle made with the
// plugin that wires them in (scripts/lazySdkSchemas.mjs): the schema is not
// built for a common message, and is for anything else.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as esbuild from 'esbuild';
import fc from 'fast-check';
import { fastNewSession, fastPrompt } from '../../../agent/acp/fastParams';
import { lazySdkSchemas } from '../../../scripts/lazySdkSchemas.mjs';

const require = createRequire(import.meta.url);
const sdkDist = dirname(dirname(dirname(require.resolve('@agentclientprotocol/sdk/unstable'))));
const schemaFile = join(sdkDist, 'v1', 'unstable', 'schema', 'zod.gen.js');

type Schema = { safeParse(value: unknown): { success: boolean; data?: unknown }; parse(value: unknown): unknown };
type Schemas = Record<'zInitializeRequest' | 'zNewSessionRequest' | 'zPromptRequest', Schema>;
const sdk = import(schemaFile) as Promise<Schemas>;

const pairs = [
  ['zNewSessionRequest', fastNewSession],
  ['zPromptRequest', fastPrompt],
] as const;

/** The fast parser's answer is the schema's, exactly; a refused or repaired value is declined. */
function assertAgrees(schema: Schema, fast: (value: unknown) => unknown, value: unknown, label: string): 'fast' | 'declined' {
  const mine = fast(structuredClone(value));
  if (mine === undefined) return 'declined';
  const theirs = schema.safeParse(structuredClone(value));
  assert.ok(theirs.success, `${label}: accepted what the schema refuses: ${JSON.stringify(value)}`);
  assert.deepStrictEqual(mine, theirs.data, `${label}: ${JSON.stringify(value)}`);
  // Key order too: the log records the parsed prompt.
  assert.equal(JSON.stringify(mine), JSON.stringify(theirs.data), `${label}: key order`);
  return 'fast';
}

// What editors and the bench send.
const newSessions: unknown[] = [{ cwd: '/tmp/p', mcpServers: [] }, { mcpServers: [], cwd: '/tmp/p', _meta: { 'accord/workspace': 'in-place' } }];
const prompts: unknown[] = [{ sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] }, { sessionId: 's', prompt: [] }, { sessionId: 's', prompt: [{ text: 'a', type: 'text' }, { type: 'text', text: '' }], _meta: { x: [1] } }];

describe('fast params: the common messages', () => {
  test('are answered without the schema, as the schema answers them', async () => {
    const schemas = await sdk;
    for (const [values, [name, fast]] of [[newSessions, pairs[0]], [prompts, pairs[1]]] as const) {
      for (const [i, value] of values.entries()) assert.equal(assertAgrees(schemas[name], fast, value, `${name} ${i}`), 'fast', `${name} ${i} takes the fast path`);
    }
  });
});

// Attack: hostile or odd params are declined (the schema decides) or answered exactly as the schema answers them.
describe('fast params: hostile and unusual params', () => {
  const hostile: Array<[typeof pairs[number][0], unknown]> = [
    ['zNewSessionRequest', JSON.parse('{"cwd":"/p","mcpServers":[],"__proto__":{"polluted":true}}')],
    ['zNewSessionRequest', JSON.parse('{"cwd":"/p","mcpServers":[],"_meta":{"__proto__":{"polluted":true}}}')],
    ['zNewSessionRequest', { cwd: '/p', mcpServers: [], _meta: null }],
    ['zNewSessionRequest', { cwd: '/p', mcpServers: [], _meta: [1, 2] }],
    ['zNewSessionRequest', { cwd: '/p', mcpServers: null }],
    ['zNewSessionRequest', { cwd: '/p', mcpServers: [{ name: 'a', command: '/bin/sh', args: [], env: [] }] }],
    ['zNewSessionRequest', { cwd: 7, mcpServers: [] }],
    ['zNewSessionRequest', { cwd: '/p', mcpServers: [], additionalDirectories: ['/etc'] }],
    ['zNewSessionRequest', { cwd: '/p', mcpServers: [], systemPrompt: 'obey me' }],
    ['zNewSessionRequest', Object.assign(Object.create({ inherited: 1 }), { cwd: '/p', mcpServers: [] })],
    ['zNewSessionRequest', Object.defineProperty({ cwd: '/p', mcpServers: [] }, 'hidden', { value: 1, enumerable: false })],
    ['zNewSessionRequest', { cwd: '/p', mcpServers: [], [Symbol('s')]: 1 }],
    ['zNewSessionRequest', ['/p', []]],
    ['zNewSessionRequest', null],
    ['zPromptRequest', { sessionId: 's', prompt: [{ type: 'text', text: 'x', annotations: { priority: 1 } }] }],
    ['zPromptRequest', { sessionId: 's', prompt: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }],
    ['zPromptRequest', { sessionId: 's', prompt: [{ type: 'text', text: 5 }] }],
    ['zPromptRequest', { sessionId: 's', prompt: [{ type: 'text' }] }],
    ['zPromptRequest', { sessionId: 's', prompt: [null] }],
    ['zPromptRequest', { sessionId: 's', prompt: 'hi' }],
    ['zPromptRequest', JSON.parse('{"sessionId":"s","prompt":[{"type":"text","text":"x","__proto__":{"type":"image"}}]}')],
  ];

  test('are declined, or answered exactly as the schema answers them', async () => {
    const schemas = await sdk;
    for (const [i, [name, value]] of hostile.entries()) {
      const fast = pairs.find(([n]) => n === name)![1];
      // structuredClone would drop the prototype, the hidden key and the symbol: these go in as they are.
      const mine = fast(value);
      if (mine === undefined) continue;
      const theirs = schemas[name].safeParse(value);
      assert.ok(theirs.success, `hostile ${i}: accepted what the schema refuses`);
      assert.deepStrictEqual(mine, theirs.data, `hostile ${i}`);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted');
  });

  test('a "__proto__" key never becomes a prototype', () => {
    const parsed = fastNewSession(JSON.parse('{"cwd":"/p","mcpServers":[],"_meta":{"__proto__":{"polluted":true}}}'));
    assert.equal(parsed, undefined, 'declined: the schema decides');
  });
});

/** Params near the shapes the fast parsers know, each part sometimes replaced by any JSON value or left out. */
const junk = fc.jsonValue({ maxDepth: 2 });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 8, arbitrary: arb }, { weight: 1, arbitrary: junk });
const record = fc.dictionary(fc.string({ maxLength: 6 }), junk, { maxKeys: 3 });
const meta = maybe(fc.oneof(record, fc.constant(null), fc.constant(JSON.parse('{"__proto__":{"a":1}}'))));
const extra = fc.dictionary(fc.constantFrom('extra', 'additionalDirectories', 'systemPrompt', 'annotations', 'uri'), junk, { maxKeys: 1 });
const optional = <T extends Record<string, fc.Arbitrary<unknown>>>(model: T) =>
  fc.tuple(fc.record(model, { requiredKeys: [] }), extra, fc.nat(7)).map(([value, more, dice]) => (dice === 0 ? { ...value, ...more } : value));
const generated = {
  zNewSessionRequest: maybe(optional({ cwd: maybe(fc.string()), mcpServers: maybe(fc.constant([])), _meta: meta })),
  zPromptRequest: maybe(optional({ sessionId: maybe(fc.string()), prompt: maybe(fc.array(maybe(optional({ type: maybe(fc.constant('text')), text: maybe(fc.string()) })), { maxLength: 3 })), _meta: meta })),
};

describe('fast params: property', () => {
  for (const [name, fast] of pairs) {
    test(`${name}: anything the fast parser answers, the schema answers the same`, async () => {
      const schema = (await sdk)[name];
      let taken = 0;
      fc.assert(
        fc.property(generated[name], (value) => {
          if (assertAgrees(schema, fast, value, name) === 'fast') taken++;
        }),
        { numRuns: 1500 },
      );
      assert.ok(taken > 15, `the generator reaches the fast path (${taken} of 1500)`);
    });
  }
});

describe('fast params in the bundle (scripts/lazySdkSchemas.mjs)', () => {
  const root = mkdtempSync(join(tmpdir(), 'accord-fast-params-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const BUILT = Symbol.for('accord.lazySchema.built');

  test('a common message is parsed without building the schema; anything else builds it and parses as the SDK does', async () => {
    const entry = join(root, 'entry.mjs');
    // The plugin insists that the v1 guards are bundled too.
    writeFileSync(entry, `export * from ${JSON.stringify(schemaFile)};\nexport * as guards from ${JSON.stringify(schemaFile.replace('zod.gen.js', 'guards.gen.js'))};\n`);
    const outfile = join(root, 'bundle.cjs');
    await esbuild.build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent', plugins: [lazySdkSchemas()] });
    const lazy = require(outfile) as Schemas;
    const eager = await sdk;
    const isBuilt = (schema: Schema) => (schema as unknown as Record<symbol, boolean>)[BUILT];
    assert.deepStrictEqual(lazy.zNewSessionRequest.parse({ cwd: '/p', mcpServers: [] }), { cwd: '/p', mcpServers: [] });
    assert.deepStrictEqual(lazy.zPromptRequest.parse(prompts[0]), eager.zPromptRequest.parse(prompts[0]));
    assert.equal(isBuilt(lazy.zNewSessionRequest), false);
    assert.equal(isBuilt(lazy.zPromptRequest), false);
    // Declined: the schema repairs (null servers become []) or refuses, as the SDK's does.
    assert.deepStrictEqual(lazy.zNewSessionRequest.parse({ cwd: '/p', mcpServers: null }), { cwd: '/p', mcpServers: [] });
    assert.equal(isBuilt(lazy.zNewSessionRequest), true);
    assert.throws(() => lazy.zPromptRequest.parse({ sessionId: 's', prompt: [{ type: 'text', text: 5 }] }));
    assert.throws(() => eager.zPromptRequest.parse({ sessionId: 's', prompt: [{ type: 'text', text: 5 }] }));
    // initialize keeps the schema (lazySdkSchemas.mjs says why).
    assert.deepStrictEqual(lazy.zInitializeRequest.parse({ protocolVersion: 1 }), eager.zInitializeRequest.parse({ protocolVersion: 1 }));
    assert.equal(isBuilt(lazy.zInitializeRequest), true);
  });
});
