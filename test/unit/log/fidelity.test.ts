// The log against the real agent: a live turn through the ACP adapter (thoughts,
// text, plan, an approved command and an approved edit with a diff, usage) is
// recorded through the core's seams, then rebuilt from disk: the replay equals
// what the client received, update for update, and the rebuilt history lets a
// new session continue the same conversation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemorySessionStore } from '../../../agent/core/sessionStore';
import { SessionRecorder, SessionStore, withLogOffset } from '../../../agent/log';
import { reply, startFakeModelServer, type FakeModelServer } from '../../fakeModelServer/index';
import { inMemoryAgent, isolatedEnv, tempDir } from '../agent/harness';
import { tempDataDir } from './fixtures';
import { waitFor } from '../../support/waitFor';

describe('replay fidelity with the real agent', () => {
  let server: FakeModelServer;
  const config = tempDir('accord-log-fidelity-config-');
  before(async () => {
    server = await startFakeModelServer();
  });
  after(async () => {
    await server.close();
    config.remove();
  });

  test('a recorded turn replays update for update; the history continues the conversation', { timeout: 120_000 }, async () => {
    const root = tempDir('accord-log-fidelity-');
    const { dir, cleanup } = await tempDataDir();
    const sessions = new MemorySessionStore();
    const agent = inMemoryAgent({ env: isolatedEnv({ ACCORD_MODEL: `openai-compatible:${server.baseUrl}#fake` }, config.path), store: sessions });
    try {
      writeFileSync(join(root.path, 'notes.txt'), 'draft\n');
      const sessionId = await agent.newSession(root.path);
      const logs = new SessionStore(dir);
      const log = await logs.create({ id: sessionId, cwd: root.path, agentVersion: 'test', config: { model: 'fake' } });
      const recorder = new SessionRecorder(log, sessions.get(sessionId)!);
      // The session's command list goes out on its own tick: wait for it, so it is not counted as this turn's.
      await waitFor('the available_commands_update', () => agent.updates.some((n) => n.update.sessionUpdate === 'available_commands_update'));
      const before = agent.updates.length;

      const plan = [{ content: 'Edit notes', priority: 'high', status: 'in_progress' }];
      server.script(
        { type: 'stream', parts: [{ reasoning: 'Plan first.' }, { text: 'Planning.' }, { toolCall: { id: 'p1', name: 'plan', args: { entries: plan } } }] },
        reply.tool('c1', 'run_command', { argv: [process.execPath, '-e', 'console.log("ran")'] }),
        reply.tool('e1', 'edit_file', { path: 'notes.txt', old_string: 'draft', new_string: 'final' }),
        reply.text('All done.'),
      );
      const prompt = [{ type: 'text', text: 'tidy the notes' }];
      recorder.turnStarted(prompt);
      assert.equal(await agent.prompt(sessionId, 'tidy the notes'), 'end_turn');
      await recorder.turnEnded('end_turn');
      await recorder.close();

      const sent = agent.updates.slice(before).filter((n) => n.sessionId === sessionId).map((n) => n.update);
      assert.ok(sent.some((u) => u.sessionUpdate === 'tool_call_update' && JSON.stringify(u).includes('"type":"diff"')), 'the turn had a diff');
      const replay = await logs.replay(sessionId);
      const [userChunk, ...replayed] = replay.updates;
      assert.deepEqual(userChunk, { offset: userChunk!.offset, update: { sessionUpdate: 'user_message_chunk', content: prompt[0] }, synthesized: true });
      // Live, each update already carried the offset of the record it was written as: the replay gives the same.
      assert.deepEqual(replayed.map((r) => withLogOffset(r.update, r.offset)), JSON.parse(JSON.stringify(sent)), 'same updates, same order, same toolCallIds, diffs and offsets');
      assert.ok(replayed.every((r, i) => i === 0 || r.offset > replayed[i - 1]!.offset), 'each update has its own record offset');
      assert.deepEqual(withLogOffset(replayed[0]!.update, replayed[0]!.offset)._meta, { 'accord/logOffset': replayed[0]!.offset });

      const live = sessions.get(sessionId)!;
      assert.deepEqual(replay.history, JSON.parse(JSON.stringify(live.history)));
      assert.equal(replay.title, 'tidy the notes');
      assert.equal(replay.lastTurnInterrupted, false);

      // "Load": a fresh session gets the rebuilt history, then the next prompt reaches the model with it.
      const next = await agent.newSession(root.path);
      sessions.get(next)!.appendHistory(...(replay.history as never[]));
      server.script(reply.text('Still here.'));
      assert.equal(await agent.prompt(next, 'what did you change?'), 'end_turn');
      const sentToModel = JSON.stringify(server.requests.at(-1)!.body.messages);
      for (const earlier of ['tidy the notes', 'All done.', '"e1"', 'what did you change?']) assert.ok(sentToModel.includes(earlier), `model saw ${earlier}`);
    } finally {
      await agent.close();
      root.remove();
      await cleanup();
    }
  });
});
