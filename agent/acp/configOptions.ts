// The session's config options: `model` (category model) and
// `reasoning_effort` (category thought_level). Every change answers with the
// full set and is mirrored as `config_option_update`.
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
  return options;
}

export class ConfigValueError extends Error {}

/** Applies one change; throws ConfigValueError with a person-readable message for an unknown id or value. */
export async function applyConfigOption(session: Session, env: Env, configId: string, value: unknown, clientModels?: ClientModelHost): Promise<void> {
  const current = await configOptionsFor(session, env, clientModels);
  const option = current.find((o) => o.id === configId);
  if (!option) throw new ConfigValueError(`Unknown config option "${configId}". Known: ${current.map((o) => o.id).join(', ')}.`);
  const values = selectValues(option);
  if (configId === 'model' && value === NO_MODEL) throw new ConfigValueError('Choose one of the models; a session cannot go back to having none.');
  if (typeof value !== 'string' || !values.some((o) => o.value === value)) {
    throw new ConfigValueError(`"${String(value)}" is not a value of ${configId}. Choose one of: ${values.map((o) => o.value).join(', ')}.`);
  }
  if (configId === 'model') session.settings = { ...session.settings, model: value };
  else session.settings = { ...session.settings, reasoningEffort: value as ReasoningEffort };
}
