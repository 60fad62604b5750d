// `provider:model` ids: `anthropic:claude-sonnet-4-5`, `openai:gpt-5`,
// `openai-compatible:http://127.0.0.1:11434/v1#qwen2.5-coder`,
// `vscode-lm:copilot/gpt-4o` (a model VS Code lends through the client: vendor/id).

export type ProviderName = 'anthropic' | 'openai' | 'openrouter' | 'google' | 'openai-compatible' | 'vscode-lm';

export interface ModelId {
  provider: ProviderName;
  model: string;
  /** Only for openai-compatible: the server's base URL (with /v1). */
  baseUrl?: string;
  /** Only for vscode-lm: the VS Code language model vendor (e.g. copilot). */
  vendor?: string;
}

const providers: readonly ProviderName[] = ['anthropic', 'openai', 'openrouter', 'google', 'openai-compatible', 'vscode-lm'];

export class ModelIdError extends Error {}

export function parseModelId(id: string): ModelId {
  const colon = id.indexOf(':');
  const provider = id.slice(0, colon) as ProviderName;
  const rest = id.slice(colon + 1);
  if (colon < 0 || !providers.includes(provider) || !rest) {
    throw new ModelIdError(
      `"${id}" is not a model id Accord understands. Use provider:model, e.g. anthropic:claude-sonnet-4-5, openai:gpt-5 or openai-compatible:http://127.0.0.1:11434/v1#qwen2.5-coder.`,
    );
  }
  if (provider === 'vscode-lm') {
    const slash = rest.indexOf('/');
    if (slash <= 0 || slash === rest.length - 1) throw new ModelIdError(`"${id}" needs a VS Code model vendor and id: vscode-lm:vendor/model, e.g. vscode-lm:copilot/gpt-4o.`);
    return { provider, vendor: rest.slice(0, slash), model: rest.slice(slash + 1) };
  }
  if (provider !== 'openai-compatible') return { provider, model: rest };
  const hash = rest.lastIndexOf('#');
  const baseUrl = rest.slice(0, hash);
  const model = rest.slice(hash + 1);
  if (hash < 0 || !/^https?:\/\//.test(baseUrl) || !model) {
    throw new ModelIdError(`"${id}" needs a base URL and a model name: openai-compatible:http://host:port/v1#model-name.`);
  }
  return { provider, model, baseUrl };
}

export function formatModelId(id: ModelId): string {
  if (id.provider === 'vscode-lm') return `${id.provider}:${id.vendor}/${id.model}`;
  return id.provider === 'openai-compatible' ? `${id.provider}:${id.baseUrl}#${id.model}` : `${id.provider}:${id.model}`;
}

/** A short label for pickers. */
export function modelLabel(id: ModelId): string {
  if (id.provider === 'openai-compatible') return `${id.model} (${id.baseUrl ? new URL(id.baseUrl).host : 'local'})`;
  if (id.provider === 'vscode-lm') return `${id.model} (${vendorLabel(id.vendor ?? '')})`;
  return `${id.model} (${providerLabel(id.provider)})`;
}

/** How a VS Code language model vendor is named in pickers. */
export function vendorLabel(vendor: string): string {
  return vendor === 'copilot' ? 'GitHub Copilot' : `${vendor} via VS Code`;
}

/** How a provider is named in pickers and messages. */
export function providerLabel(provider: ProviderName): string {
  const labels: Record<ProviderName, string> = {
    anthropic: 'Anthropic', openai: 'OpenAI', openrouter: 'OpenRouter', google: 'Google Gemini', 'openai-compatible': 'Local server', 'vscode-lm': 'VS Code',
  };
  return labels[provider];
}
