// scripts/lazySdkSchemas.mjs: in dist/agent-core.js the ACP SDK's generated
// schemas are built on first use, and each validates exactly as the SDK's own
// module does (same success, same data, same issues), checked on the real SDK
// files bundled with and without the plugin. A module of a shape the
// transform does not expect, or a build that no longer bundles the v1
// schemas, fails the build. The agent bundle itself (dist/) is checked
// against the source build message by message in test/unit/agent/wireErrors.test.ts.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as esbuild from 'esbuild';
import fc from 'fast-check';
import { lazySchemaModule, lazySdkSchemas } from '../../../scripts/lazySdkSchemas.mjs';

const root = mkdtempSync(join(tmpdir(), 'accord-lazy-schemas-'));
after(() => rmSync(root, { recursive: true, force: true }));

const require = createRequire(import.meta.url);
const sdkDist = dirname(dirname(dirname(require.resolve('@agentclientprotocol/sdk/unstable'))));
const schemaFile = (version: 'v1' | 'v2') => join(sdkDist, version, 'unstable', 'schema', 'zod.gen.js');
type Guards = Record<string, Record<string, (value: unknown) => boolean>>;

type Schema = { safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } }; shape?: Record<string, unknown>; _zod: { def: { type: string } } };
const BUILT = Symbol.for('accord.lazySchema.built');
const built = (schema: Schema) => (schema as unknown as Record<symbol, boolean>)[BUILT];
type Schemas = Record<string, Schema>;

/** The SDK's schema module bundled as it is (`eager`) and through the plugin (`lazy`). */
async function bundled(version: 'v1' | 'v2'): Promise<{ eager: Schemas; lazy: Schemas; eagerGuards: Guards; lazyGuards: Guards }> {
  const entry = join(root, `${version}-entry.mjs`);
  writeFileSync(entry, `export * from ${JSON.stringify(schemaFile(version))};\nexport * as guards from ${JSON.stringify(schemaFile(version).replace('zod.gen.js', 'guards.gen.js'))};\n`);
  const build = async (name: string, plugins: esbuild.Plugin[]) => {
    const outfile = join(root, `${version}-${name}.cjs`);
    await esbuild.build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent', plugins });
    return require(outfile) as Record<string, unknown>;
  };
  // The plugin insists on the v1 module; a v2-only build checks the transform alone.
  const plugin: esbuild.Plugin = version === 'v1' ? lazySdkSchemas() : { name: 'v2', setup: (b) => b.onLoad({ filter: /(zod|guards)\.gen\.js$/ }, (a) => ({ contents: lazySchemaModule(readFileSync(a.path, 'utf8'), a.path), loader: 'js' })) };
  const split = (all: Record<string, unknown>) => {
    const { guards, ...schemas } = all;
    return { schemas: schemas as Schemas, guards: guards as Guards };
  };
  const eager = split(await build('eager', []));
  const lazy = split(await build('lazy', [plugin]));
  return { eager: eager.schemas, lazy: lazy.schemas, eagerGuards: eager.guards, lazyGuards: lazy.guards };
}

const v1 = bundled('v1');

/** Valid v1 messages' params and results, to validate as they are and mutated. */
const samples: unknown[] = [
  { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true }, clientInfo: { name: 'zed', version: '1' } },
  { protocolVersion: 1 },
  { cwd: '/tmp/p', mcpServers: [{ name: 'a', command: '/bin/a', args: ['x'], env: [{ name: 'K', value: 'v' }] }, { type: 'http', name: 'h', url: 'http://127.0.0.1:1', headers: [{ name: 'a', value: 'b' }] }] },
  { cwd: '/tmp/p', mcpServers: [], _meta: { accord: { workspace: 'in-place' } } },
  { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }, { type: 'resource_link', uri: 'file:///a', name: 'a' }, { type: 'image', data: 'AA==', mimeType: 'image/png' }, { type: 'resource', resource: { uri: 'file:///a', text: 't' } }] },
  { sessionId: 's' },
  { sessionId: 's', modeId: 'auto' },
  { sessionId: 's', configId: 'model', value: 'm' },
  { sessionId: 's', configId: 'fast', type: 'boolean', value: true },
  { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } } },
  { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 'Read', kind: 'read', status: 'pending', locations: [{ path: '/a', line: 3 }] } },
  { sessionId: 's', toolCall: { toolCallId: 't', title: 'Edit' }, options: [{ optionId: 'allow_once', name: 'Allow', kind: 'allow_once' }] },
  { sessionId: 's', path: '/a', line: 1, limit: 4294967296 },
  { sessionId: 's', command: 'ls', args: [], env: [], outputByteLimit: 10 },
  { methodId: 'm' },
  { stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
];

