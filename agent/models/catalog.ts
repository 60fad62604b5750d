// What Accord knows about providers without asking them: which models each
// keyed provider offers in the picker, the variables that hold their keys,
// and what the usual local servers are called. Import-free, so the extension
// can list models before the agent runs (its model picker and setup card).

/** Providers the agent reaches with an API key, in the order a default is chosen. */
export const KEYED_PROVIDERS = ['anthropic', 'openai', 'openrouter', 'google'] as const;
export type KeyedProvider = (typeof KEYED_PROVIDERS)[number];

/** Each keyed provider's models in the picker; the first is the default when it is the only key. */
export const PROVIDER_MODELS: Record<KeyedProvider, readonly string[]> = {
  anthropic: ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5'],
  openai: ['gpt-5', 'gpt-5-mini'],
  openrouter: ['anthropic/claude-sonnet-4.5', 'openai/gpt-5', 'google/gemini-2.5-pro', 'qwen/qwen3-coder'],
  google: ['gemini-2.5-pro', 'gemini-2.5-flash'],
};

/** The variable VS Code's "Set API Key" stores each key under (the first the agent reads). */
export const PROVIDER_KEY_ENV: Record<KeyedProvider, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  openrouter: 'OPENROUTER_API_KEY',
  google: 'GEMINI_API_KEY',
};

export const PROVIDER_LABELS: Record<KeyedProvider, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  openrouter: 'OpenRouter',
  google: 'Google Gemini',
};

/** The usual local OpenAI-compatible servers, by their default port. */
export const LOCAL_SERVER_NAMES: Record<string, string> = { '11434': 'Ollama', '1234': 'LM Studio', '8080': 'llama.cpp' };

/** "Ollama", "LM Studio", "llama.cpp" by the default port, else "Local server". */
export function localServerName(baseUrl: string): string {
  try {
    return LOCAL_SERVER_NAMES[new URL(baseUrl).port] ?? 'Local server';
  } catch {
    return 'Local server';
  }
}
