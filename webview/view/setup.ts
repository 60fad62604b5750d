// First run: when the bundled agent has no model, the panel says so before
// the first prompt and offers the three ways to get one — the models VS Code
// already has (GitHub Copilot), an API key, or a local server it found.
// Before a session exists, the model picker lists every model by provider.
import { html, nothing, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import type { ModelSetup } from '../protocol';
import type { ViewContext } from './context';

function localLine(setup: ModelSetup): TemplateResult {
  const [first, ...others] = setup.localServers;
  if (!first) {
    return html`<div class="muted">No Ollama, LM Studio or llama.cpp server answered on its usual port (11434, 1234, 8080). Start one, and this card offers it.</div>`;
  }
  const more = others.length > 0 ? ` and ${others.length} more` : '';
  const what = first.name === 'Local server' ? 'a model server' : first.name;
  return html`<div class="muted">Found ${what} at <code>${first.baseUrl}</code> with ${first.models} ${first.models === 1 ? 'model' : 'models'}${more}.</div>`;
}

export function renderSetupCard(ctx: ViewContext, setup: ModelSetup): TemplateResult {
  const local = setup.localServers[0];
  const copilotNote = setup.vscodeModels > 0
    ? `${setup.vscodeModels} ${setup.vscodeModels === 1 ? 'model' : 'models'} available in VS Code. VS Code asks you once before Accord may use them.`
    : 'Uses the models VS Code has from GitHub Copilot or another provider. None is available yet: Accord helps you sign in.';
  return html`<section class="setup-card" aria-labelledby="setup-title">
    <div class="setup-head">
      <span class="codicon codicon-sparkle"></span>
      <h2 id="setup-title">Choose a model to start</h2>
    </div>
    <p class="setup-why">Accord's agent needs a language model to answer. Use one you already have; you can change it any time in the model picker below.</p>
    <div class="setup-option">
      <vscode-button class="setup-copilot" @click=${() => ctx.post({ type: 'setupAction', action: 'useVscodeModels' })}>
        <span class="codicon codicon-copilot" slot="content-before"></span>Use GitHub Copilot models
      </vscode-button>
      <div class="muted">${copilotNote}</div>
    </div>
    <div class="setup-option">
      <vscode-button secondary class="setup-key" @click=${() => ctx.post({ type: 'setupAction', action: 'setApiKey' })}>
        <span class="codicon codicon-key" slot="content-before"></span>Set an API key
      </vscode-button>
      <div class="muted">Anthropic, OpenAI, OpenRouter or Google Gemini. Stored in VS Code's secret storage, given only to the bundled agent.</div>
    </div>
    <div class="setup-option">
      <vscode-button secondary class="setup-local" ?disabled=${!local}
        @click=${() => local && ctx.post({ type: 'setupAction', action: 'useLocalModel', baseUrl: local.baseUrl })}>
        <span class="codicon codicon-server-environment" slot="content-before"></span>${local && local.name !== 'Local server' ? `Use a local model (${local.name})` : 'Use a local model'}
      </vscode-button>
      ${localLine(setup)}
    </div>
  </section>`;
}

/** The model picker before a session exists (a session's own picker comes from the agent's config options). */
export function renderModelPicker(ctx: ViewContext): TemplateResult | typeof nothing {
  const setup = ctx.store.setup;
  if (!setup || setup.groups.length === 0) return nothing;
  if (ctx.store.configOptions.some((o) => o.category === 'model')) return nothing;
  const current = setup.current;
  const known = setup.groups.some((g) => g.models.some((m) => m.value === current));
  const currentName = setup.groups.flatMap((g) => g.models).find((m) => m.value === current)?.name;
  return html`<label class="picker" title=${currentName ? `Model: ${currentName}` : 'Model'}>
    <span class="codicon codicon-sparkle"></span>
    <select aria-label="Model" data-config-id="model"
      @change=${(e: Event) => ctx.post({ type: 'pickModel', value: (e.target as HTMLSelectElement).value })}>
      ${current ? nothing : html`<option value="" disabled .selected=${live(true)}>Choose a model…</option>`}
      ${setup.groups.map((g) => html`<optgroup label=${g.name}>
        ${g.models.map((m) => html`<option value=${m.value} title=${m.name} .selected=${live(m.value === current)}>${m.name}</option>`)}
      </optgroup>`)}
      ${current && !known ? html`<option selected value=${current}>${current}</option>` : nothing}
    </select>
  </label>`;
}
