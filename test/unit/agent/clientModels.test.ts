// The `vscode-lm` provider over real ACP: the agent's model requests go to a
// client that implements `_accord/lm/*` (as Accord in VS Code does with
// `vscode.lm`): streamed text, a tool call and its result, cancellation,
// estimated usage, and the picker; a client that does not offer the methods
// is never asked.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods, type ClientApp } from '@agentclientprotocol/sdk/unstable';
import { LM_CAPABILITY_KEY, LM_METHODS, lmChatParams, type LmChatParams } from '../../../protocol/accordMethods';
import { fakeLm, lmChat, lmModels, type FakeLm } from './fakeLm';
import { inMemoryAgent, isolatedEnv, messageText, tempDir, updatesOf, type Harness } from './harness';
import { withAgentSession } from './agentSessions';

/** A client serving `_accord/lm/*` from a script. */
function lmClient(fake: FakeLm) {
  return (app: ClientApp): ClientApp => app.onRequest(LM_METHODS.models, (p: unknown) => p, lmModels(fake)).onRequest(LM_METHODS.chat, lmChatParams, lmChat(fake));
}

const offered = { _meta: { [LM_CAPABILITY_KEY]: { version: 1 } } };

describe('VS Code language models through the client (vscode-lm)', () => {
  const config = tempDir('accord-lm-config-');
  after(() => config.remove());

  const withAgent = (fake: FakeLm, capabilities: Record<string, unknown>, run: (agent: Harness, sessionId: string, root: string) => Promise<void>, model = 'vscode-lm:copilot/gpt-4o') =>
    withAgentSession(() => inMemoryAgent({ env: isolatedEnv({ ACCORD_MODEL: model }, config.path) }, lmClient(fake)), capabilities, run, 'accord-lm-');

  test('streams text, runs the tool call the model asks for, and sends its result back', async () => {
    const fake = fakeLm();
    await withAgent(fake, offered, async (agent, sessionId, root) => {
      writeFileSync(join(root, 'notes.txt'), 'the secret word is lantern\n');
      fake.script.push(
        async ({ send }) => {
          await send([{ type: 'text', text: 'Let me ' }]);
          await send([{ type: 'text', text: 'look.' }, { type: 'tool_call', callId: 'call-1', name: 'read_file', input: { path: 'notes.txt' } }]);
        },
        async ({ send }) => {
          await send([{ type: 'text', text: ' The word is ' }]);
          await send([{ type: 'text', text: 'lantern.' }]);
        },
      );
      const stop = await agent.prompt(sessionId, 'What is the secret word?');
      assert.equal(stop, 'end_turn');
      assert.equal(messageText(agent, sessionId), 'Let me look. The word is lantern.');

      assert.equal(fake.requests.length, 2);
      const [first, second] = fake.requests as [LmChatParams, LmChatParams];
      assert.equal(first.vendor, 'copilot');
      assert.equal(first.model, 'gpt-4o');
      assert.equal(first.toolMode, 'auto');
      const readFile = first.tools.find((t) => t.name === 'read_file');
      assert.ok(readFile, 'the agent offers its tools');
      assert.equal(readFile.inputSchema.type, 'object');
      // VS Code has no system role: the system prompt opens the first user message.
      assert.equal(first.messages[0]!.role, 'user');
      assert.match(JSON.stringify(first.messages), /What is the secret word\?/);

      const call = second.messages.flatMap((m) => m.content).find((p) => p.type === 'tool_call');
      assert.deepEqual(call, { type: 'tool_call', callId: 'call-1', name: 'read_file', input: { path: 'notes.txt' } });
      const result = second.messages.flatMap((m) => m.content).find((p) => p.type === 'tool_result');
      assert.ok(result && result.type === 'tool_result');
      assert.equal(result.callId, 'call-1');
      assert.match(result.text, /lantern/);

      const card = updatesOf(agent, sessionId, 'tool_call_update').find((u) => u.toolCallId === 'call-1' && u.status === 'completed');
      assert.ok(card, 'the read shows as a completed tool call');

      const usage = updatesOf(agent, sessionId, 'usage_update').at(-1);
      assert.equal(usage.used, 940);
      assert.equal(usage.size, 64_000, "the gauge's size is the model's maxInputTokens");
      assert.equal(usage.cost, undefined, 'a subscription model gets no per-token cost');
      assert.equal(usage._meta?.['accord/usageEstimated'], true, 'the counts are marked as an estimate');
    });
  });

  test('session/cancel mid-stream cancels the client request and ends the turn cancelled', async () => {
    const fake = fakeLm();
    await withAgent(fake, offered, async (agent, sessionId) => {
      fake.script.push(async ({ send, signal }) => {
        await send([{ type: 'text', text: 'Working on it' }]);
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      });
      const stop = agent.prompt(sessionId, 'Write a long essay');
      await agent.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk');
      await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await stop, 'cancelled');
      assert.equal(fake.aborted, 1, "the client's request was cancelled ($/cancel_request)");
      assert.equal(messageText(agent, sessionId), 'Working on it');
    });
  });

  test('the picker lists the lent models by vendor, and picking one switches the session to it', async () => {
    const fake = fakeLm();
    await withAgent(fake, offered, async (agent, sessionId) => {
      const { configOptions } = await agent.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'vscode-lm:copilot/claude-sonnet-4' });
      const model = configOptions.find((o) => o.id === 'model') as { currentValue: string; options: Array<{ group: string; name: string; options: Array<{ value: string; name: string }> }> };
      assert.equal(model.currentValue, 'vscode-lm:copilot/claude-sonnet-4');
      const copilotGroup = model.options.find((g) => g.group === 'vscode-lm:copilot');
      assert.equal(copilotGroup?.name, 'GitHub Copilot', 'grouped under the vendor');
      assert.deepEqual(
        copilotGroup.options.slice().sort((a, b) => b.value.localeCompare(a.value)),
        [
          { value: 'vscode-lm:copilot/gpt-4o', name: 'GPT-4o' },
          { value: 'vscode-lm:copilot/claude-sonnet-4', name: 'Claude Sonnet 4' },
        ],
      );
      fake.script.push(async ({ send }) => send([{ type: 'text', text: 'Hi from Sonnet.' }]));
      assert.equal(await agent.prompt(sessionId, 'hello'), 'end_turn');
      assert.equal(fake.requests[0]!.model, 'claude-sonnet-4');
      assert.equal(updatesOf(agent, sessionId, 'usage_update').at(-1).size, 80_000);
    });
  });

  test('a client that does not offer language models is never asked, and the turn says why', async () => {
    const fake = fakeLm();
    await withAgent(fake, {}, async (agent, sessionId) => {
      assert.equal(await agent.prompt(sessionId, 'hello'), 'end_turn');
      assert.match(messageText(agent, sessionId), /does not offer them/);
      assert.equal(fake.listed, 0);
      assert.equal(fake.requests.length, 0);
    });
  });

  test('a model VS Code no longer offers ends the turn with what to do', async () => {
    const fake = fakeLm();
    await withAgent(fake, offered, async (agent, sessionId) => {
      assert.equal(await agent.prompt(sessionId, 'hello'), 'end_turn');
      assert.match(messageText(agent, sessionId), /VS Code offers no model "o9-preview" from copilot/);
      assert.equal(fake.requests.length, 0);
    }, 'vscode-lm:copilot/o9-preview');
  });

  test('attack: a client answering with malformed data gets a clear failed turn, not a crash or a fake success', async () => {
    const fake = fakeLm();
    fake.rawAnswer = { parts: -1, usage: 'lots', estimated: 'yes' };
    await withAgent(fake, offered, async (agent, sessionId) => {
      assert.equal(await agent.prompt(sessionId, 'hello'), 'end_turn');
      assert.match(messageText(agent, sessionId), /cannot read/);
      // The connection still works: the next turn with a sane answer goes through.
      fake.rawAnswer = undefined;
      fake.script.push(async ({ send }) => send([{ type: 'text', text: 'recovered' }]));
      assert.equal(await agent.prompt(sessionId, 'again'), 'end_turn');
      assert.match(messageText(agent, sessionId), /recovered$/);
    });
  });

  test('attack: parts tagged with another stream id or malformed are dropped', async () => {
    const fake = fakeLm();
    await withAgent(fake, offered, async (agent, sessionId) => {
      fake.script.push(async ({ send }) => {
        await agent.connection.agent.notify(LM_METHODS.parts, { streamId: 'not-a-stream', parts: [{ type: 'text', text: 'INJECTED' }] });
        await agent.connection.agent.notify(LM_METHODS.parts, { streamId: fake.requests[0]!.streamId, parts: [{ type: 'shell', text: 'rm -rf' }] });
        await send([{ type: 'text', text: 'clean' }]);
      });
      assert.equal(await agent.prompt(sessionId, 'hello'), 'end_turn');
      assert.equal(messageText(agent, sessionId), 'clean');
    });
  });
});
