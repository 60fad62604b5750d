// Compaction over real ACP against the fake model: automatic past the
// threshold and by `/compact`, with and without the client capability, its
// replay on session/load, and a failure that keeps the history.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor, inMemoryAgent, messageText, updatesOf, type Harness } from './harness';
import { withAgentSession, withLoggedAgents } from './agentSessions';

const compactionCapable = { session: { compaction: {} } };
/** The fake model's window is the default 128k; 110k input puts the gauge past 80%. */
const bigUsage = { input: 110_000, output: 50 };

describe('compaction', () => {
  const model = fakeModelFor('accord-compaction-config-');

  const withAgent = (capabilities: Record<string, unknown>, run: (agent: Harness, sessionId: string, root: string) => Promise<void>) =>
    withAgentSession(() => inMemoryAgent({ env: model.env() }), capabilities, run, 'accord-compaction-');

  const requestText = (index: number) => JSON.stringify(model.server.requests[index]!.body.messages);
  const isSummaryRequest = (index: number) => JSON.stringify(model.server.requests[index]!.body.messages).includes('You compact a conversation');

  /** Two turns: the second passes the threshold after a tool call, so the loop compacts before its next request. */
  async function autoCompactionScenario(agent: Harness, sessionId: string, root: string) {
    writeFileSync(join(root, 'a.txt'), 'alpha\n');
    // A long first answer: the older history the summary replaces is most of the context.
    model.server.script(reply.text(`The first answer. ${'Apples grow on trees in orchards. '.repeat(4000)}`, { usage: { input: 2_000, output: 36_000 } }));
    assert.equal(await agent.prompt(sessionId, 'the first question'), 'end_turn');
    const first = model.server.requests.length;
    model.server.script(
      reply.tool('r1', 'read_file', { path: 'a.txt' }, { usage: bigUsage }),
      reply.text('SUMMARY: the person asked a first question and got an answer.', { usage: { input: 40_000, output: 15 } }),
      reply.text('Read it: alpha.', { usage: { input: 1_200, output: 10 } }),
    );
    assert.equal(await agent.prompt(sessionId, 'the second question'), 'end_turn');
    return first;
  }

  test('automatic past the threshold, with the capability: updates, summary in place of older history, gauge drops', async () => {
    await withAgent(compactionCapable, async (agent, sessionId, root) => {
      const first = await autoCompactionScenario(agent, sessionId, root);
      assert.equal(model.server.requests.length - first, 3);
      assert.ok(isSummaryRequest(first + 1), 'the second request of the turn writes the summary');
      assert.match(requestText(first + 1), /the first question/);
      const after = requestText(first + 2);
      assert.match(after, /SUMMARY: the person asked/);
      assert.doesNotMatch(after, /the first question|The first answer/, 'the summary replaced the older history');
      assert.match(after, /the second question/, 'the current turn is kept whole');
      assert.match(after, /alpha/, 'with its tool result');

      const compactions = updatesOf(agent, sessionId, 'compaction_update');
      assert.deepEqual(compactions.map((u) => u.status), ['in_progress', 'completed']);
      assert.equal(compactions[1].summary[0].text, 'SUMMARY: the person asked a first question and got an answer.');
      const chunks = updatesOf(agent, sessionId, 'compaction_summary_chunk').map((u) => u.content.text).join('');
      assert.equal(chunks, 'SUMMARY: the person asked a first question and got an answer.');
      assert.doesNotMatch(messageText(agent, sessionId), /compacted/, 'a capable client gets no message about it');

      const gauge = updatesOf(agent, sessionId, 'usage_update').map((u) => u.used);
      const before = bigUsage.input + bigUsage.output;
      const dropped = gauge[gauge.indexOf(before) + 1]!;
      assert.ok(dropped < before, `the gauge drops after compaction (${before} → ${dropped})`);
      // What the model is sent: the history before (request `first`) and after (first + 2, one tool result more).
      const sentBefore = requestText(first).length;
      const sentAfter = requestText(first + 2).length;
      assert.ok(sentAfter < sentBefore / 10, `the next request is far smaller (${sentBefore} → ${sentAfter} chars)`);
      console.log(`compaction: gauge ${before} → ${dropped} tokens (estimate until the next request reports; saved ${before - dropped}); messages sent ${sentBefore} → ${sentAfter} chars (≈${Math.round((sentBefore - sentAfter) / 4)} tokens at 4 chars/token)`);
    });
  });

  test('automatic, without the capability: no compaction updates; the conversation says so and the gauge drops', async () => {
    await withAgent({}, async (agent, sessionId, root) => {
      await autoCompactionScenario(agent, sessionId, root);
      assert.equal(updatesOf(agent, sessionId, 'compaction_update').length, 0);
      assert.equal(updatesOf(agent, sessionId, 'compaction_summary_chunk').length, 0);
      assert.match(messageText(agent, sessionId), /compacted[\s\S]*SUMMARY: the person asked/);
    });
  });

  test('/compact is advertised, compacts the whole history, and uses what the person asked to keep', async () => {
    await withAgent(compactionCapable, async (agent, sessionId) => {
      const commands = await agent.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update');
      assert.ok((commands.update as any).availableCommands.some((c: any) => c.name === 'compact' && c.input?.hint));
      model.server.script(reply.text('An answer about apples.'));
      await agent.prompt(sessionId, 'tell me about apples');
      const start = model.server.requests.length;
      model.server.script(reply.text('SUMMARY: apples were discussed.'), reply.text('Still here.'));
      assert.equal(await agent.prompt(sessionId, '/compact keep the fruit names'), 'end_turn');
      assert.ok(isSummaryRequest(start));
      assert.match(requestText(start), /keep the fruit names/);
      assert.deepEqual(updatesOf(agent, sessionId, 'compaction_update').map((u) => u.status), ['in_progress', 'completed']);
      await agent.prompt(sessionId, 'next');
      const sent = requestText(start + 1);
      assert.match(sent, /SUMMARY: apples were discussed/);
      assert.doesNotMatch(sent, /tell me about apples|compact keep/);
    });
  });

  test('a failed compaction keeps the history and says why', async () => {
    await withAgent(compactionCapable, async (agent, sessionId) => {
      model.server.script(reply.text('An answer about pears.'));
      await agent.prompt(sessionId, 'tell me about pears');
      const start = model.server.requests.length;
      model.server.script(reply.error(400, { error: { message: 'context too long for the summary', type: 'invalid_request_error' } }), reply.text('ok'));
      assert.equal(await agent.prompt(sessionId, '/compact'), 'end_turn');
      const failed = updatesOf(agent, sessionId, 'compaction_update').at(-1);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /context too long/);
      await agent.prompt(sessionId, 'next');
      assert.match(requestText(start + 1), /tell me about pears/, 'the history is unchanged');
    });
  });

  test('a failed automatic compaction keeps the history, says why, and is not retried before every request of the turn', async () => {
    await withAgent(compactionCapable, async (agent, sessionId, root) => {
      writeFileSync(join(root, 'a.txt'), 'alpha\n');
      model.server.script(reply.text('A short first answer.', { usage: { input: 2_000, output: 10 } }));
      await agent.prompt(sessionId, 'the first question');
      const first = model.server.requests.length;
      model.server.script(
        reply.tool('r1', 'read_file', { path: 'a.txt' }, { usage: bigUsage }),
        reply.error(400, { error: { message: 'summary refused by the provider', type: 'invalid_request_error' } }),
        reply.tool('r2', 'read_file', { path: 'a.txt' }, { usage: bigUsage }),
        reply.text('Done anyway.'),
      );
      assert.equal(await agent.prompt(sessionId, 'the second question'), 'end_turn');
      assert.equal(model.server.requests.length - first, 4);
      assert.ok(isSummaryRequest(first + 1));
      assert.ok(!isSummaryRequest(first + 2) && !isSummaryRequest(first + 3), 'no second attempt in the same turn');
      assert.match(requestText(first + 2), /the first question/, 'the history is kept');
      const failed = updatesOf(agent, sessionId, 'compaction_update').at(-1);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /summary refused by the provider/);
    });
  });

  test('a loaded session replays the compaction and continues from the summary', async () => {
    await withLoggedAgents({ env: model.env() }, async (logged, root) => {
      const first = logged();
      const sessionId = await first.newSession(root, compactionCapable);
      await autoCompactionScenario(first, sessionId, root);
      await first.connection.agent.request(methods.agent.session.close, { sessionId });
      await first.close();

      for (const capabilities of [compactionCapable, {}]) {
        const second = logged();
        await second.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: capabilities as never });
        await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
        if (capabilities === compactionCapable) {
          assert.deepEqual(updatesOf(second, sessionId, 'compaction_update').map((u) => u.status), ['in_progress', 'completed']);
          const start = model.server.requests.length;
          model.server.script(reply.text('Continuing.'));
          await second.prompt(sessionId, 'the third question');
          const sent = requestText(start);
          assert.match(sent, /SUMMARY: the person asked/);
          assert.doesNotMatch(sent, /the first question/, 'the loaded history starts at the summary');
        } else {
          assert.equal(updatesOf(second, sessionId, 'compaction_update').length, 0);
          assert.match(messageText(second, sessionId), /compacted[\s\S]*SUMMARY: the person asked/);
        }
        await second.connection.agent.request(methods.agent.session.close, { sessionId });
        await second.close();
      }
    }, 'accord-compaction-load-');
  });
});
