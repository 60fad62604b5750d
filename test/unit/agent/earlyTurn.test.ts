// The first turn starts before the session's isolated copy exists (real ACP,
// fake model server, real git). The copy is held by the `afterPlan` hook,
// once its root is known and before anything is copied, until the test
// releases it: "before the copy" is proved by order, never by timing. The
// model streams and the log records the prompt and every chunk meanwhile;
// only a tool call waits for the copy; a copy that fails after the model
// started fails the calls with its reason and never runs them in the
// person's tree; cancel while a call waits ends the turn.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { sessionLogPath } from '../../../agent/log';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor } from './harness';
import { afterNextModelRequest } from '../../../agent/models/requestSent';
import { failure, gitProject, isolatedAgent } from './isolationFixtures';

function hold() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const state = { released: false };
  return {
    state,
    release: () => {
      state.released = true;
      release();
    },
    hook: async () => {
      await released;
    },
  };
}

const fakeMcpServer = join(import.meta.dirname, 'fakeMcpServer.mjs');
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, stdio: 'pipe' });
const logLines = (data: string, sessionId: string) => readFileSync(sessionLogPath(data, sessionId), 'utf8').trim().split('\n').map((line) => JSON.parse(line));

describe('the first turn before the isolated copy exists', () => {
  const model = fakeModelFor('accord-early-turn-');
  const env = model.env;

  /** A session whose copy is held (after its root is known) until the body calls `held.release()`; everything is released and closed after the body. */
  async function withHeldCopy(
    fixture: { project: string; data: string; remove(): void },
    body: (run: { agent: ReturnType<typeof isolatedAgent>; held: ReturnType<typeof hold>; sessionId: string }) => Promise<void>,
    afterRelease?: () => void,
  ): Promise<void> {
    const held = hold();
    const agent = isolatedAgent(env(), fixture.data, false, undefined, held.hook);
    try {
      await agent.harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await agent.harness.connection.agent.request(methods.agent.session.new, { cwd: fixture.project, mcpServers: [] });
      await body({ agent, held, sessionId });
    } finally {
      held.release();
      afterRelease?.();
      await agent.close();
      fixture.remove();
    }
  }

  test('the model streams the whole answer while the copy is held; the log has the prompt and every chunk; the request names the copy root', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    await withHeldCopy({ project, data, remove }, async ({ agent, held, sessionId }) => {
      model.server.script({ type: 'stream', parts: [{ text: 'Hel' }, { text: 'lo' }, { text: '!' }] });
      const requestsBefore = model.server.requests.length;
      assert.equal(await agent.harness.prompt(sessionId, 'hi'), 'end_turn');
      assert.equal(held.state.released, false, 'the turn ended while the copy was still held');
      assert.equal(model.server.requests.length, requestsBefore + 1);
      assert.ok(!existsSync(join(data, 'sessions', sessionId, 'ws')), 'no copy exists yet');
      const root = join(realpathSync(data), 'sessions', sessionId, 'ws');
      assert.match(JSON.stringify(model.server.requests.at(-1)!.body), new RegExp(root.replace(/[/\\.]/g, '\\$&')), 'the system prompt names the root the copy will have');
      const records = logLines(data, sessionId);
      assert.equal(records[0].type, 'session_created');
      assert.deepEqual(records[0].workspace, { preparing: true, inPlace: false });
      assert.ok(records.some((r) => r.type === 'user_prompt'), 'the prompt is in the log');
      const text = records.filter((r) => r.type === 'update' || r.type === 'more').length;
      assert.ok(text >= 3, 'every streamed chunk is in the log');
      assert.ok(!records.some((r) => r.type === 'workspace'), 'no workspace recorded yet');

      held.release();
      await agent.isolation.ready(sessionId);
      const replay = await agent.logs.replay(sessionId);
      assert.equal((replay.workspace as { root: string }).root, root, 'the finished copy is recorded, at the root the model was told');
      model.server.script({ type: 'stream', parts: [{ toolCall: { id: 'w1', name: 'write_file', args: { path: 'b.txt', content: 'agent\n' } } }] }, reply.text('Done.'));
      assert.equal(await agent.harness.prompt(sessionId, 'write b.txt'), 'end_turn');
      assert.equal(readFileSync(join(root, 'b.txt'), 'utf8'), 'agent\n');
      assert.ok(!existsSync(join(project, 'b.txt')), "the person's tree is untouched");
    });
  });

  test('a tool call asked for before the copy exists waits for it, then runs in the copy', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    await withHeldCopy({ project, data, remove }, async ({ agent, held, sessionId }) => {
      model.server.script({ type: 'stream', parts: [{ text: 'Writing.' }, { toolCall: { id: 'w1', name: 'write_file', args: { path: 'b.txt', content: 'agent\n' } } }] }, reply.text('Done.'));
      const requestsBefore = model.server.requests.length;
      const prompt = agent.harness.prompt(sessionId, 'write b.txt');
      await model.server.waitForRequests(requestsBefore + 1);
      await agent.harness.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk');
      assert.equal(held.state.released, false, 'the model answered while the copy was held');
      assert.ok(!existsSync(join(project, 'b.txt')), 'nothing ran in the person\'s tree');
      held.release();
      assert.equal(await prompt, 'end_turn');
      const { root } = (await agent.logs.replay(sessionId)).workspace as { root: string };
      assert.equal(readFileSync(join(root, 'b.txt'), 'utf8'), 'agent\n', 'the call ran in the copy once it was ready');
      assert.ok(!existsSync(join(project, 'b.txt')), "the person's tree is untouched");
    });
  });

  test('a copy that fails after the model started fails the calls with its reason; nothing runs in the person\'s tree; the next prompt fails with it', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'base\n' });
    // Unresolved merge conflicts: the project's state cannot be copied (found after the root is known).
    git(project, 'checkout', '-q', '-b', 'other');
    writeFileSync(join(project, 'a.txt'), 'other\n');
    git(project, 'commit', '-q', '-am', 'other');
    git(project, 'checkout', '-q', '-');
    writeFileSync(join(project, 'a.txt'), 'mine\n');
    git(project, 'commit', '-q', '-am', 'mine');
    assert.throws(() => git(project, 'merge', '-q', 'other'));
    await withHeldCopy({ project, data, remove }, async ({ agent, held, sessionId }) => {
      model.server.script({ type: 'stream', parts: [{ toolCall: { id: 'w1', name: 'write_file', args: { path: 'a.txt', content: 'agent\n' } } }] });
      const requestsBefore = model.server.requests.length;
      const prompt = agent.harness.prompt(sessionId, 'overwrite a.txt');
      await model.server.waitForRequests(requestsBefore + 1);
      held.release();
      assert.equal(await prompt, 'end_turn');
      assert.equal(model.server.requests.length, requestsBefore + 1, 'no second request: the turn stopped with the reason');
      const failed = agent.harness.updates.find((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'tool_call' && (n.update as any).status === 'failed');
      assert.match(JSON.stringify(failed?.update), /Could not set up the session's workspace: .*unresolved merge conflicts/);
      const said = agent.harness.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk').map((n) => (n.update as any).content.text).join('');
      assert.match(said, /unresolved merge conflicts/, 'the person is told why');
      assert.match(readFileSync(join(project, 'a.txt'), 'utf8'), /<<<<<<<|mine/, "the person's file is as it was");
      assert.ok(!readFileSync(join(project, 'a.txt'), 'utf8').includes('agent'), 'the call never ran in the person\'s tree');
      const again = await failure(agent.harness.prompt(sessionId, 'again'));
      assert.match(again.message, /Could not set up the session's workspace: .*unresolved merge conflicts/);
    }, () => git(project, 'merge', '--abort'));
  });

  test('session/cancel while a call waits for the copy ends the turn; the call never runs; the next turn works in the copy', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    await withHeldCopy({ project, data, remove }, async ({ agent, held, sessionId }) => {
      model.server.script({ type: 'stream', parts: [{ text: 'Writing.' }, { toolCall: { id: 'w1', name: 'write_file', args: { path: 'b.txt', content: 'agent\n' } } }] });
      const prompt = agent.harness.prompt(sessionId, 'write b.txt');
      await agent.harness.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk');
      await agent.harness.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
      assert.equal(held.state.released, false, 'cancelled while the copy was held');
      held.release();
      await agent.isolation.ready(sessionId);
      const { root } = (await agent.logs.replay(sessionId)).workspace as { root: string };
      assert.ok(!existsSync(join(root, 'b.txt')) && !existsSync(join(project, 'b.txt')), 'the cancelled call never ran');
      model.server.script(reply.text('Hi.'));
      assert.equal(await agent.harness.prompt(sessionId, 'hello'), 'end_turn');
    });
  });

  test('a policy that declares MCP servers: the first request waits for them and offers their tools', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    mkdirSync(join(project, '.accord'));
    writeFileSync(join(project, '.accord/policy.json'), JSON.stringify({ version: 1, rules: [], mcpServers: [{ name: 'fake', command: [process.execPath, fakeMcpServer] }] }));
    await withHeldCopy({ project, data, remove }, async ({ agent, held, sessionId }) => {
      model.server.script(reply.text('Hi.'));
      const requestsBefore = model.server.requests.length;
      const prompt = agent.harness.prompt(sessionId, 'hi');
      // Turns of the event loop while the copy is held (no timing): a turn that did not wait would send its request now.
      for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      held.release();
      assert.equal(await prompt, 'end_turn');
      assert.equal(model.server.requests.length, requestsBefore + 1);
      assert.match(JSON.stringify(model.server.requests.at(-1)!.body.tools), /mcp__fake__echo/, "the first request offers the MCP server's tools");
    });
  });

  test("a prompt that arrives while the copy is being prepared sends its first model request before the copy's children start; a tool call then waits for the copy", { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const order: string[] = [];
    let sessionOfTest = '';
    // The copy starts only once the prompt holds it (waited for by condition, not time), so the order below is the prompt's doing.
    const untilHeld = async () => {
      while (!agent.isolation.isHeld(sessionOfTest)) await new Promise((resolve) => setImmediate(resolve));
    };
    const agent = isolatedAgent(env(), data, false, untilHeld, async () => {
      order.push('copy goes on');
    });
    try {
      await agent.harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await agent.harness.connection.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
      sessionOfTest = sessionId;
      model.server.script({ type: 'stream', parts: [{ toolCall: { id: 'w1', name: 'write_file', args: { path: 'b.txt', content: 'agent\n' } } }] }, reply.text('Done.'));
      const stop = afterNextModelRequest(() => order.push('first model request sent'));
      try {
        assert.equal(await agent.harness.prompt(sessionId, 'write b.txt'), 'end_turn');
      } finally {
        stop();
      }
      assert.deepEqual(order, ['first model request sent', 'copy goes on']);
      // Released once the prompt's answer is out (a turn of the event loop later, no timing).
      while (agent.isolation.isHeld(sessionId)) await new Promise((resolve) => setImmediate(resolve));
      const { root } = (await agent.logs.replay(sessionId)).workspace as { root: string };
      assert.equal(readFileSync(join(root, 'b.txt'), 'utf8'), 'agent\n', 'the call waited for the copy and ran in it');
      assert.ok(!existsSync(join(project, 'b.txt')), "the person's tree is untouched");
    } finally {
      await agent.close();
      remove();
    }
  });
});
