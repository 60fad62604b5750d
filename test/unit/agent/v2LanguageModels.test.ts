// The editor's language models (`_accord/lm/*`) lent to the agent by a v2
// client, through the SDK's own v2 client: the v2 facade must pass the
// client's offer (`capabilities._meta["accord/languageModels"]`) to the v1
// app it fronts, forward the agent's `_accord/lm/*` requests to the client
// and the client's `_accord/lm/parts` back, and carry a cancel both ways.
// In memory behind the version router, and once as `dist/agent.js acp`.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { createAccordAgent } from '../../../agent/acp/app';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { builtinTools } from '../../../agent/tools/index';
import { LM_CAPABILITY_KEY, LM_METHODS, lmChatParams, type LmChatParams } from '../../../protocol/accordMethods';
import { fakeLm, lmChat, lmModels, type FakeLm } from './fakeLm';
import { ensureAgentBundle, isolatedEnv, tempDir } from './harness';
import { childV2, inMemoryV2, v2Updates, type V2ClientSetup, type V2Harness } from './v2Harness';

/** A v2 client serving `_accord/lm/*` from a script. */
function lmClient(fake: FakeLm): V2ClientSetup {
  return (app) => app.onRequest(LM_METHODS.models, (p: unknown) => p, lmModels(fake)).onRequest(LM_METHODS.chat, lmChatParams, lmChat(fake));
}

const offered: v2.ClientCapabilities = { _meta: { [LM_CAPABILITY_KEY]: { version: 1 } } };

const text = (h: V2Harness, sessionId: string, from = 0) =>
  h.updates
    .slice(from)
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
    .map((n) => (n.update as { content: { text?: string } }).content.text ?? '')
    .join('');

async function prompt(h: V2Harness, sessionId: string, words: string): Promise<{ stop: string; from: number }> {
  const from = h.updates.length;
  await h.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: words }] });
  return { stop: await h.idleAfter(sessionId, from), from };
}

