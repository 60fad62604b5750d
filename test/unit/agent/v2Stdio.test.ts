// ACP v2 over stdio against the built agent in its own process
// (`dist/agent.js acp --no-daemon`), through the SDK's v2 client: the same
// process that serves v1 answers a v2 initialize with v2, runs a turn
// (ack, upserts, idle with its stop reason), and its stdout stays protocol.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { reply } from '../../fakeModelServer/index';
import { ensureAgentBundle, fakeModelFor, isolatedEnv } from './harness';
import { childV2 } from './v2Harness';

describe('ACP v2 over stdio (dist/agent.js acp --no-daemon)', () => {
  ensureAgentBundle();
  const model = fakeModelFor('accord-v2-stdio-');

  test('initialize 2, new, a prompt answered with its message id and ended by an idle state, resume from the start', { timeout: 120_000 }, async () => {
    const project = join(model.configDir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'notes.txt'), 'draft\n');
    const agent = childV2(isolatedEnv({ ACCORD_MODEL: `openai-compatible:${model.server.baseUrl}#fake`, ACCORD_HOME: join(model.configDir, 'data'), ACCORD_SANDBOX: 'off' }, model.configDir));
    try {
      const init = await agent.initialize(2);
      assert.equal(init.protocolVersion, 2);
      assert.equal(init.info.name, 'accord');
      const { sessionId } = await agent.connection.agent.request(v2.methods.agent.session.new, { cwd: project });
      model.server.script(reply.text('Hello from v2.'));
      const from = agent.updates.length;
      const { messageId } = await agent.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
      assert.equal(await agent.idleAfter(sessionId, from), 'end_turn');
      const turn = agent.updates.slice(from).map((n) => n.update as any);
      const echo = turn.findIndex((u) => u.sessionUpdate === 'user_message');
      assert.deepEqual(turn[echo], { sessionUpdate: 'user_message', messageId, content: [{ type: 'text', text: 'hi' }] });
      assert.ok(echo < turn.findIndex((u) => u.sessionUpdate === 'agent_message_chunk'), 'the prompt is echoed before the answer');
      const text = turn.filter((u) => u.sessionUpdate === 'agent_message_chunk');
      assert.equal(text.map((u) => u.content.text).join(''), 'Hello from v2.');
      assert.ok(text.every((u) => u.messageId === text[0].messageId && typeof u._meta['accord/logOffset'] === 'number'));

      const before = agent.updates.length;
      await agent.connection.agent.request(v2.methods.agent.session.resume, { sessionId, cwd: project, replayFrom: { type: 'start' } });
      await agent.waitForUpdate((n) => agent.updates.indexOf(n) >= before && n.update.sessionUpdate === 'state_update');
      const replayed = agent.updates.slice(before).map((n) => n.update as any).filter((u) => u.sessionUpdate === 'agent_message_chunk');
      assert.deepEqual(replayed, text, 'the same message id and offsets on replay');
      const replayedPrompt = agent.updates.slice(before).map((n) => n.update as any).filter((u) => u.sessionUpdate === 'user_message_chunk');
      assert.deepEqual(replayedPrompt.map((u) => u.messageId), [messageId], 'the prompt too: its live id is the one the replay derives from its record');
    } finally {
      await agent.close();
    }
    assert.doesNotMatch(agent.stderr.join(''), /\n\s+at .*\(/, 'no stack traces on stderr');
  });
});
