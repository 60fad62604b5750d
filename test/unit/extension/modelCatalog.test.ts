// What the setup card and the model picker before a session are built from:
// which providers have keys, the models VS Code lends, the local servers found.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { modelSetup, type CatalogInputs } from '../../../extension/setup/modelCatalog';
import { ModelSetup } from '../../../webview/protocol';

const none: CatalogInputs = { setting: '', storedKeys: {}, env: {}, vscodeModels: [], localServers: [] };
const copilot = [
  { id: 'gpt-4o', vendor: 'copilot', name: 'GPT-4o', family: 'gpt-4o', maxInputTokens: 64000 },
  { id: 'claude-sonnet-4', vendor: 'copilot', name: 'Claude Sonnet 4', family: 'claude' },
];

describe('model catalogue (setup card and picker before a session)', () => {
  test('nothing configured: the card is needed and offers what was found', () => {
    const setup = modelSetup({ ...none, vscodeModels: copilot, localServers: [{ baseUrl: 'http://127.0.0.1:11434/v1', models: ['qwen2.5-coder', 'llama3'] }] });
    assert.equal(setup.needsModel, true);
    assert.equal(setup.current, undefined);
    assert.equal(setup.vscodeModels, 2);
    assert.deepEqual(setup.localServers, [{ name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', models: 2 }]);
    assert.deepEqual(setup.groups.map((g) => g.name), ['GitHub Copilot', 'Ollama (127.0.0.1:11434)']);
    assert.deepEqual(setup.groups[0]!.models, [{ value: 'vscode-lm:copilot/gpt-4o', name: 'GPT-4o' }, { value: 'vscode-lm:copilot/claude-sonnet-4', name: 'Claude Sonnet 4' }]);
    assert.deepEqual(setup.groups[1]!.models.map((m) => m.value), ['openai-compatible:http://127.0.0.1:11434/v1#qwen2.5-coder', 'openai-compatible:http://127.0.0.1:11434/v1#llama3']);
  });

  test('a stored key or one in the environment configures its provider; its models are listed under its name', () => {
    const stored = modelSetup({ ...none, storedKeys: { OPENROUTER_API_KEY: 'k' } });
    assert.equal(stored.needsModel, false);
    assert.deepEqual(stored.groups.map((g) => g.name), ['OpenRouter']);
    assert.ok(stored.groups[0]!.models.some((m) => m.value === 'openrouter:anthropic/claude-sonnet-4.5'));
    const fromEnv = modelSetup({ ...none, env: { GEMINI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' } });
    assert.deepEqual(fromEnv.groups.map((g) => g.name), ['Anthropic', 'Google Gemini']);
  });

  test('a chosen model (setting, else ACCORD_MODEL) is current and no card is needed', () => {
    assert.equal(modelSetup({ ...none, setting: 'vscode-lm:copilot/gpt-4o' }).current, 'vscode-lm:copilot/gpt-4o');
    assert.equal(modelSetup({ ...none, setting: 'vscode-lm:copilot/gpt-4o' }).needsModel, false);
    assert.equal(modelSetup({ ...none, env: { ACCORD_MODEL: 'openai:gpt-5' } }).current, 'openai:gpt-5');
  });

  test('attack: a local server listing absurd model names cannot break or bloat the panel message', () => {
    const huge = 'x'.repeat(5000);
    const many = Array.from({ length: 2000 }, (_, i) => `m${i}`);
    const setup = modelSetup({ ...none, localServers: [{ baseUrl: 'http://127.0.0.1:1234/v1', models: [huge, '<img src=x onerror=alert(1)>', ...many] }] });
    const group = setup.groups[0]!;
    assert.equal(group.name, 'LM Studio (127.0.0.1:1234)');
    assert.ok(!group.models.some((m) => m.value.includes(huge)), 'an id too long to be real is left out, never cut into another id');
    assert.equal(group.models.length, 500, 'at most 500 models per group');
    assert.equal(group.models[0]!.name, '<img src=x onerror=alert(1)>', 'kept as text; the panel renders it as text');
    assert.ok(ModelSetup.safeParse(setup).success, 'the message passes the panel protocol validation');
  });
});
