// When a first turn's hold on the session's copy ends (agent/acp/copyPacing.ts),
// through real ACP, the fake model server and real git. Each test sets the
// pacing to extremes (an hour, or zero) so the outcome never depends on how
// fast the machine is: "the first words before the copy" is proved by what
// the client had received when the copy went on (the afterPlan hook), "the
// copy goes on while the model is silent" by the copy being ready while the
// model has not answered.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor, tempDir } from './harness';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { SessionWorkspaces } from '../../../agent/session/workspaces';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { builtinTools } from '../../../agent/tools/index';
import { inMemoryApp } from './harness';
import { gitProject } from './isolationFixtures';

const HOUR = 3_600_000;
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, stdio: 'pipe' });

describe("a first turn's hold on the copy ends when the model leaves the agent time", () => {
  const model = fakeModelFor('accord-pacing-');

  /**
   * An agent whose copies use `pacing`; a new session's copy starts only once
   * the prompt holds it (so the hold is the prompt's doing), and `copyWentOn`
   * lists, for each copy that went on, how many message chunks the client had then.
   */
  async function withPacedSession(
    fixture: { project: string; data: string; remove(): void },
    pacing: { quietMs: number; latestMs: number },
    body: (run: { harness: ReturnType<typeof inMemoryApp>; isolation: SessionWorkspaces; logs: SessionStore; sessionId: string; copyWentOn: number[]; chunks: () => string[] }) => Promise<void>,
  ): Promise<void> {
    let sessionOfTest = '';
    const copyWentOn: number[] = [];
    const logs = new SessionStore(fixture.data);
    const isolation: SessionWorkspaces = new SessionWorkspaces({
      dataDir: fixture.data,
      alwaysApprove: false,
      copyPacing: pacing,
      beforeSetUp: async () => {
        while (!isolation.isHeld(sessionOfTest)) await new Promise((resolve) => setImmediate(resolve));
      },
      afterPlan: async () => void copyWentOn.push(chunks().length),
    });
    const { app, closeLogs } = createLoggedAgent({ env: model.env(), tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0, isolation }, logs);
    const harness = inMemoryApp(app);
    const chunks = () => harness.updates.filter((n) => n.sessionId === sessionOfTest && n.update.sessionUpdate === 'agent_message_chunk').map((n) => (n.update as any).content.text as string);
    try {
      await harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await harness.connection.agent.request(methods.agent.session.new, { cwd: fixture.project, mcpServers: [] });
      sessionOfTest = sessionId;
      await body({ harness, isolation, logs, sessionId, copyWentOn, chunks });
    } finally {
      await harness.close();
      await closeLogs();
      await isolation.releaseAll();
      fixture.remove();
    }
  }

  test('a model that answers at once: its first words reach the client before the copy goes on; the copy is ready after the turn', { timeout: 120_000 }, async () => {
    await withPacedSession(gitProject({ 'a.txt': 'a\n' }), { quietMs: HOUR, latestMs: HOUR }, async ({ harness, isolation, sessionId, copyWentOn, chunks }) => {
      model.server.script({ type: 'stream', parts: [{ text: 'Hel' }, { text: 'lo' }, { text: '!' }] });
      assert.equal(await harness.prompt(sessionId, 'hi'), 'end_turn');
      assert.deepEqual(chunks(), ['Hel', 'lo', '!']);
      await isolation.ready(sessionId);
      assert.equal(copyWentOn.length, 1);
      assert.ok(copyWentOn[0]! >= 1, `the copy went on after ${copyWentOn[0]} chunks had reached the client`);
      // Released once the prompt's answer is out (a turn of the event loop later, no timing).
      while (isolation.isHeld(sessionId)) await new Promise((resolve) => setImmediate(resolve));
    });
  });

  test('a tool call in the first step releases the copy at once and runs in it, after the words before it', { timeout: 120_000 }, async () => {
    const fixture = gitProject({ 'a.txt': 'a\n' });
    await withPacedSession(fixture, { quietMs: HOUR, latestMs: HOUR }, async ({ harness, isolation, sessionId, copyWentOn }) => {
      model.server.script({ type: 'stream', parts: [{ text: 'Writing.' }, { toolCall: { id: 'w1', name: 'write_file', args: { path: 'b.txt', content: 'agent\n' } } }] }, reply.text('Done.'));
      assert.equal(await harness.prompt(sessionId, 'write b.txt'), 'end_turn');
      assert.deepEqual(copyWentOn, [1], 'the copy went on once the call needed it, after the words before it');
      const root = (await isolation.ready(sessionId))!.workspace.root;
      assert.equal(readFileSync(join(root, 'b.txt'), 'utf8'), 'agent\n', 'the call ran in the copy');
      assert.ok(!existsSync(join(fixture.project, 'b.txt')), "the person's tree is untouched");
    });
  });

  test('a model slow to answer: the copy goes on, and is ready, while the model has said nothing; cancel then ends the turn', { timeout: 120_000 }, async () => {
    await withPacedSession(gitProject({ 'a.txt': 'a\n' }), { quietMs: 0, latestMs: HOUR }, async ({ harness, isolation, sessionId, copyWentOn, chunks }) => {
      // The model accepts the request and never says a word.
      model.server.script({ type: 'stream', parts: [{ text: 'never sent' }], stallAfterParts: 0 });
      const prompt = harness.prompt(sessionId, 'hi');
      await isolation.ready(sessionId);
      assert.deepEqual(copyWentOn, [0]);
      assert.deepEqual(chunks(), [], 'the copy was made while the model was silent');
      await harness.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
    });
  });

  test('attack: a model that keeps its turn open and never goes quiet cannot keep the copy waiting past latestMs', { timeout: 120_000 }, async () => {
    await withPacedSession(gitProject({ 'a.txt': 'a\n' }), { quietMs: HOUR, latestMs: 0 }, async ({ harness, isolation, sessionId, copyWentOn, chunks }) => {
      // One word, then the stream stays open without an end (never quiet enough, never a tool call).
      model.server.script({ type: 'stream', parts: [{ text: 'Hi' }, { text: 'never sent' }], stallAfterParts: 1 });
      let settled = false;
      const prompt = harness.prompt(sessionId, 'hi').finally(() => (settled = true));
      await harness.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk');
      await isolation.ready(sessionId);
      assert.equal(copyWentOn.length, 1);
      assert.deepEqual(chunks(), ['Hi']);
      assert.equal(settled, false, 'the copy was made while the turn still ran');
      await harness.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
    });
  });

  test('cancel while the copy is held ends the hold: the copy is made and the next turn works in it', { timeout: 120_000 }, async () => {
    const fixture = gitProject({ 'a.txt': 'a\n' });
    await withPacedSession(fixture, { quietMs: HOUR, latestMs: HOUR }, async ({ harness, isolation, sessionId, copyWentOn }) => {
      model.server.script({ type: 'stream', parts: [{ text: 'Hi' }, { text: 'never sent' }], stallAfterParts: 1 });
      const prompt = harness.prompt(sessionId, 'hi');
      await harness.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk');
      assert.equal(isolation.isHeld(sessionId), true, 'held while the model talks');
      await harness.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
      const root = (await isolation.ready(sessionId))!.workspace.root;
      assert.deepEqual(copyWentOn, [1]);
      model.server.script({ type: 'stream', parts: [{ toolCall: { id: 'w1', name: 'write_file', args: { path: 'b.txt', content: 'agent\n' } } }] }, reply.text('Done.'));
      assert.equal(await harness.prompt(sessionId, 'write b.txt'), 'end_turn');
      assert.equal(readFileSync(join(root, 'b.txt'), 'utf8'), 'agent\n');
      assert.ok(!existsSync(join(fixture.project, 'b.txt')), "the person's tree is untouched");
    });
  });

  test("a copy that fails while held: the first step's tool call fails with the reason, nothing runs in the person's tree", { timeout: 120_000 }, async () => {
    const fixture = gitProject({ 'a.txt': 'base\n' });
    // Unresolved merge conflicts: the project's state cannot be copied (found after the root is known, so after the hold).
    git(fixture.project, 'checkout', '-q', '-b', 'other');
    writeFileSync(join(fixture.project, 'a.txt'), 'other\n');
    git(fixture.project, 'commit', '-q', '-am', 'other');
    git(fixture.project, 'checkout', '-q', '-');
    writeFileSync(join(fixture.project, 'a.txt'), 'mine\n');
    git(fixture.project, 'commit', '-q', '-am', 'mine');
    assert.throws(() => git(fixture.project, 'merge', '-q', 'other'));
    await withPacedSession(fixture, { quietMs: HOUR, latestMs: HOUR }, async ({ harness, sessionId, copyWentOn }) => {
      model.server.script({ type: 'stream', parts: [{ text: 'Overwriting.' }, { toolCall: { id: 'w1', name: 'write_file', args: { path: 'a.txt', content: 'agent\n' } } }] });
      assert.equal(await harness.prompt(sessionId, 'overwrite a.txt'), 'end_turn');
      assert.deepEqual(copyWentOn, [1]);
      const failed = harness.updates.find((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'tool_call' && (n.update as any).status === 'failed');
      assert.match(JSON.stringify(failed?.update), /Could not set up the session's workspace: .*unresolved merge conflicts/);
      assert.ok(!readFileSync(join(fixture.project, 'a.txt'), 'utf8').includes('agent'), "the call never ran in the person's tree");
      git(fixture.project, 'merge', '--abort');
    });
  });

  test('attack: a link planted in the project, read by a first-step call made while the copy was held, is not followed out of the copy', { timeout: 120_000 }, async () => {
    const outside = tempDir('accord-pacing-outside-');
    writeFileSync(join(outside.path, 'secret.txt'), 'SECRET-OUTSIDE\n');
    const fixture = gitProject({ 'a.txt': 'a\n' });
    symlinkSync(join(outside.path, 'secret.txt'), join(fixture.project, 'leak.txt'));
    git(fixture.project, 'add', 'leak.txt');
    git(fixture.project, 'commit', '-q', '-m', 'link');
    try {
      await withPacedSession(fixture, { quietMs: HOUR, latestMs: HOUR }, async ({ harness, sessionId, copyWentOn }) => {
        model.server.script({ type: 'stream', parts: [{ text: 'Reading.' }, { toolCall: { id: 'r1', name: 'read_file', args: { path: 'leak.txt' } } }] }, reply.text('Done.'));
        assert.equal(await harness.prompt(sessionId, 'read leak.txt'), 'end_turn');
        assert.deepEqual(copyWentOn, [1]);
        const sentBack = JSON.stringify(model.server.requests.at(-1)!.body);
        assert.ok(!sentBack.includes('SECRET-OUTSIDE'), 'the secret never reached the model');
        assert.ok(!JSON.stringify(harness.updates).includes('SECRET-OUTSIDE'), 'the secret never reached the client');
        assert.match(sentBack, /outside the workspace|symlink/, 'the call was refused with its reason');
      });
    } finally {
      outside.remove();
    }
  });
});
