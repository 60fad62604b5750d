// Cancel is an interrupt: during streaming, during a running command and
// during a permission request, the prompt answers `cancelled`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { reply } from '../../fakeModelServer/index';
import { inMemoryAgent, neverAnswer, updatesOf, fakeModelFor } from './harness';
import { waitFor } from '../../support/waitFor';
import { pidAlive as alive } from '../../support/pidAlive';

describe('cancel', () => {
  const model = fakeModelFor('accord-cancel-');
  const env = model.env;

  test('during streaming: the stream is dropped and the prompt answers cancelled', async () => {
    const agent = inMemoryAgent({ env: env() });
    try {
      const sessionId = await agent.newSession(model.configDir);
      model.server.script({ type: 'stream', parts: [{ text: 'partial answer' }, { text: ' never sent' }], stallAfterParts: 1 });
      const prompt = agent.prompt(sessionId, 'talk');
      await agent.waitForUpdate((n) => n.update.sessionUpdate === 'agent_message_chunk');
      await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
      // The next turn works and the model sees what was already shown.
      model.server.script(reply.text('again'));
      assert.equal(await agent.prompt(sessionId, 'continue'), 'end_turn');
      assert.match(JSON.stringify(model.server.requests.at(-1)!.body.messages), /partial answer/);
    } finally {
      await agent.close();
    }
  });

  test('during a running command: the child process is killed', async () => {
    const agent = inMemoryAgent({ env: env() });
    const pidFile = join(model.configDir, 'sleeper.pid');
    try {
      const sessionId = await agent.newSession(model.configDir);
      const argv = ['sh', '-c', `echo $$ > ${pidFile}; exec sleep 60`];
      model.server.script(reply.tool('call_sleep', 'run_command', { argv }), reply.text('unused'));
      const prompt = agent.prompt(sessionId, 'sleep');
      await agent.waitForUpdate((n) => n.update.sessionUpdate === 'tool_call_update' && n.update.status === 'in_progress');
      await waitFor('the command to write its pid', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
      const pid = Number(readFileSync(pidFile, 'utf8'));
      assert.ok(alive(pid));
      await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
      assert.equal(alive(pid), false, 'the command was killed, not left running');
      const last = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'call_sleep').at(-1);
      assert.equal(last.status, 'failed');
    } finally {
      model.server.clearScript();
      await agent.close();
    }
  });

  test('during a permission request: the request is withdrawn and nothing is written', async () => {
    const agent = inMemoryAgent({ env: env() });
    let withdrawn: Promise<unknown> | undefined;
    agent.permissions.policy = (request, signal) => {
      withdrawn = neverAnswer(request, signal);
      return withdrawn as ReturnType<typeof neverAnswer>;
    };
    try {
      const sessionId = await agent.newSession(model.configDir);
      writeFileSync(join(model.configDir, 'x.txt'), 'before\n');
      model.server.script(reply.tool('call_edit', 'edit_file', { path: 'x.txt', old_string: 'before', new_string: 'after' }), reply.text('unused'));
      const prompt = agent.prompt(sessionId, 'edit');
      await agent.waitForUpdate(() => agent.permissionRequests.length > 0);
      await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
      assert.equal(readFileSync(join(model.configDir, 'x.txt'), 'utf8'), 'before\n');
      await withdrawn; // resolves only once the agent's $/cancel_request reached the client
    } finally {
      model.server.clearScript();
      await agent.close();
    }
  });

  test('a cancel sent right behind the prompt, before any output, still answers cancelled', async () => {
    const agent = inMemoryAgent({ env: env() });
    try {
      const sessionId = await agent.newSession(model.configDir);
      model.server.script({ type: 'stream', parts: [{ reasoning: 'never seen' }, { text: 'never seen' }], delayMs: 200 });
      const prompt = agent.prompt(sessionId, 'talk');
      void agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
    } finally {
      model.server.clearScript();
      await agent.close();
    }
  });
});