describe('ACP v2: the editor lends its language models (_accord/lm/* through the v2 facade)', () => {
  const config = tempDir('accord-v2-lm-config-');
  after(() => config.remove());

  async function withAgent(fake: FakeLm, capabilities: v2.ClientCapabilities, run: (h: V2Harness, sessionId: string, root: string) => Promise<void>, model = 'vscode-lm:copilot/gpt-4o') {
    const root = tempDir('accord-v2-lm-');
    const app = createAccordAgent({ env: isolatedEnv({ ACCORD_MODEL: model, ACCORD_SANDBOX: 'off' }, config.path), tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0 });
    const h = inMemoryV2(app, lmClient(fake));
    try {
      await h.initialize(2, capabilities);
      const { sessionId } = await h.connection.agent.request(v2.methods.agent.session.new, { cwd: root.path });
      await run(h, sessionId, root.path);
    } finally {
      await h.close();
      root.remove();
    }
  }

  test('streams text, runs the tool call the model asks for, and sends its result back', { timeout: 120_000 }, async () => {
    const fake = fakeLm();
    await withAgent(fake, offered, async (h, sessionId, root) => {
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
      const { stop } = await prompt(h, sessionId, 'What is the secret word?');
      assert.equal(stop, 'end_turn');
      assert.equal(text(h, sessionId), 'Let me look. The word is lantern.');
      assert.equal(fake.requests.length, 2);
      const [first, second] = fake.requests as [LmChatParams, LmChatParams];
      assert.equal(first.vendor, 'copilot');
      assert.equal(first.model, 'gpt-4o');
      assert.ok(first.tools.some((t) => t.name === 'read_file'), 'the agent offers its tools');
      const result = second.messages.flatMap((m) => m.content).find((p) => p.type === 'tool_result');
      assert.ok(result && result.type === 'tool_result' && result.callId === 'call-1');
      assert.match(result.text, /lantern/);
      const card = v2Updates(h, sessionId, 'tool_call_update').find((u) => u.toolCallId === 'call-1' && u.status === 'completed');
      assert.ok(card, 'the read shows as a completed v2 tool call');
      const usage = v2Updates(h, sessionId, 'usage_update').at(-1);
      assert.equal(usage.size, 64_000, "the gauge's size is the lent model's maxInputTokens");
    });
  });

  test('the picker lists the lent models, and picking one switches the session to it', { timeout: 120_000 }, async () => {
    const fake = fakeLm();
    await withAgent(fake, offered, async (h, sessionId) => {
      const { configOptions } = await h.connection.agent.request(v2.methods.agent.session.setConfigOption, { sessionId, configId: 'model', type: 'id', value: 'vscode-lm:copilot/claude-sonnet-4' });
      const model = configOptions.find((o) => o.configId === 'model') as unknown as { currentValue: string; options: Array<{ groupId: string; options: Array<{ value: string }> }> };
      assert.equal(model.currentValue, 'vscode-lm:copilot/claude-sonnet-4');
      const group = model.options.find((g) => g.groupId === 'vscode-lm:copilot');
      assert.deepEqual(group?.options.map((o) => o.value).sort(), ['vscode-lm:copilot/claude-sonnet-4', 'vscode-lm:copilot/gpt-4o']);
      assert.ok(fake.listed >= 1, 'the models were asked of the v2 client');
      fake.script.push(async ({ send }) => send([{ type: 'text', text: 'Hi from Sonnet.' }]));
      assert.equal((await prompt(h, sessionId, 'hello')).stop, 'end_turn');
      assert.equal(fake.requests[0]!.model, 'claude-sonnet-4');
    });
  });

  test('session/cancel mid-stream cancels the client request ($/cancel_request reaches the v2 client) and ends the turn cancelled', { timeout: 120_000 }, async () => {
    const fake = fakeLm();
    await withAgent(fake, offered, async (h, sessionId) => {
      let cancelled!: () => void;
      const clientSawCancel = new Promise<void>((resolve) => (cancelled = resolve));
      fake.script.push(async ({ send, signal }) => {
        await send([{ type: 'text', text: 'Working on it' }]);
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        cancelled();
      });
      const from = h.updates.length;
      await h.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Write a long essay' }] });
      await h.waitForUpdate((n) => h.updates.indexOf(n) >= from && n.update.sessionUpdate === 'agent_message_chunk');
      await h.connection.agent.notify(v2.methods.agent.session.cancel, { sessionId });
      assert.equal(await h.idleAfter(sessionId, from), 'cancelled');
      await clientSawCancel;
      assert.equal(fake.aborted, 1);
      assert.equal(text(h, sessionId, from), 'Working on it');
    });
  });

  test('a v2 client that does not offer language models is never asked, and the turn says why', { timeout: 120_000 }, async () => {
    const fake = fakeLm();
    await withAgent(fake, {}, async (h, sessionId) => {
      assert.equal((await prompt(h, sessionId, 'hello')).stop, 'end_turn');
      assert.match(text(h, sessionId), /does not offer them/);
      assert.equal(fake.listed, 0);
      assert.equal(fake.requests.length, 0);
    });
  });

  test('attack: a malformed chat answer is a clear failed turn, and the next turn still works', { timeout: 120_000 }, async () => {
    const fake = fakeLm();
    fake.rawAnswer = { parts: -1, usage: 'lots', estimated: 'yes' };
    await withAgent(fake, offered, async (h, sessionId) => {
      assert.equal((await prompt(h, sessionId, 'hello')).stop, 'end_turn');
      assert.match(text(h, sessionId), /cannot read/);
      fake.rawAnswer = undefined;
      fake.script.push(async ({ send }) => send([{ type: 'text', text: 'recovered' }]));
      const { stop, from } = await prompt(h, sessionId, 'again');
      assert.equal(stop, 'end_turn');
      assert.equal(text(h, sessionId, from), 'recovered');
    });
  });

  test('attack: parts tagged with another stream id, or malformed, are dropped', { timeout: 120_000 }, async () => {
    const fake = fakeLm();
    await withAgent(fake, offered, async (h, sessionId) => {
      fake.script.push(async ({ send }) => {
        await fake.notifyAgent!(LM_METHODS.parts, { streamId: 'not-a-stream', parts: [{ type: 'text', text: 'INJECTED' }] });
        await fake.notifyAgent!(LM_METHODS.parts, { streamId: fake.requests[0]!.streamId, parts: [{ type: 'shell', text: 'rm -rf' }] });
        await send([{ type: 'text', text: 'clean' }]);
      });
      assert.equal((await prompt(h, sessionId, 'hello')).stop, 'end_turn');
      assert.equal(text(h, sessionId), 'clean');
    });
  });

  test('attack: a capability offer that is not an offer (false, null) is not taken for one', { timeout: 120_000 }, async () => {
    for (const value of [false, null]) {
      const fake = fakeLm();
      await withAgent(fake, { _meta: { [LM_CAPABILITY_KEY]: value } }, async (h, sessionId) => {
        assert.equal((await prompt(h, sessionId, 'hello')).stop, 'end_turn');
        assert.match(text(h, sessionId), /does not offer them/);
        assert.equal(fake.listed + fake.requests.length, 0);
      });
    }
  });
});

describe('ACP v2 over stdio: the lent models (dist/agent.js acp --no-daemon)', () => {
  ensureAgentBundle();
  const root = tempDir('accord-v2-lm-stdio-');
  after(() => root.remove());

  test('a prompt answered by the v2 client\'s model, streamed through the child process', { timeout: 120_000 }, async () => {
    const fake = fakeLm();
    fake.script.push(async ({ send }) => {
      await send([{ type: 'text', text: 'Lent ' }]);
      await send([{ type: 'text', text: 'and returned.' }]);
    });
    const h = childV2(isolatedEnv({ ACCORD_MODEL: 'vscode-lm:copilot/gpt-4o', ACCORD_HOME: join(root.path, 'data'), ACCORD_SANDBOX: 'off' }, root.path), [], { configure: lmClient(fake) });
    try {
      await h.initialize(2, offered);
      const project = join(root.path, 'project');
      mkdirSync(project);
      const { sessionId } = await h.connection.agent.request(v2.methods.agent.session.new, { cwd: project });
      const { stop, from } = await prompt(h, sessionId, 'hello');
      assert.equal(stop, 'end_turn', JSON.stringify(h.updates.slice(from).map((n) => n.update)) + h.stderr.join(''));
      assert.equal(text(h, sessionId), 'Lent and returned.');
      assert.equal(fake.requests.length, 1);
    } finally {
      await h.close();
    }
    assert.doesNotMatch(h.stderr.join(''), /\n\s+at .*\(/, 'no stack traces on stderr');
  });
});
