// Accord's `_accord/*` extension methods are discoverable and schema first:
// `initialize` lists every one with its schema version, exactly as the
// shared module (protocol/accordMethods.ts) defines them; the agent serves
// every listed request method and nothing else under that prefix; its real
// answers pass the schemas the extension checks them with; and no code names
// an `_accord/*` method the module does not define; each method is in one
// direction (the `_accord/lm/*` ones are served by the client).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { spawnSync } from 'node:child_process';
import { accordClientNotifications, accordClientRequests, accordNotifications, accordRequests, advertisedMethods, checkResult, lmChatParams, lmPartsNotification, METHODS_META_KEY, methodVersions, PROMPT_STARTED_META, type AccordRequestMethod } from '../../../protocol/accordMethods';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor, inMemoryAgent } from './harness';
import { failure, gitProject, isolatedAgent } from './isolationFixtures';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** `_accord/...` names that are not methods: an update kind carried inside the core, and a tool name in the log. */
const NOT_METHODS = new Set(['_accord/child', '_accord/run']);

/** Every request method the list names answers bad params with -32602; every one it does not name is -32601 (not served). */
async function servesExactlyTheListed(request: (method: string, params: Record<string, unknown>) => Promise<unknown>, listed: Map<string, number>): Promise<void> {
  for (const method of Object.keys(accordRequests)) {
    const refused = await failure(request(method, {}));
    assert.equal(refused.code, listed.has(method) ? -32602 : -32601, `${method}: ${refused.message}`);
  }
}

