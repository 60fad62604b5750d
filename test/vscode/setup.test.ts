// First run in a real VS Code: with no model configured the panel shows the
// setup card before the first prompt (Copilot models, an API key, the local
// server it found), and the model picker lists every model by provider before
// a session has one; picking persists `accord.model`. Screenshots in Dark and
// Light go to test-results/.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AccordApi } from '../../extension/extension';
import { startFakeModelServer, type FakeModelServer } from '../fakeModelServer/index';
import { screenshot } from './screenshot';
import { eventually, ui } from './ui';

const ENV_KEYS = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENROUTER_API_KEY', 'GEMINI_API_KEY', 'ACCORD_MODEL', 'ACCORD_HOME', 'ACCORD_CONFIG_DIR', 'ACCORD_LOCAL_SERVERS'] as const;
const THEMES = [['dark', 'Default Dark Modern'], ['light', 'Default Light Modern']] as const;

interface PanelReport {
  panel: { setup: string; transcript: string; modelPicker: Array<{ group: string; options: Array<{ value: string; text: string; selected: boolean }> }> };
}

async function inspect(name: string): Promise<PanelReport> {
  const file = path.join(vscode.extensions.getExtension('accord-dev.accord')!.extensionPath, 'test-results', `${name}.json`);
  rmSync(file, { force: true });
  ui({ inspect: name });
  await eventually(`the report ${name}`, () => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as PanelReport;
    } catch {
      return undefined;
    }
  });
  return JSON.parse(readFileSync(file, 'utf8')) as PanelReport;
}

/** Inspects until `ready` holds (the panel renders on the next frame after a message). */
async function panelWhen(name: string, ready: (r: PanelReport) => boolean): Promise<PanelReport> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const report = await inspect(name);
    if (ready(report) || Date.now() > deadline) return report;
  }
}

describe('first run: the setup card and the model picker before a session', function () {
  this.timeout(180_000);
  let api: AccordApi;
  let server: FakeModelServer;
  let home: string;
  const saved = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
  const config = () => vscode.workspace.getConfiguration();

  before(async () => {
    api = await vscode.extensions.getExtension<AccordApi>('accord-dev.accord')!.activate();
    server = await startFakeModelServer();
    home = mkdtempSync(path.join(tmpdir(), 'accord-setup-home-'));
    for (const key of ENV_KEYS) delete process.env[key];
    // No key, no model; the fake model server stands in for a local Ollama (its /v1/models lists one model).
    Object.assign(process.env, { ACCORD_HOME: home, ACCORD_CONFIG_DIR: home, ACCORD_LOCAL_SERVERS: server.baseUrl });
    await config().update('accord.model', undefined, vscode.ConfigurationTarget.Global);
    await api.agent.restart();
    await eventually('the bundled agent to connect', () => api.agent.status.state === 'connected');
    // An empty session: the card shows before its first prompt.
    const session = await api.client.controller.newSession(api.agent);
    assert.ok(session, `no session: ${api.agent.status.message}`);
    await vscode.commands.executeCommand('accord.chat.focus');
    await api.client.setup.refresh(true);
  });

  after(async () => {
    await config().update('workbench.colorTheme', undefined, vscode.ConfigurationTarget.Global);
    await config().update('accord.model', undefined, vscode.ConfigurationTarget.Global);
    for (const key of ENV_KEYS) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
    await api.agent.restart();
    await server.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('with no model, the panel offers Copilot models, an API key and the local server it found, before the first prompt', async () => {
    const report = await panelWhen('setup-card', (r) => r.panel.setup.includes('Choose a model'));
    const card = report.panel.setup;
    assert.match(card, /Choose a model to start/);
    assert.match(card, /Use GitHub Copilot models/);
    assert.match(card, /2 models available in VS Code/, 'the fake provider\'s two models are counted');
    assert.match(card, /Set an API key/);
    assert.match(card, /Anthropic, OpenAI, OpenRouter or Google Gemini/);
    assert.match(card, /Use a local model/);
    assert.ok(card.includes(server.baseUrl), `the card names the server it found: ${card}`);
    for (const [name, theme] of THEMES) {
      await config().update('workbench.colorTheme', theme, vscode.ConfigurationTarget.Global);
      await screenshot(`setup-card-${name}`);
    }
  });

  it('the model picker lists every model by provider, and picking one persists accord.model', async () => {
    const report = await panelWhen('model-picker', (r) => r.panel.modelPicker.length >= 2);
    const groups = report.panel.modelPicker.map((g) => g.group);
    assert.ok(groups.includes('accord-fake via VS Code'), `groups: ${groups.join(', ')}`);
    assert.ok(groups.some((g) => g.startsWith('Local server')), `groups: ${groups.join(', ')}`);
    const lent = report.panel.modelPicker.find((g) => g.group === 'accord-fake via VS Code')!;
    assert.deepEqual(lent.options.map((o) => [o.value, o.text]), [['vscode-lm:accord-fake/fake-coder', 'Fake Coder'], ['vscode-lm:accord-fake/fake-mini', 'Fake Mini']]);
    const local = report.panel.modelPicker.find((g) => g.group.startsWith('Local server'))!;
    assert.deepEqual(local.options.map((o) => o.value), [`openai-compatible:${server.baseUrl}#fake-local`]);

    ui({ webviewSelect: { selector: 'select[data-config-id="model"]', value: 'vscode-lm:accord-fake/fake-mini' } });
    await eventually('accord.model to be the picked model', () => config().get<string>('accord.model') === 'vscode-lm:accord-fake/fake-mini');
    const inspected = config().inspect<string>('accord.model');
    assert.equal(inspected?.globalValue, 'vscode-lm:accord-fake/fake-mini', 'the pick is saved in the user settings');
    const after = await panelWhen('model-picker-after', (r) => !r.panel.setup.includes('Choose a model'));
    assert.equal(after.panel.setup, '', 'with a model chosen the card is gone');
    const selected = after.panel.modelPicker.flatMap((g) => g.options).find((o) => o.selected);
    assert.equal(selected?.value, 'vscode-lm:accord-fake/fake-mini');
    for (const [name, theme] of THEMES) {
      await config().update('workbench.colorTheme', theme, vscode.ConfigurationTarget.Global);
      await screenshot(`model-picker-${name}`);
    }
  });
});
