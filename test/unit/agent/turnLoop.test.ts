// The turn loop over real ACP against the fake model: calls of one response
// run concurrently where safe, a prompt sent during a turn is queued, and a
// refused exchange is left out of the next request.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { methods } from '@agentclientprotocol/sdk';
import { builtinTools } from '../../../agent/tools/index';
import type { Tool, ToolKind } from '../../../agent/tools/tool';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor, inMemoryAgent, messageText, tempDir, updatesOf, type Harness } from './harness';

/**
 * A tool that waits until `expected` calls of it are running at once, or
 * gives up after a generous time: with concurrency it finishes as soon as the
 * last call starts; run one at a time it could only ever report 1.
 */
function barrierTool(name: string, kind: ToolKind, expected: number) {
  const stats = { running: 0, maxRunning: 0 };
  let release: () => void = () => {};
  const allThere = new Promise<void>((resolve) => (release = resolve));
  const tool: Tool<{ label: string }> = {
    name,
    kind,
    description: 'test tool',
    input: z.object({ label: z.string() }),
    describe: (input) => ({ title: `${name} ${input.label}`, locations: [] }),
    effect: async () => (kind === 'execute' ? { type: 'command', command: { argv: ['true'], cwd: '/', envChanges: {}, timeoutMs: 1000 } } : { type: 'none' }),
    async run(input, ctx) {
      stats.running++;
      stats.maxRunning = Math.max(stats.maxRunning, stats.running);
      if (stats.running >= expected) release();
      const gaveUp = new Promise<void>((resolve) => setTimeout(resolve, kind === 'execute' ? 200 : 30_000).unref());
      await Promise.race([allThere, gaveUp, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))]);
      stats.running--;
      return { forModel: `${input.label} done`, forUser: [{ type: 'text', text: `${input.label} done` }] };
    },
  };
  return { tool, stats };
}

const calls = (...list: Array<[string, string, unknown]>) => ({
  type: 'stream' as const,
  parts: list.map(([id, name, args]) => ({ toolCall: { id, name, args } })),
});

describe('turn loop', () => {
  const model = fakeModelFor('accord-turnloop-config-');

  async function withAgent(tools: Tool<any>[], run: (agent: Harness, sessionId: string, root: string) => Promise<void>) {
    const root = tempDir('accord-turnloop-');
    const agent = inMemoryAgent({ env: model.env(), tools: [...builtinTools(), ...tools] });
    try {
      await run(agent, await agent.newSession(root.path), root.path);
    } finally {
      await agent.close();
      root.remove();
    }
  }

  test('reads of one response run in parallel; updates stay in the model order', async () => {
    const { tool, stats } = barrierTool('slow_read', 'read', 3);
    await withAgent([tool], async (agent, sessionId) => {
      model.server.script(calls(['r1', 'slow_read', { label: 'one' }], ['r2', 'slow_read', { label: 'two' }], ['r3', 'slow_read', { label: 'three' }]), reply.text('All read.'));
      assert.equal(await agent.prompt(sessionId, 'read three things'), 'end_turn');
      assert.equal(stats.maxRunning, 3, 'all three reads were running at the same time');
      const announced = updatesOf(agent, sessionId, 'tool_call').map((u) => u.toolCallId);
      assert.deepEqual(announced, ['r1', 'r2', 'r3'], 'announced in the order the model asked');
      // Every call's own updates start with its announcement and end with its result.
      for (const id of announced) {
        const own = agent.updates.filter((n) => (n.update as any).toolCallId === id).map((n) => n.update as any);
        assert.equal(own[0].sessionUpdate, 'tool_call');
        assert.equal(own.at(-1).status, 'completed');
      }
      const results = (model.server.requests.at(-1)!.body.messages as any[]).filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
      assert.deepEqual(results, ['r1', 'r2', 'r3'], 'results go back in the model order');
    });
  });

  test('two edits of one file in one response run one after the other', async () => {
    await withAgent([], async (agent, sessionId, root) => {
      writeFileSync(join(root, 'f.txt'), 'one\n');
      model.server.script(
        calls(['e1', 'edit_file', { path: 'f.txt', old_string: 'one', new_string: 'two' }], ['e2', 'edit_file', { path: 'f.txt', old_string: 'two', new_string: 'three' }]),
        reply.text('Edited twice.'),
      );
      assert.equal(await agent.prompt(sessionId, 'edit twice'), 'end_turn');
      assert.equal(readFileSync(join(root, 'f.txt'), 'utf8'), 'three\n', 'the second edit saw the first one');
      assert.equal(agent.permissionRequests.length, 2);
    });
  });

  test('commands run one at a time', async () => {
    const { tool, stats } = barrierTool('slow_command', 'execute', 2);
    await withAgent([tool], async (agent, sessionId) => {
      model.server.script(calls(['c1', 'slow_command', { label: 'a' }], ['c2', 'slow_command', { label: 'b' }]), reply.text('Ran both.'));
      assert.equal(await agent.prompt(sessionId, 'run two'), 'end_turn');
      assert.equal(stats.maxRunning, 1);
      const done = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.status === 'completed').map((u) => u.toolCallId);
      assert.deepEqual(done, ['c1', 'c2']);
    });
  });

  test('a prompt sent during a turn is queued and runs next, with the first exchange in its history', async () => {
    await withAgent([], async (agent, sessionId) => {
      const first = model.server.requests.length;
      model.server.script(reply.text('first answer', { delayMs: 50 }), reply.text('second answer'));
      const one = agent.prompt(sessionId, 'first question');
      await model.server.waitForRequests(first + 1);
      const two = agent.prompt(sessionId, 'second question');
      assert.deepEqual(await Promise.all([one, two]), ['end_turn', 'end_turn']);
      assert.equal(messageText(agent, sessionId), 'first answersecond answer', 'the second turn ran after the first ended');
      const sent = JSON.stringify(model.server.requests[first + 1]!.body.messages);
      assert.match(sent, /first question[\s\S]*first answer[\s\S]*second question/);
    });
  });

  test('a cancel ends the running turn and the queued prompt, neither runs on', async () => {
    await withAgent([], async (agent, sessionId) => {
      const first = model.server.requests.length;
      model.server.script({ type: 'stream', parts: [{ text: 'never finished' }], stallAfterParts: 0 });
      const one = agent.prompt(sessionId, 'slow');
      await model.server.waitForRequests(first + 1);
      const two = agent.prompt(sessionId, 'queued');
      await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.deepEqual(await Promise.all([one, two]), ['cancelled', 'cancelled']);
      assert.equal(model.server.requests.length, first + 1, 'the queued prompt never reached the model');
      model.server.script(reply.text('fresh'));
      assert.equal(await agent.prompt(sessionId, 'again'), 'end_turn', 'the session takes prompts after the cancel');
    });
  });

  test('a refusal leaves the refused exchange out of the next request', async () => {
    await withAgent([], async (agent, sessionId) => {
      model.server.script(reply.text('fine'), { type: 'stream', parts: [{ text: 'I cannot' }], finish: 'refusal' }, reply.text('ok'));
      assert.equal(await agent.prompt(sessionId, 'harmless question'), 'end_turn');
      assert.equal(await agent.prompt(sessionId, 'forbidden question'), 'refusal');
      assert.equal(await agent.prompt(sessionId, 'next question'), 'end_turn');
      const sent = JSON.stringify(model.server.requests.at(-1)!.body.messages);
      assert.match(sent, /harmless question/);
      assert.doesNotMatch(sent, /forbidden question|I cannot/);
    });
  });
});
