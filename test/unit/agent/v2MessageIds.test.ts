// A v2 prompt's `user_message` id is the one a replay gives the same prompt:
// `user-<offset of its log record>`, live and replayed, and the prompt
// response's `messageId` is that id. The prompt is answered once it is in the
// conversation; one cancelled before it started (waiting for its workspace)
// gets a live id and an idle `cancelled`; one refused before it started gets
// the request's error. The facade's own `_accord/prompt_started` never
// reaches the v2 client, and a client's look-alike `_meta` changes nothing.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { SessionWorkspaces } from '../../../agent/session/workspaces';
import { builtinTools } from '../../../agent/tools/index';
import { METHODS_META_KEY, PROMPT_STARTED_META } from '../../../protocol/accordMethods';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor } from './harness';
import { gitProject } from './isolationFixtures';
import { inMemoryV2, type V2Harness } from './v2Harness';

const offsetOf = (update: unknown) => ((update as { _meta?: Record<string, unknown> })._meta ?? {})['accord/logOffset'] as number | undefined;

describe('ACP v2: the user message id is the same live and on replay', () => {
  const model = fakeModelFor('accord-v2-ids-config-');
  const world = gitProject({ 'app.js': 'console.log("hi");\n' });
  after(() => world.remove());

  /** A logged agent with isolated workspaces behind the version router; `hold` keeps a new session's copy from being made until released. */
  const agent = (hold?: Promise<void>) => {
    const logs = new SessionStore(world.data);
    const isolation = new SessionWorkspaces({ dataDir: world.data, alwaysApprove: false, ...(hold ? { beforeSetUp: () => hold } : {}) });
    const { app, closeLogs } = createLoggedAgent({ env: { ...model.env(), ACCORD_SANDBOX: 'off' }, tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0, isolation }, logs);
    const harness = inMemoryV2(app);
    return {
      harness,
      async close() {
        await harness.close();
        await closeLogs();
        await isolation.releaseAll();
      },
    };
  };

  const prompt = async (h: V2Harness, sessionId: string, text: string, meta?: Record<string, unknown>) => {
    const from = h.updates.length;
    const { messageId } = await h.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }], ...(meta ? { _meta: meta } : {}) });
    return { messageId, from };
  };

  test('live user_message ids are user-<offset>, equal to the response and to the replayed prompt; a look-alike _meta from the client changes nothing', { timeout: 120_000 }, async () => {
    const a = agent();
    let sessionId = '';
    const live: string[] = [];
    try {
      const init = await a.harness.initialize(2);
      const listed = (init.capabilities as { _meta?: Record<string, Record<string, unknown>> })._meta?.[METHODS_META_KEY] ?? {};
      assert.ok('_accord/workspace/status' in listed, 'the v1 app\'s list comes through');
      assert.ok(!('_accord/prompt_started' in listed), 'the facade consumes _accord/prompt_started itself: not listed for v2');
      ({ sessionId } = await a.harness.connection.agent.request(v2.methods.agent.session.new, { cwd: world.project }));
      for (const [i, meta] of [undefined, { [PROMPT_STARTED_META]: 'client-chosen' }].entries()) {
        model.server.script(reply.text(`answer ${i}`));
        const { messageId, from } = await prompt(a.harness, sessionId, `question ${i}`, meta);
        assert.match(messageId, /^user-\d+$/);
        assert.equal(await a.harness.idleAfter(sessionId, from), 'end_turn');
        const turn = a.harness.updates.slice(from).map((n) => n.update as any);
        assert.deepEqual(turn.filter((u) => u.sessionUpdate === 'user_message'), [{ sessionUpdate: 'user_message', messageId, content: [{ type: 'text', text: `question ${i}` }] }]);
        // A client that has the prompt has every update recorded before it (what a resume after that offset relies on).
        const prompted = Number(messageId.slice('user-'.length));
        const after = turn.slice(turn.findIndex((u) => u.sessionUpdate === 'user_message'));
        assert.ok(after.filter((u) => offsetOf(u) !== undefined).every((u) => offsetOf(u)! > prompted), JSON.stringify([prompted, turn]));
        live.push(messageId);
      }
      assert.notEqual(live[0], live[1]);
    } finally {
      await a.close();
    }
    assert.equal(a.harness.updates.length > 0, true);

    // A fresh agent on the same log: the replayed prompts carry the ids the live ones had.
    const b = agent();
    try {
      await b.harness.initialize(2);
      const from = b.harness.updates.length;
      await b.harness.connection.agent.request(v2.methods.agent.session.resume, { sessionId, cwd: world.project, replayFrom: { type: 'start' } });
      await b.harness.waitForUpdate((n) => b.harness.updates.indexOf(n) >= from && n.update.sessionUpdate === 'state_update');
      const replayed = b.harness.updates.slice(from).map((n) => n.update as any).filter((u) => u.sessionUpdate === 'user_message_chunk');
      assert.deepEqual([...new Set(replayed.map((u) => u.messageId))], live);
      assert.deepEqual(replayed.map((u) => u.content.text), ['question 0', 'question 1']);
    } finally {
      await b.close();
    }
  });

  test('a prompt sent while another runs is inserted when its turn starts: the first turn\'s idle comes before it, each with its own log id', { timeout: 120_000 }, async () => {
    const a = agent();
    try {
      await a.harness.initialize(2);
      const { sessionId } = await a.harness.connection.agent.request(v2.methods.agent.session.new, { cwd: world.project });
      model.server.script(reply.text('first answer'), reply.text('second answer'));
      const from = a.harness.updates.length;
      const first = a.harness.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'first' }] });
      const second = a.harness.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'second' }] });
      const [one, two] = await Promise.all([first, second]);
      await a.harness.waitForUpdate((n) => a.harness.updates.indexOf(n) >= from && (n.update as any).messageId === two.messageId);
      const secondIdle = await a.harness.idleAfter(sessionId, a.harness.updates.findIndex((n) => (n.update as any).messageId === two.messageId));
      assert.equal(secondIdle, 'end_turn');
      const seen = a.harness.updates.slice(from).map((n) => n.update as any).filter((u) => u.sessionUpdate !== 'available_commands_update');
      const kinds = seen.map((u) => (u.sessionUpdate === 'user_message' ? `user:${u.content[0].text}` : u.sessionUpdate === 'state_update' ? `state:${u.state}` : u.sessionUpdate === 'agent_message_chunk' ? `agent:${u.content.text}` : undefined)).filter(Boolean);
      assert.deepEqual(kinds, ['user:first', 'state:running', 'agent:first answer', 'state:idle', 'user:second', 'state:running', 'agent:second answer', 'state:idle']);
      assert.match(one.messageId, /^user-\d+$/);
      assert.match(two.messageId, /^user-\d+$/);
      assert.ok(Number(two.messageId.slice(5)) > Number(one.messageId.slice(5)));
    } finally {
      await a.close();
    }
  });

  test('a prompt cancelled while its workspace is being made is answered with a live id and ends idle cancelled; the next one gets its log id', { timeout: 120_000 }, async () => {
    let release!: () => void;
    const a = agent(new Promise<void>((resolve) => (release = resolve)));
    try {
      await a.harness.initialize(2);
      const { sessionId } = await a.harness.connection.agent.request(v2.methods.agent.session.new, { cwd: world.project });
      const from = a.harness.updates.length;
      const answered = a.harness.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'too early' }] });
      // The prompt waits for the copy; no way to observe that from outside but the absence of its turn, so cancel at once.
      await a.harness.connection.agent.notify(v2.methods.agent.session.cancel, { sessionId });
      const { messageId } = await answered;
      assert.match(messageId, /^user-live-\d+$/, 'never recorded: no log id');
      assert.equal(await a.harness.idleAfter(sessionId, from), 'cancelled');
      const echoed = a.harness.updates.slice(from).map((n) => n.update as any).find((u) => u.sessionUpdate === 'user_message');
      assert.equal(echoed?.messageId, messageId);

      release();
      model.server.script(reply.text('now it runs'));
      const next = await prompt(a.harness, sessionId, 'in time');
      assert.match(next.messageId, /^user-\d+$/);
      assert.equal(await a.harness.idleAfter(sessionId, next.from), 'end_turn');
    } finally {
      release();
      await a.close();
    }
  });

  test('bad input: a prompt for an unknown session is refused with -32002 and nothing is sent', { timeout: 120_000 }, async () => {
    const a = agent();
    try {
      await a.harness.initialize(2);
      const before = a.harness.updates.length;
      const error = await a.harness.connection.agent.request(v2.methods.agent.session.prompt, { sessionId: 'no-such-session', prompt: [{ type: 'text', text: 'hi' }] }).then(
        () => undefined,
        (e: { code?: number }) => e,
      );
      assert.equal(error?.code, -32002);
      assert.deepEqual(a.harness.updates.slice(before), []);
    } finally {
      await a.close();
    }
  });
});
