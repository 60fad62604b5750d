// Child sessions over real ACP against the fake model: two children in
// parallel with and without clientCapabilities.subagents, a cancel while the
// children run, read-only tools by default, and a load that replays children
// with their parent. Also the wall time of three parallel children against
// the same work done serially (printed, with the load average; not asserted).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { Limiter } from '../../../agent/core/children';
import { reply, type StreamReply } from '../../fakeModelServer/index';
import { fakeModelFor, inMemoryAgent, messageText, updatesOf, type Harness } from './harness';
import { withAgentSession, withLoggedAgents } from './agentSessions';

const subagentsCapable = { subagents: {} };
const tasks = (...list: Array<[string, string, string]>): StreamReply => ({
  type: 'stream',
  parts: list.map(([id, description, prompt]) => ({ toolCall: { id, name: 'task', args: { description, prompt } } })),
});

describe('child sessions', () => {
  const model = fakeModelFor('accord-children-config-');

  const withAgent = (capabilities: Record<string, unknown>, run: (agent: Harness, sessionId: string, root: string) => Promise<void>) =>
    withAgentSession(() => inMemoryAgent({ env: model.env() }), capabilities, run, 'accord-children-');

  const childIdsOf = (agent: Harness, sessionId: string) => [...new Set(updatesOf(agent, sessionId, 'subagent_update').map((u) => u.sessionId))];

  test('two children in parallel, with the capability: subagent_update on the parent, the child\'s updates under its own id, results back to the parent', async () => {
    await withAgent(subagentsCapable, async (agent, sessionId) => {
      const first = model.server.requests.length;
      model.server.script(
        tasks(['t1', 'Survey apples', 'Tell me about apples.'], ['t2', 'Survey pears', 'Tell me about pears.']),
        reply.text('A child report.'),
        reply.text('A child report.'),
        reply.text('Both children reported.'),
      );
      assert.equal(await agent.prompt(sessionId, 'research fruit'), 'end_turn');
      assert.equal(model.server.requests.length - first, 4);
      const childIds = childIdsOf(agent, sessionId);
      assert.equal(childIds.length, 2);
      for (const childId of childIds) {
        assert.notEqual(childId, sessionId);
        const states = updatesOf(agent, sessionId, 'subagent_update').filter((u) => u.sessionId === childId).map((u) => u.state);
        assert.deepEqual(states, [{ state: 'running' }, { state: 'idle', stopReason: 'end_turn' }]);
        assert.equal(messageText(agent, childId), 'A child report.', 'the child\'s own stream arrives under its session id');
        assert.match(messageText(agent, childId, 'user_message_chunk'), /Tell me about (apples|pears)/);
      }
      const starts = updatesOf(agent, sessionId, 'subagent_update').filter((u) => u.title);
      assert.deepEqual(starts.map((u) => [u.title, u._meta['accord.dev/toolCallId']]).sort(), [['Survey apples', 't1'], ['Survey pears', 't2']], 'each child names the task card it nests under');
      // The children's requests carry only their own prompt, not the parent's conversation.
      const childRequests = [first + 1, first + 2].map((i) => JSON.stringify(model.server.requests[i]!.body.messages));
      for (const sent of childRequests) assert.doesNotMatch(sent, /research fruit/);
      const results = JSON.stringify(model.server.requests[first + 3]!.body.messages);
      assert.equal(results.match(/A child report\./g)?.length, 2, 'each child\'s result returns to the parent');
      const progress = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u._meta?.['accord/childProgress']);
      assert.equal(progress.length, 0, 'a capable client is not sent the progress copy in the task card');
    });
  });

  test('without the capability a child is an ordinary tool call with its progress in the content', async () => {
    await withAgent({}, async (agent, sessionId) => {
      model.server.script(tasks(['t1', 'Survey plums', 'Tell me about plums.'], ['t2', 'Survey figs', 'Tell me about figs.']), reply.text('Plums or figs.'), reply.text('Plums or figs.'), reply.text('Done.'));
      assert.equal(await agent.prompt(sessionId, 'research'), 'end_turn');
      assert.equal(updatesOf(agent, sessionId, 'subagent_update').length, 0);
      assert.deepEqual([...new Set(agent.updates.map((n) => n.sessionId))], [sessionId], 'nothing under another session id');
      const cards = updatesOf(agent, sessionId, 'tool_call').filter((u) => u.toolCallId === 't1' || u.toolCallId === 't2');
      assert.deepEqual(cards.map((c) => c.title), ['Task: Survey plums', 'Task: Survey figs']);
      for (const id of ['t1', 't2']) {
        const last = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.toolCallId === id).at(-1);
        assert.equal(last.status, 'completed');
        assert.equal(last.content[0].content.text, 'Plums or figs.', 'the card ends with the child\'s report');
      }
    });
  });

  test('without the capability the child\'s progress streams into its task card while it works', async () => {
    await withAgent({}, async (agent, sessionId) => {
      model.server.script(tasks(['t1', 'Survey limes', 'Tell me about limes.']), { type: 'stream', parts: [{ text: 'Limes are green' }, { text: ' never sent' }], stallAfterParts: 1 });
      const turn = agent.prompt(sessionId, 'research');
      const progress = await agent.waitForUpdate((n) => (n.update as any).toolCallId === 't1' && (n.update as any).content?.[0]?.content?.text === 'Limes are green');
      assert.equal((progress.update as any).status, undefined, 'a live update of the running card');
      await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await turn, 'cancelled');
    });
  });

  test('cancelling the parent mid-child cancels both children', async () => {
    await withAgent(subagentsCapable, async (agent, sessionId) => {
      const first = model.server.requests.length;
      const stalled: StreamReply = { type: 'stream', parts: [{ text: 'thinking…' }, { text: 'never' }], stallAfterParts: 1 };
      model.server.script(tasks(['t1', 'Slow one', 'Take your time.'], ['t2', 'Slow two', 'Take your time.']), stalled, stalled);
      const turn = agent.prompt(sessionId, 'go slowly');
      // Both children are waiting on the model at once: proof they run in parallel.
      await model.server.waitForRequests(first + 3);
      await agent.waitForUpdate((n) => n.sessionId !== sessionId && (n.update as any).content?.text === 'thinking…');
      await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await turn, 'cancelled');
      const ends = updatesOf(agent, sessionId, 'subagent_update').filter((u) => u.state?.state === 'idle');
      assert.deepEqual(ends.map((u) => u.state.stopReason), ['cancelled', 'cancelled']);
      assert.equal(model.server.requests.length, first + 3, 'no model request after the cancel');
      const cards = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => ['t1', 't2'].includes(u.toolCallId) && u.status);
      assert.ok(cards.filter((u) => u.status === 'failed').length === 2, 'both task cards end failed');
    });
  });

  test('a child reads by default and cannot edit', async () => {
    await withAgent(subagentsCapable, async (agent, sessionId, root) => {
      writeFileSync(join(root, 'fact.txt'), 'the sky is blue\n');
      const first = model.server.requests.length;
      model.server.script(
        tasks(['t1', 'Read a fact', 'Read fact.txt and report it.']),
        reply.tool('c1', 'read_file', { path: 'fact.txt' }),
        reply.text('The fact: the sky is blue.'),
        reply.text('Reported.'),
      );
      assert.equal(await agent.prompt(sessionId, 'delegate'), 'end_turn');
      const childTools = (model.server.requests[first + 1]!.body.tools as any[]).map((t) => t.function.name).sort();
      assert.deepEqual(childTools, ['list_files', 'plan', 'read_file', 'search'].sort(), 'read-only tools, and no task tool');
      const [childId] = childIdsOf(agent, sessionId);
      assert.ok(updatesOf(agent, childId!, 'tool_call').some((u) => u.toolCallId === 'c1'), 'the child\'s tool call shows under the child');
      assert.match(JSON.stringify(model.server.requests[first + 3]!.body.messages), /The fact: the sky is blue/);
    });
  });

  test('children are in the parent\'s log and replayed with it', async () => {
    await withLoggedAgents({ env: model.env() }, async (logged, root) => {
      const first = logged();
      const sessionId = await first.newSession(root, subagentsCapable);
      model.server.script(tasks(['t1', 'Survey kiwis', 'Tell me about kiwis.']), reply.text('Kiwis are fuzzy.'), reply.text('Done.'));
      assert.equal(await first.prompt(sessionId, 'kiwis'), 'end_turn');
      const [childId] = childIdsOf(first, sessionId);
      await first.connection.agent.request(methods.agent.session.close, { sessionId });
      await first.close();

      const second = logged();
      await second.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: subagentsCapable as never });
      await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
      assert.deepEqual(childIdsOf(second, sessionId), [childId]);
      assert.equal(messageText(second, childId!), 'Kiwis are fuzzy.');
      await second.connection.agent.request(methods.agent.session.close, { sessionId });
      await second.close();
    }, 'accord-children-load-');
  });

  test('the limiter admits at most its limit and the rest in arrival order', async () => {
    const limiter = new Limiter(2);
    const never = new AbortController().signal;
    const order: number[] = [];
    const holders = [1, 2, 3, 4].map((n) => limiter.acquire(never).then(() => order.push(n)));
    await Promise.all(holders.slice(0, 2));
    assert.equal(limiter.running, 2);
    assert.deepEqual(order, [1, 2]);
    limiter.release();
    await holders[2];
    assert.deepEqual(order, [1, 2, 3]);
    const abandoning = new AbortController();
    const gaveUp = limiter.acquire(abandoning.signal);
    abandoning.abort();
    assert.equal(await gaveUp, false, 'a cancelled wait gives up its place');
    limiter.release();
    await holders[3];
    assert.deepEqual(order, [1, 2, 3, 4]);
  });

  test('measure: three children in parallel against the same three serially (fake model with a delay)', async () => {
    await withAgent(subagentsCapable, async (agent, sessionId) => {
      const slowChild = (): StreamReply => ({ type: 'stream', parts: [{ text: 'part one. ' }, { text: 'part two.' }], delayMs: 150 });
      model.server.script(tasks(['p1', 'One', 'one'], ['p2', 'Two', 'two'], ['p3', 'Three', 'three']), slowChild(), slowChild(), slowChild(), reply.text('done'));
      const parallelStart = performance.now();
      assert.equal(await agent.prompt(sessionId, 'parallel'), 'end_turn');
      const parallelMs = performance.now() - parallelStart;
      model.server.script(tasks(['s1', 'One', 'one']), slowChild(), tasks(['s2', 'Two', 'two']), slowChild(), tasks(['s3', 'Three', 'three']), slowChild(), reply.text('done'));
      const serialStart = performance.now();
      assert.equal(await agent.prompt(sessionId, 'serial'), 'end_turn');
      const serialMs = performance.now() - serialStart;
      console.log(`children: 3 parallel ${Math.round(parallelMs)} ms, 3 serial ${Math.round(serialMs)} ms (fake model 150 ms per SSE event), load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
    });
  });
});
