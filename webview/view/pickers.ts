// Model / effort / mode pickers from the agent's session config options.
// Options of a type the panel does not know are left out (the spec says so).
import { html, nothing, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import { isRecord, str } from '../state/content';
import type { ViewContext } from './context';

interface Choice {
  value: string;
  name: string;
}

function choices(options: unknown): Choice[] {
  if (!Array.isArray(options)) return [];
  const out: Choice[] = [];
  for (const entry of options) {
    if (!isRecord(entry)) continue;
    if (Array.isArray(entry.options)) out.push(...choices(entry.options));
    else if (typeof entry.value === 'string') out.push({ value: entry.value, name: str(entry.name) ?? entry.value });
  }
  return out;
}

/** ACP select groups (e.g. models by provider), or undefined when the options are flat. */
function groupsOf(options: unknown): Array<{ name: string; choices: Choice[] }> | undefined {
  if (!Array.isArray(options) || !options.some((o) => isRecord(o) && Array.isArray(o.options))) return undefined;
  return options.filter(isRecord).map((o) => ({ name: str(o.name) ?? str(o.group) ?? '', choices: choices(Array.isArray(o.options) ? o.options : [o]) }));
}

const ICON: Record<string, string> = { model: 'sparkle', thought_level: 'lightbulb', mode: 'settings-gear' };

export function renderPickers(ctx: ViewContext): TemplateResult[] {
  const { store } = ctx;
  return store.configOptions.map((option) => {
    const icon = ICON[str(option.category) ?? ''] ?? 'settings';
    if (option.type === 'boolean') {
      const on = option.currentValue === true;
      return html`<vscode-button secondary class="picker-toggle ${on ? 'on' : ''}" title=${option.name}
        @click=${() => ctx.post({ type: 'setConfigOption', epoch: store.epoch, configId: option.id, value: !on })}>
        <span class="codicon codicon-${icon}" slot="content-before"></span>${option.name}</vscode-button>`;
    }
    if (option.type !== 'select') return html``;
    // '' is "nothing chosen yet" (a session with no model): a placeholder, not a choice.
    const list = choices(option.options).filter((c) => c.value !== '');
    const groups = groupsOf(option.options)?.map((g) => ({ ...g, choices: g.choices.filter((c) => c.value !== '') })).filter((g) => g.choices.length > 0);
    const current = str(option.currentValue);
    const optionOf = (c: Choice) => html`<option value=${c.value} title=${c.name} .selected=${live(c.value === current)}>${c.name}</option>`;
    // The selection is set as a live property: once the person has picked, a `selected` attribute no longer moves it,
    // and options are reused by position, so a reply listing the choices in another order showed the wrong one.
    // A narrow panel cuts the chosen name short: the tooltip always has all of it.
    const currentName = list.find((c) => c.value === current)?.name ?? current;
    return html`<label class="picker" title=${currentName !== undefined ? `${option.name}: ${currentName}` : option.name}>
      <span class="codicon codicon-${icon}"></span>
      <select aria-label=${option.name} data-config-id=${option.id}
        @change=${(e: Event) => ctx.post({ type: 'setConfigOption', epoch: store.epoch, configId: option.id, value: (e.target as HTMLSelectElement).value })}>
        ${current === '' ? html`<option value="" disabled .selected=${live(true)}>${choices(option.options).find((c) => c.value === '')?.name ?? 'Choose…'}</option>` : nothing}
        ${groups
          ? groups.map((g) => html`<optgroup label=${g.name}>${g.choices.map(optionOf)}</optgroup>`)
          : list.map(optionOf)}
        ${current !== undefined && current !== '' && !list.some((c) => c.value === current) ? html`<option selected value=${current}>${current}</option>` : nothing}
      </select>
    </label>`;
  });
}