/** A sample with the value at one path (chosen by `steps`) replaced. */
function mutated(sample: unknown, steps: number[], replacement: unknown): unknown {
  const copy = structuredClone(sample);
  if (steps.length === 0 || copy === null || typeof copy !== 'object') return replacement;
  let at = copy as Record<string, unknown>;
  for (const [i, step] of steps.entries()) {
    const keys = Object.keys(at);
    if (keys.length === 0) break;
    const key = keys[step % keys.length]!;
    const next = at[key];
    if (i === steps.length - 1 || next === null || typeof next !== 'object') {
      at[key] = replacement;
      break;
    }
    at = next as Record<string, unknown>;
  }
  return copy;
}

/** Values the guards tell apart: elicitations, their property schemas and items, state updates. */
const guardSamples: unknown[] = [
  { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } },
  { mode: 'url', message: 'm', url: 'https://x', elicitationId: 'e' },
  { mode: 'other', message: 'm', sessionId: 's' },
  { type: 'string', title: 't' },
  { type: 'number', minimum: 1 },
  { type: 'integer' },
  { type: 'boolean', default: true },
  { type: 'array', items: { type: 'string', enum: ['a'] } },
  { anyOf: [{ const: 'a', title: 'A' }] },
  { state: 'running' },
  { state: 'idle', stopReason: 'end_turn' },
  { state: 'idle', stopReason: 'error', error: { code: 1, message: 'x' } },
  { state: 'requires_action' },
  { action: 'accept', content: { a: 'x' } },
  { action: 'decline' },
  { action: 'cancel' },
  { stopReason: 'refusal' },
  null,
  'x',
  {},
];

function assertSameGuards(eager: Guards, lazy: Guards, values: unknown[]): void {
  assert.deepEqual(Object.keys(lazy).sort(), Object.keys(eager).sort());
  let matched = 0;
  for (const [name, guards] of Object.entries(eager)) {
    if (typeof guards !== 'object' || guards === null) continue;
    for (const [method, guard] of Object.entries(guards)) {
      if (typeof guard !== 'function') continue;
      for (const [i, value] of values.entries()) {
        const expected = guard(structuredClone(value));
        if (expected) matched++;
        assert.equal(lazy[name]![method]!(structuredClone(value)), expected, `${name}.${method} sample ${i}`);
      }
    }
  }
  assert.ok(matched > 5, 'the samples match some guards');
}

function assertSame(eager: Schema, lazy: Schema, value: unknown, label: string): void {
  const a = eager.safeParse(structuredClone(value));
  const b = lazy.safeParse(structuredClone(value));
  assert.equal(b.success, a.success, `${label}: success`);
  if (a.success) assert.deepEqual(b.data, a.data, `${label}: data`);
  else assert.deepEqual(b.error!.issues, a.error!.issues, `${label}: issues`);
}

describe('the ACP SDK schemas built on first use', () => {
  test('the module exports every schema the SDK exports; none is built at load, each when first used', async () => {
    const { eager, lazy } = await v1;
    assert.ok(Object.keys(eager).length > 200);
    assert.deepEqual(Object.keys(lazy).sort(), Object.keys(eager).sort());
    for (const [name, schema] of Object.entries(lazy)) assert.equal(built(schema), false, `${name} is built at load`);
    lazy.zInitializeRequest!.safeParse(samples[0]);
    assert.equal(built(lazy.zInitializeRequest!), true);
    assert.equal(built(lazy.zClientCapabilities!), true, 'what it is made of is built with it');
    for (const name of ['zPromptRequest', 'zContentBlock', 'zSessionNotification', 'zNewSessionRequest']) assert.equal(built(lazy[name]!), false, `validating an initialize builds ${name}`);
  });

  test('a stand-in is the schema to every reader: its type, shape, keys, methods and instanceof', async () => {
    const { eager, lazy } = await v1;
    const schema = lazy.zMcpServerStdio!;
    assert.equal(schema._zod.def.type, eager.zMcpServerStdio!._zod.def.type);
    assert.deepEqual(Object.keys(schema.shape!), Object.keys(eager.zMcpServerStdio!.shape!));
    assert.deepEqual(Object.keys(schema).sort(), Object.keys(eager.zMcpServerStdio!).sort());
    assert.ok('parse' in schema);
    assert.equal(Object.getPrototypeOf(schema), Object.getPrototypeOf(lazy.zInitializeRequest));
    // Composed with other schemas (the SDK's guards do `.and(...)` at load), it validates as the original.
    const composed = (lazy.zSessionId as unknown as { nullish(): Schema }).nullish();
    assert.equal(composed.safeParse(null).success, true);
    assert.equal(composed.safeParse(5).success, false);
  });

  test('every schema accepts, rejects and transforms the samples exactly as the SDK module does', async () => {
    const { eager, lazy } = await v1;
    // The samples are valid messages: the comparison covers accepting, not only rejecting.
    for (const [name, i] of [['zInitializeRequest', 0], ['zNewSessionRequest', 2], ['zPromptRequest', 4], ['zSetSessionConfigOptionRequest', 8], ['zSessionNotification', 9], ['zRequestPermissionRequest', 11]] as const) {
      assert.equal(lazy[name]!.safeParse(samples[i]).success, true, `${name} accepts sample ${i}`);
    }
    for (const name of Object.keys(eager)) {
      for (const [i, sample] of [...samples, null, 'x', 7, [], {}].entries()) assertSame(eager[name]!, lazy[name]!, sample, `${name} sample ${i}`);
    }
  });

  test('property: a mutated message gets the same result, data and issues from both', async () => {
    const { eager, lazy } = await v1;
    const names = Object.keys(eager).sort();
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.constantFrom(...samples), fc.array(fc.nat(), { maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }), (name, sample, steps, replacement) => {
        assertSame(eager[name]!, lazy[name]!, mutated(sample, steps, replacement), name);
      }),
      { numRuns: 3000 },
    );
  });

  test("the SDK's type guards (guards.gen.js, whose schemas are built on first use too) answer as the SDK's own", async () => {
    const { eagerGuards, lazyGuards } = await v1;
    assertSameGuards(eagerGuards, lazyGuards, guardSamples);
  });

  test("the v2 draft's schema and guard modules take the same transform and validate the same", async () => {
    const { eager, lazy, eagerGuards, lazyGuards } = await bundled('v2');
    assert.deepEqual(Object.keys(lazy).sort(), Object.keys(eager).sort());
    for (const name of Object.keys(eager)) {
      for (const [i, sample] of [...samples, null, {}].entries()) assertSame(eager[name]!, lazy[name]!, sample, `${name} sample ${i}`);
    }
    assertSameGuards(eagerGuards, lazyGuards, guardSamples);
  });
});