describe('the _accord/* methods, schema first', () => {
  const model = fakeModelFor('accord-methods-');

  test('initialize lists every method with its schema version, as the shared module defines them; the review methods are served, apply and patch are gone', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const agent = isolatedAgent(model.env(), data);
    try {
      const init = await agent.harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const meta = init.agentCapabilities?._meta as Record<string, unknown>;
      assert.deepEqual(meta[METHODS_META_KEY], methodVersions());
      const everyDirection = [accordRequests, accordNotifications, accordClientRequests, accordClientNotifications].flatMap((group) => Object.keys(group));
      assert.deepEqual(Object.keys(methodVersions()).sort(), [...everyDirection].sort());
      assert.equal(new Set(everyDirection).size, everyDirection.length, 'no method is in two directions');
      for (const method of ['_accord/lm/models', '_accord/lm/chat']) assert.ok(method in accordClientRequests, `${method}: the agent calls it, the client serves it`);
      assert.ok('_accord/lm/parts' in accordClientNotifications, 'the client streams a lent model\'s parts to the agent');
      assert.deepEqual(meta.accord, { changes: 1 }, 'the older flag stays for clients that look for it');
      const listed = advertisedMethods(meta)!;
      assert.equal(listed.size, Object.keys(methodVersions()).length);

      // Every listed request method is served: bad params are -32602 (a missing method would be -32601).
      await servesExactlyTheListed(agent.ext, listed);
      for (const method of ['_accord/changes/apply', '_accord/changes/patch']) assert.equal((await failure(agent.ext(method, { sessionId: 'x' }))).code, -32601, method);

      // A real session's answers pass the schemas the extension checks them with.
      const { sessionId } = await agent.newSession(project);
      await agent.harness.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'auto' });
      model.server.script(reply.tool('w1', 'write_file', { path: 'b.txt', content: 'new\n' }), reply.text('Done.'));
      assert.equal(await agent.harness.prompt(sessionId, 'write b'), 'end_turn');
      // (`_accord/tool_call/cancel` answers only while a call runs: v2ToolCallCancel.test.ts checks its answer.)
      const answers: Record<Exclude<AccordRequestMethod, '_accord/tool_call/cancel'>, Record<string, unknown>> = {
        '_accord/workspace/status': { sessionId },
        '_accord/changes/list': { sessionId },
        '_accord/changes/file': { sessionId, path: 'b.txt' },
        '_accord/changes/discard': { sessionId, paths: ['b.txt'] },
      };
      for (const [method, params] of Object.entries(answers) as Array<[AccordRequestMethod, Record<string, unknown>]>) {
        const answer = await agent.ext(method, params);
        assert.doesNotThrow(() => checkResult(method, answer), `${method} answered ${JSON.stringify(answer)}`);
      }
      assert.deepEqual(checkResult('_accord/changes/list', await agent.ext('_accord/changes/list', { sessionId })).changes, [], 'discarded');
    } finally {
      await agent.close();
      remove();
    }
  });

  test('an agent without isolated workspaces lists exactly what it serves: no review methods, the lent models and its notifications', { timeout: 120_000 }, async () => {
    const agent = inMemoryAgent({ env: model.env() });
    const { remove, project } = gitProject({ 'a.txt': 'a\n' });
    try {
      const init = await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const meta = init.agentCapabilities?._meta as Record<string, unknown>;
      const listed = advertisedMethods(meta)!;
      assert.deepEqual(Object.fromEntries(listed), methodVersions({ workspaces: false }));
      assert.equal(meta.accord, undefined, 'no older review flag either');
      for (const method of ['_accord/workspace/status', '_accord/changes/list', '_accord/changes/file', '_accord/changes/discard']) assert.ok(!listed.has(method), `${method} is not listed`);
      assert.ok(listed.has('_accord/tool_call/cancel'), 'cancelling one call needs no workspace');
      for (const method of [...Object.keys(accordClientRequests), ...Object.keys(accordClientNotifications), ...Object.keys(accordNotifications)]) assert.ok(listed.has(method), `${method} is listed`);
      await servesExactlyTheListed((method, params) => agent.connection.agent.request(method, params), listed);
      // A listed notification is really sent (the lent models, also listed here, are served: clientModels.test.ts runs them without isolation).
      const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
      model.server.script(reply.text('ok'));
      await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'hi' }], _meta: { [PROMPT_STARTED_META]: 'p1' } });
      assert.deepEqual(agent.extNotifications.filter((n) => n.method === '_accord/prompt_started').map((n) => n.params), [{ sessionId, token: 'p1' }], 'no log, so no offset');
    } finally {
      await agent.close();
      remove();
    }
  });

  test('_accord/prompt_started: only for a prompt that asks with a token, once, with its log offset, before its turn; a malformed token asks for nothing', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const agent = isolatedAgent(model.env(), data);
    try {
      const { sessionId } = await agent.newSession(project);
      const prompt = async (meta?: Record<string, unknown>) => {
        model.server.script(reply.text('ok'));
        const from = agent.harness.extNotifications.length;
        const updatesFrom = agent.harness.updates.length;
        await agent.harness.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'hi' }], ...(meta ? { _meta: meta } : {}) });
        return { started: agent.harness.extNotifications.slice(from).filter((n) => n.method === '_accord/prompt_started').map((n) => n.params as Record<string, unknown>), updatesFrom };
      };
      assert.deepEqual((await prompt()).started, [], 'a prompt that does not ask is not told');
      for (const token of [42, '', 'x'.repeat(129), { a: 1 }, null]) assert.deepEqual((await prompt({ [PROMPT_STARTED_META]: token })).started, [], `token ${JSON.stringify(token)}`);
      const { started, updatesFrom } = await prompt({ [PROMPT_STARTED_META]: 'tok' });
      assert.equal(started.length, 1);
      assert.equal(started[0]!.token, 'tok');
      assert.equal(started[0]!.sessionId, sessionId);
      assert.ok(Number.isInteger(started[0]!.offset), 'the prompt record\'s offset');
      // Its turn's updates all come after it (live updates carry later offsets); v2Session.test.ts checks a replay shows the prompt at it.
      const turn = agent.harness.updates.slice(updatesFrom).map((n) => (n.update as { _meta?: Record<string, unknown> })._meta?.['accord/logOffset']).filter((o) => typeof o === 'number');
      assert.ok(turn.length > 0 && turn.every((o) => (o as number) > (started[0]!.offset as number)));
    } finally {
      await agent.close();
      remove();
    }
  });

  test('the schemas are built on first use, once: loading the module and listing the methods builds none', () => {
    // In a child whose zod/mini counts the calls of its builders (z.object, z.string, ...); z.lazy, which builds nothing yet, is not counted.
    const script = `const real = require('zod/mini');
let calls = 0;
const counted = {};
for (const [name, value] of Object.entries(real)) counted[name] = typeof value === 'function' && name !== 'lazy' ? (...args) => (calls++, value(...args)) : value;
require.cache[require.resolve('zod/mini')].exports = counted;
const m = require(${JSON.stringify(join(process.cwd(), 'protocol/accordMethods.ts'))});
const atLoad = calls;
m.methodsCapability();
m.methodVersions({ workspaces: false });
const listed = calls;
const params = m.accordRequests['_accord/changes/file'].params;
const once = calls;
const again = m.accordRequests['_accord/changes/file'].params === params;
process.stdout.write(JSON.stringify({ atLoad, listed, built: once > listed, again, more: calls - once }));`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: process.cwd(), encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { atLoad: 0, listed: 0, built: true, again: true, more: 0 });
  });

  test('attack: schemas built on first use refuse what hostile params hold, as those built at load did', () => {
    const file = accordRequests['_accord/changes/file'].params;
    for (const path of ['../outside', '/etc/passwd', 'a/../../b', '']) assert.equal(file.safeParse({ sessionId: 's', path }).success, false, path);
    assert.equal(file.safeParse({ sessionId: '', path: 'a' }).success, false, 'an empty session id');
    assert.equal(file.safeParse({ sessionId: 's', path: 'a/b.txt' }).success, true);
    assert.equal(accordRequests['_accord/changes/discard'].params.safeParse({ sessionId: 's', paths: ['ok', '../x'] }).success, false);
    assert.equal(accordRequests['_accord/tool_call/cancel'].params.safeParse({ sessionId: 's', toolCallId: 'x'.repeat(257) }).success, false);
    // A lent model's stream: the bounds hold through the lazy schema.
    const part = { type: 'text', text: 'hi' };
    assert.equal(lmPartsNotification.safeParse({ streamId: 's', parts: [] }).success, false, 'no parts');
    assert.equal(lmPartsNotification.safeParse({ streamId: 's', parts: Array.from({ length: 1001 }, () => part) }).success, false, 'too many parts');
    assert.equal(lmPartsNotification.safeParse({ streamId: 's', parts: [{ type: 'tool_result', callId: 'c', text: 'x' }] }).success, false, 'a part the model does not stream');
    assert.equal(lmPartsNotification.safeParse({ streamId: 's', parts: [part] }).success, true);
    assert.equal(lmChatParams.safeParse({ streamId: 's', vendor: 'v', model: 'm', messages: [], tools: [], toolMode: 'auto' }).success, false, 'no messages');
    assert.throws(() => checkResult('_accord/changes/list', { changes: [{ path: 'a', status: 'exploded', additions: 0, deletions: 0, binary: false }] }), /not what Accord expects/);
  });

  test('no code in the agent or the extension names an _accord/* method the shared module does not define', () => {
    const known = new Set([accordRequests, accordNotifications, accordClientRequests, accordClientNotifications].flatMap((group) => Object.keys(group)));
    const unknown: string[] = [];
    for (const file of [...sources('agent'), ...sources('extension')]) {
      for (const [, name] of readFileSync(file, 'utf8').matchAll(/['"`](_accord\/[a-z_/]+)['"`]/g)) {
        if (!known.has(name!) && !NOT_METHODS.has(name!)) unknown.push(`${file}: ${name}`);
      }
    }
    assert.deepEqual(unknown, []);
  });

  test('advertisedMethods keeps only well-formed entries from an untrusted agent', () => {
    assert.equal(advertisedMethods(null), undefined);
    assert.equal(advertisedMethods({ [METHODS_META_KEY]: ['_accord/changes/list'] }), undefined);
    const found = advertisedMethods({ [METHODS_META_KEY]: { '_accord/changes/list': 1, '_accord/x': 0, '_accord/y': 1.5, 'other/z': 1, '_accord/w': '1', __proto__: { '_accord/p': 1 } } });
    assert.deepEqual([...found!], [['_accord/changes/list', 1]]);
  });
});
