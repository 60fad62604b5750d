// session/new answers before the session's isolated copy is ready (real ACP,
// fake model server, real git): the copy is held back by the `beforeSetUp`
// hook until the test releases it, so "answered first" is proved by order,
// never by timing. The first turn waits for the copy and then works in it; a
// copy that cannot be made fails the turn and the review methods with the
// reason; cancel and close during the wait; close leaves nothing half-made.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor, preparedMeta } from './harness';
import { failure, gitProject, isolatedAgent, type IsolatedAgent } from './isolationFixtures';

/** A hook that holds every copy until `release()`; `entered` resolves once a copy is waiting on it. */
function gate() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered!: (sessionId: string) => void;
  const waiting = new Promise<string>((resolve) => (entered = resolve));
  const state = { released: false };
  return {
    state,
    waiting,
    release: () => {
      state.released = true;
      release();
    },
    hook: async (sessionId: string) => {
      entered(sessionId);
      await released;
    },
  };
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, stdio: 'pipe' });
const pinned = (project: string, sessionId: string) => git(project, 'for-each-ref', `refs/accord/sessions/${sessionId}`).toString().trim();

interface ReadyCase {
  project: string;
  data: string;
  agent: IsolatedAgent;
  /** Holds every copy back until released (released anyway after the case). */
  held: ReturnType<typeof gate>;
  /** session/new without waiting for its copy. */
  open(): Promise<string>;
}

/**
 * A git project with `a.txt` and an initialized isolated agent over it whose
 * copies wait for `held` when `hold` is set; everything is released, closed
 * and removed after `run`.
 */
async function withProject(env: Record<string, string | undefined>, text: string, hold: boolean, run: (c: ReadyCase) => Promise<void>): Promise<void> {
  const { project, data, remove } = gitProject({ 'a.txt': text });
  const held = gate();
  const agent = isolatedAgent(env, data, false, hold ? held.hook : undefined);
  try {
    await agent.harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const open = async () => (await agent.harness.connection.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] })).sessionId;
    await run({ project, data, agent, held, open });
  } finally {
    held.release();
    await agent.close();
    remove();
  }
}

