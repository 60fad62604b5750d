// VS Code's language models as the bundled agent's provider, in a real VS
// Code: a test extension (test/vscode/fakeLmProvider) registers a scripted
// chat model with `vscode.lm`; Accord lends it to the bundled agent over ACP
// (`_accord/lm/*`). A turn streams text and runs a tool call; a cancel reaches
// the provider's cancellation token.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AccordApi } from '../../extension/extension';
import { listLanguageModels } from '../../extension/languageModels/lmHandlers';
import { eventually } from './ui';
import { screenshot } from './screenshot';

interface FakeLmState {
  script: Array<Array<{ text?: string; toolCall?: { callId: string; name: string; input: object }; waitForCancel?: boolean }>>;
  requests: Array<{ model: string; messages: Array<{ role: string; content: Array<Record<string, any>> }>; tools: string[] }>;
  cancelled: number;
}

const ENV_KEYS = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'ACCORD_HOME', 'ACCORD_CONFIG_DIR', 'ACCORD_LOCAL_SERVERS'] as const;

describe('VS Code language models as a provider (vscode-lm)', function () {
  this.timeout(120_000);
  let api: AccordApi;
  let fake: FakeLmState;
  let home: string;
  let scratch: string;
  const saved = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
  const texts: string[] = [];
  let listening: { dispose(): void } | undefined;

  before(async () => {
    api = await vscode.extensions.getExtension<AccordApi>('accord-dev.accord')!.activate();
    fake = await vscode.extensions.getExtension<FakeLmState>('accord-test.fake-lm-provider')!.activate();
    home = mkdtempSync(path.join(tmpdir(), 'accord-lm-home-'));
    // No keys and no local servers: the only model is the one VS Code lends.
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.OPENAI_API_KEY;
    Object.assign(process.env, { ACCORD_HOME: home, ACCORD_CONFIG_DIR: home, ACCORD_LOCAL_SERVERS: '' });
    await vscode.workspace.getConfiguration('accord').update('model', 'vscode-lm:accord-fake/fake-coder', vscode.ConfigurationTarget.Global);
    await api.agent.restart();
    await eventually('the bundled agent to connect', () => api.agent.status.state === 'connected');
    scratch = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, `accord-lm-${process.pid}`);
    mkdirSync(scratch, { recursive: true });
    listening = api.client.router.onUpdate(({ update }) => {
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') texts.push(update.content.text);
    });
  });

  after(async () => {
    listening?.dispose();
    for (const key of ENV_KEYS) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
    await vscode.workspace.getConfiguration('accord').update('model', undefined, vscode.ConfigurationTarget.Global);
    await api.agent.restart();
    rmSync(scratch, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('the fake provider is visible through vscode.lm', async () => {
    const models = await listLanguageModels();
    assert.deepEqual(models.filter((m) => m.vendor === 'accord-fake').map((m) => [m.id, m.name, m.maxInputTokens]), [['fake-coder', 'Fake Coder', 32000], ['fake-mini', 'Fake Mini', 8000]]);
  });

  it('a turn streams text, runs the tool call the model asks for and feeds its result back', async () => {
    const file = path.join(scratch, 'notes.txt');
    writeFileSync(file, 'the password is swordfish\n');
    const relative = path.relative(vscode.workspace.workspaceFolders![0]!.uri.fsPath, file);
    const before = fake.requests.length;
    fake.script.push(
      [{ text: 'Let me ' }, { text: 'read it.' }, { toolCall: { callId: 'call-1', name: 'read_file', input: { path: relative } } }],
      [{ text: ' It says ' }, { text: 'swordfish.' }],
    );
    texts.length = 0;
    const session = await api.client.controller.newSession(api.agent);
    assert.ok(session, `no session: ${api.agent.status.message}`);
    const outcome = await api.client.controller.prompt(api.agent, { type: 'sendPrompt', epoch: session.epoch, text: 'What is in notes.txt?', mentions: [], images: [] });
    assert.equal(outcome?.stopReason, 'end_turn', outcome?.error);
    assert.equal(texts.join(''), 'Let me read it. It says swordfish.');
    const [first, second] = fake.requests.slice(before);
    assert.ok(first && second, `expected two model requests, got ${fake.requests.length - before}`);
    assert.equal(first.model, 'fake-coder');
    assert.ok(first.tools.includes('read_file'), `tools offered: ${first.tools.join(', ')}`);
    const parts = second.messages.flatMap((m) => m.content);
    assert.ok(parts.some((p) => p.type === 'tool_call' && p.callId === 'call-1' && p.name === 'read_file'), 'the call is in the history');
    const result = parts.find((p) => p.type === 'tool_result' && p.callId === 'call-1');
    assert.ok(result, 'the tool result went back to the model');
    assert.match(String(result.text), /swordfish/);
    // The gauge comes from the model's window (maxInputTokens), counted by its own tokenizer.
    await eventually('the context gauge', () => /\d+%/.test(api.client.statusBar.text));
    assert.match(api.client.statusBar.text, /~\d+%/, 'the gauge is marked as an estimate (VS Code reports no usage)');
    await vscode.commands.executeCommand('accord.chat.focus');
    for (const [name, theme] of [['dark', 'Default Dark Modern'], ['light', 'Default Light Modern']] as const) {
      await vscode.workspace.getConfiguration().update('workbench.colorTheme', theme, vscode.ConfigurationTarget.Global);
      await screenshot(`vscode-lm-turn-${name}`);
    }
    await vscode.workspace.getConfiguration().update('workbench.colorTheme', undefined, vscode.ConfigurationTarget.Global);
  });

  it('Stop cancels the model request in VS Code and ends the turn cancelled', async () => {
    fake.script.push([{ text: 'Thinking about it' }, { waitForCancel: true }, { text: 'never sent' }]);
    const cancelledBefore = fake.cancelled;
    texts.length = 0;
    const session = await api.client.controller.newSession(api.agent);
    assert.ok(session, `no session: ${api.agent.status.message}`);
    const turn = api.client.controller.prompt(api.agent, { type: 'sendPrompt', epoch: session.epoch, text: 'Write a long essay', mentions: [], images: [] });
    await eventually('the first streamed text', () => texts.join('').includes('Thinking about it'));
    await api.client.controller.cancelTurn();
    const outcome = await turn;
    assert.equal(outcome?.stopReason, 'cancelled', outcome?.error);
    await eventually("the provider's cancellation token", () => fake.cancelled > cancelledBefore);
    assert.ok(!texts.join('').includes('never sent'));
  });
});
