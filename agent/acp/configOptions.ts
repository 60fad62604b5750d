// The session's config options: `model` (category model),
// `reasoning_effort` (category thought_level) and `mode` (category mode).
// Every change answers with the full set and is mirrored as
// `config_option_update`.
import { MODE_CONFIG_ID, MODES, modeOf, parseMode } from '../core/modes';
import type { ReasoningEffort, Session } from '../core/session';
import { selectValues, type SelectConfigOption, type SelectGroup } from '../core/updates';
import type { Env } from '../models/credentials';
import { parseModelId, modelLabel, providerLabel, vendorLabel } from '../models/modelId';
import { availableModelIds } from '../models/resolve';
import { localServerName } from '../models/catalog';
import type { ClientModelHost } from '../models/clientModel';

const efforts: Array<{ value: ReasoningEffort; name: string }> = [
  { value: 'off', name: 'Off' },
  { value: 'low', name: 'Low' },
  { value: 'medium', name: 'Medium' },
  { value: 'high', name: 'High' },
];

function label(id: string): string {
  try {
    return modelLabel(parseModelId(id));
  } catch {
    return id;
  }
}

/** The model option's value while a session has no model (ACP needs a current value). */
export const NO_MODEL = '';

/** The models grouped by who serves them: Anthropic, OpenAI, …, GitHub Copilot, each local server. */
function byProvider(ids: string[], names: ReadonlyMap<string, string>): SelectGroup[] {
  const groups = new Map<string, SelectGroup>();
  for (const id of ids) {
    let key = 'other';
    let name = 'Other';
    try {
      const parsed = parseModelId(id);
      key = parsed.provider === 'vscode-lm' ? `vscode-lm:${parsed.vendor}` : parsed.provider === 'openai-compatible' ? `local:${parsed.baseUrl}` : parsed.provider;
      name = parsed.provider === 'vscode-lm'
        ? vendorLabel(parsed.vendor ?? '')
        : parsed.provider === 'openai-compatible' ? `${localServerName(parsed.baseUrl!)} (${new URL(parsed.baseUrl!).host})` : providerLabel(parsed.provider);
    } catch {
      // an id the agent cannot parse (a stale setting) still shows, under Other
    }
    const group = groups.get(key) ?? { group: key, name, options: [] };
    // A lent model by the name VS Code gives it (its group names the vendor); others as "model (provider)".
    group.options.push({ value: id, name: names.get(id) ?? label(id) });
    groups.set(key, group);
  }
  return [...groups.values()];
}

export async function configOptionsFor(session: Session, env: Env, clientModels?: ClientModelHost): Promise<SelectConfigOption[]> {
  const options: SelectConfigOption[] = [];
  // A client that cannot answer in time (or refuses) costs its models, never the picker.
  const lent = clientModels ? await clientModels.list().catch(() => []) : [];
  const models = await availableModelIds(env, session.settings.model, lent);
  const names = new Map(lent.map((m) => [`vscode-lm:${m.vendor}/${m.id}`, m.name]));
  if (session.settings.model || models.length > 0) {
    options.push({
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      // A session that has no model yet offers the ones it could use, with "none" current until one is chosen.
      currentValue: session.settings.model ?? NO_MODEL,
      options: session.settings.model ? byProvider(models, names) : [{ group: 'none', name: 'No model yet', options: [{ value: NO_MODEL, name: 'Choose a model…' }] }, ...byProvider(models, names)],
    });
  }
  options.push({
    id: 'reasoning_effort',
    name: 'Reasoning effort',
    description: 'How much the model thinks before answering, where the model supports it.',
    category: 'thought_level',
    type: 'select',
    currentValue: session.settings.reasoningEffort,
    options: efforts,
  });
  options.push({
    id: MODE_CONFIG_ID,
    name: 'Mode',
    description: 'How much runs without asking. The project policy and its deny rules apply in every mode.',
    category: 'mode',
    type: 'select',
    currentValue: modeOf(session.settings),
    options: MODES.map(({ id, name, description }) => ({ value: id, name, description })),
  });
  return options;
}

export class ConfigValueError extends Error {}

/** Applies one change; throws ConfigValueError with a person-readable message for an unknown id or value. */
export async function applyConfigOption(session: Session, env: Env, configId: string, value: unknown, clientModels?: ClientModelHost): Promise<void> {
  const current = await configOptionsFor(session, env, clientModels);
  const option = current.find((o) => o.id === configId);
  if (!option) throw new ConfigValueError(`Unknown config option "${configId}". Known: ${current.map((o) => o.id).join(', ')}.`);
  const values = selectValues(option);
  const listed = values.map((o) => o.value).join(', ');
  if (typeof value === 'boolean') {
    throw new ConfigValueError(`The option "${configId}" is a choice, not an on/off switch: send one of its values as a string (${listed}); got ${value}.`);
  }
  if (configId === 'model' && value === NO_MODEL) throw new ConfigValueError('Choose one of the models; a session cannot go back to having none.');
  if (typeof value !== 'string' || !values.some((o) => o.value === value)) {
    throw new ConfigValueError(`${JSON.stringify(value)} is not a value of the option "${configId}". Choose one of: ${listed}.`);
  }
  if (configId === 'model') session.settings = { ...session.settings, model: value };
  else if (configId === MODE_CONFIG_ID) session.settings = { ...session.settings, mode: parseMode(value) };
  else session.settings = { ...session.settings, reasoningEffort: value as ReasoningEffort };
}

/** session/set_config_option's params, as Accord reads them: the value as a string, `{"value": string}`, or a boolean (refused by name). */
export interface ConfigOptionChange {
  sessionId: string;
  configId: string;
  value: string | boolean;
  _meta?: Record<string, unknown> | null;
}

/**
 * Reads session/set_config_option's params. Clients send the value as a
 * plain string (the spec) or wrapped as `{"value": "<string>"}` (the seeds'
 * clients); both mean the same. A boolean passes through so the refusal
 * can name the option; anything else is refused here, naming the option.
 */
export function readConfigOptionChange(params: unknown): ConfigOptionChange {
  const p = (params !== null && typeof params === 'object' ? params : {}) as Record<string, unknown>;
  if (typeof p.sessionId !== 'string' || p.sessionId === '') throw new ConfigValueError('session/set_config_option needs "sessionId" (a string).');
  if (typeof p.configId !== 'string' || p.configId === '') throw new ConfigValueError('session/set_config_option needs "configId" (a string).');
  const meta = p._meta !== null && typeof p._meta === 'object' && !Array.isArray(p._meta) ? (p._meta as Record<string, unknown>) : undefined;
  let value = p.value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const inner = (value as Record<string, unknown>).value;
    if (typeof inner === 'string' || typeof inner === 'boolean') value = inner;
  }
  if (typeof value !== 'string' && typeof value !== 'boolean') {
    throw new ConfigValueError(`The value for the option "${p.configId}" must be a string or {"value": "<string>"}; got ${JSON.stringify(value) ?? 'nothing'}.`);
  }
  return { sessionId: p.sessionId, configId: p.configId, value, ...(meta ? { _meta: meta } : {}) };
}