describe('session/new before the isolated copy is ready', () => {
  const model = fakeModelFor('accord-ready-config-');
  const env = model.env;

  test('session/new answers while the copy is held; the first tool call waits for it and then works in the copy', { timeout: 120_000 }, async () => {
    await withProject(env(), 'a\n', true, async ({ project, data, agent, held, open }) => {
      const sessionId = await open();
      assert.equal(await held.waiting, sessionId, 'the copy of this session is being prepared');
      assert.equal(held.state.released, false, 'session/new answered while its copy was still held back');
      assert.ok(!existsSync(join(data, 'sessions', sessionId, 'ws')), 'no copy exists yet');

      model.server.script({ type: 'stream', parts: [{ toolCall: { id: 'w1', name: 'write_file', args: { path: 'b.txt', content: 'agent\n' } } }] }, reply.text('Done.'));
      const requestsBefore = model.server.requests.length;
      const prompt = agent.harness.prompt(sessionId, 'write b.txt');
      const statusWhileHeld = agent.ext('_accord/workspace/status', { sessionId: sessionId });
      const listWhileHeld = agent.ext(methods.agent.session.list, {});
      held.release();
      assert.equal(await prompt, 'end_turn');
      assert.equal(model.server.requests.length, requestsBefore + 2);
      const meta = await preparedMeta(agent.harness, sessionId);
      assert.equal(meta['accord/workspace'].mode, 'git-clone');
      assert.equal(readFileSync(join(meta['accord/workspace'].root, 'b.txt'), 'utf8'), 'agent\n', 'the write landed in the copy');
      assert.ok(!existsSync(join(project, 'b.txt')), "the person's tree is untouched");
      assert.ok((await listWhileHeld).sessions.some((x: any) => x.sessionId === sessionId), 'session/list asked while the copy was held lists the session');
      const status = await statusWhileHeld;
      assert.equal(status.root, meta['accord/workspace'].root, 'a review method asked while the copy was held waited for it');
      const { changes } = await agent.ext('_accord/changes/list', { sessionId: sessionId });
      assert.deepEqual(changes.map((c: any) => [c.path, c.status]), [['b.txt', 'added']]);
    });
  });

  test('a copy that cannot be made fails the first turn and the review methods with the reason; close works; a later session/new succeeds', { timeout: 120_000 }, async () => {
    await withProject(env(), 'base\n', false, async ({ project, data, agent, open }) => {
      // Unresolved merge conflicts: the project's state cannot be copied.
      git(project, 'checkout', '-q', '-b', 'other');
      writeFileSync(join(project, 'a.txt'), 'other\n');
      git(project, 'commit', '-q', '-am', 'other');
      git(project, 'checkout', '-q', '-');
      writeFileSync(join(project, 'a.txt'), 'mine\n');
      git(project, 'commit', '-q', '-am', 'mine');
      assert.throws(() => git(project, 'merge', '-q', 'other'));
      const sessionId = await open();
      // Known failed before the prompt: the turn fails at once (a failure after the model started: earlyTurn.test.ts).
      await agent.isolation.ready(sessionId).catch(() => undefined);
      const requestsBefore = model.server.requests.length;
      const turn = await failure(agent.harness.prompt(sessionId, 'hello'));
      assert.equal(turn.code, -32603);
      assert.match(turn.message, /Could not set up the session's workspace: .*unresolved merge conflicts/);
      assert.equal(model.server.requests.length, requestsBefore, 'no model request without a workspace');
      const again = await failure(agent.harness.prompt(sessionId, 'hello again'));
      assert.match(again.message, /unresolved merge conflicts/, 'the failure stays; the turn never falls back to the person\'s tree');
      const list = await failure(agent.ext('_accord/changes/list', { sessionId }));
      assert.match(list.message, /Could not set up the session's workspace: .*unresolved merge conflicts/);
      assert.ok(!existsSync(join(data, 'sessions', sessionId)), 'nothing half-made is left');
      assert.deepEqual(await agent.ext(methods.agent.session.close, { sessionId }), {});

      git(project, 'merge', '--abort');
      model.server.script(reply.text('Hi.'));
      const next = await agent.newSession(project);
      assert.equal(next.meta['accord/workspace'].mode, 'git-clone');
      assert.equal(await agent.harness.prompt(next.sessionId, 'hello'), 'end_turn');
    });
  });

  test('session/cancel ends a turn still waiting for the copy (and one queued behind it); the next turn works', { timeout: 120_000 }, async () => {
    await withProject(env(), 'a\n', true, async ({ agent, held, open }) => {
      const sessionId = await open();
      await held.waiting;
      const requestsBefore = model.server.requests.length;
      const prompt = agent.harness.prompt(sessionId, 'hello');
      const queued = agent.harness.prompt(sessionId, 'hello twice');
      await agent.harness.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
      assert.equal(await queued, 'cancelled', 'a prompt queued behind the waiting one ends unrun too');
      assert.equal(held.state.released, false, 'cancelled while the copy was still held');
      held.release();
      model.server.script(reply.text('Hi.'));
      assert.equal(await agent.harness.prompt(sessionId, 'hello'), 'end_turn');
      assert.equal(model.server.requests.length, requestsBefore + 1, 'the cancelled turn never reached the model');
    });
  });

  test('session/close during preparation removes the copy and its pin; its log names no copy, and a load makes a new one', { timeout: 120_000 }, async () => {
    await withProject(env(), 'a\n', true, async ({ project, data, agent, held, open }) => {
      const sessionId = await open();
      await held.waiting;
      const closed = agent.ext(methods.agent.session.close, { sessionId });
      held.release();
      assert.deepEqual(await closed, {});
      assert.ok(!existsSync(join(data, 'sessions', sessionId)), 'no copy');
      assert.ok(!existsSync(join(data, 'private', sessionId)), 'no private folder');
      assert.equal(pinned(project, sessionId), '', 'no pin in the person\'s repository');
      assert.equal((await agent.logs.replay(sessionId)).workspace, undefined, 'the log (started at session/new) names no copy');
      const turn = await failure(agent.harness.prompt(sessionId, 'hello'));
      assert.equal(turn.code, -32002, 'the session is gone');
      // Nothing ran in a copy, so a load loses nothing by making a new one.
      await agent.ext(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
      const made = (await agent.logs.replay(sessionId)).workspace as { root: string } | undefined;
      assert.ok(made && existsSync(made.root), 'the load made a copy and recorded it');
      model.server.script(reply.text('Hi.'));
      assert.equal(await agent.harness.prompt(sessionId, 'hello'), 'end_turn');
    });
  });

  test('close at any point of the preparation leaves a copy only together with a log record that names it', { timeout: 180_000 }, async () => {
    await withProject(env(), 'a\n', false, async ({ project, data, agent, open }) => {
      for (let i = 0; i < 3; i++) {
        const sessionId = await open();
        // Let the preparation run a little further each round (event-loop turns, not time).
        for (let k = 0; k < i * 20; k++) await new Promise((resolve) => setImmediate(resolve));
        await agent.ext(methods.agent.session.close, { sessionId });
        const logged = (await agent.logs.replay(sessionId)).workspace !== undefined;
        assert.equal(existsSync(join(data, 'sessions', sessionId)), logged, `round ${i}: a copy exists exactly when its log does`);
        assert.equal(pinned(project, sessionId) !== '', logged, `round ${i}: the base is pinned exactly when the log exists`);
      }
    });
  });
});
