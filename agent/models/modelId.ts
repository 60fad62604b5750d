// `provider:model` ids: `anthropic:claude-sonnet-4-5`, `openai:gpt-5`,
// `openai-compatible:http://127.0.0.1:11434/v1#qwen2.5-coder`.

export type ProviderName = 'anthropic' | 'openai' | 'openai-compatible';

export interface ModelId {
  provider: ProviderName;
  model: string;
  /** Only for openai-compatible: the server's base URL (with /v1). */
  baseUrl?: string;
}

const providers: readonly ProviderName[] = ['anthropic', 'openai', 'openai-compatible'];

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
  return id.provider === 'openai-compatible' ? `${id.provider}:${id.baseUrl}#${id.model}` : `${id.provider}:${id.model}`;
}

/** A short label for pickers. */
export function modelLabel(id: ModelId): string {
  if (id.provider === 'openai-compatible') return `${id.model} (${id.baseUrl ? new URL(id.baseUrl).host : 'local'})`;
  return `${id.model} (${id.provider === 'anthropic' ? 'Anthropic' : 'OpenAI'})`;
}