describe('a module the transform does not expect fails the build', () => {
  const header = 'import * as z from "zod/v4";\n';
  const cases: Array<[string, string, RegExp]> = [
    ['another kind of statement', `${header}let zA = z.string();\n`, /not `export const zName = \.\.\.;`/],
    ['an exported class', `${header}export class A {}\nexport const zA = z.string();\n`, /not `export const zName = \.\.\.;`/],
    ['a regular expression', `${header}export const zA = z.string().regex(/a+/);\n`, /a "\/" outside a comment/],
    ['a template literal with a substitution', `${header}export const zA = z.literal(\`\${1}\`);\n`, /template literal with a substitution/],
    ['a schema name used as an object key', `${header}export const zA = z.string();\nexport const zB = z.object({ zA: zA });\n`, /uses zA as an object key/],
    ['a statement without its ";"', `${header}export const zA = z.string()\n`, /does not end with ";"/],
    ['a guard object that names a schema as a key', `${header}const zA = z.string();\nexport const G = { zA, is(v) { return zA.safeParse(v).success; } };\n`, /uses zA as an object key/],
    ['no schemas', header, /no `export const zName/],
  ];
  for (const [label, source, error] of cases) {
    test(label, () => assert.throws(() => lazySchemaModule(source), error));
  }

  test('an unexported schema gets a builder and no export; a guard function calls the builder', () => {
    const out = lazySchemaModule(`${header}function tagOf(v) { return v?.type; }\nconst zA = z.string();\nexport const G = { is(v) { return tagOf(v) === 'a' && zA.safeParse(v).success; } };\n`);
    assert.match(out, /function zA\$build\(\)/);
    assert.doesNotMatch(out, /export const zA/);
    assert.match(out, /return tagOf\(v\) === 'a' && zA\$build\(\)\.safeParse\(v\)\.success;/);
    assert.match(out, /function tagOf\(v\) \{ return v\?\.type; \}/);
  });

  test('a reference to another schema becomes a call of its builder; a property of the same name stays', () => {
    const out = lazySchemaModule(`${header}/** doc with \`zA\` */\nexport const zA = z.string();\nexport const zB = z.object({ a: zA, b: z.zA }).and(zA.nullish());\n`);
    assert.match(out, /function zB\$build\(\) \{ return zB\$value \?\?= \(z\.object\(\{ a: zA\$build\(\), b: z\.zA \}\)\.and\(zA\$build\(\)\.nullish\(\)\)\); \}/);
    assert.match(out, /export const zA = \/\* @__PURE__ \*\/ lazySchema\$\(zA\$build, \(\) => zA\$value !== undefined\);/);
  });

  test('a core build that no longer bundles the v1 schema module fails', async () => {
    const entry = join(root, 'no-sdk.mjs');
    writeFileSync(entry, 'export const x = 1;\n');
    await assert.rejects(
      esbuild.build({ entryPoints: [entry], outfile: join(root, 'no-sdk.cjs'), bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent', plugins: [lazySdkSchemas()] }),
      /v1 schema module dist\/v1\/unstable\/schema\/zod\.gen\.js was not bundled/,
    );
  });
});
