// Turns a `provider:model` id into an ai SDK model plus what the loop needs
// to know about it (provider options for reasoning, pricing identity).
// Provider packages load on first use, not at startup: `initialize` should
// not wait for code that only a prompt needs.
import type { LanguageModel } from 'ai';
import type { ReasoningEffort } from '../core/session';
import { apiKeyFor, baseUrlFor, type Env } from './credentials';
import { clientLanguageModel, type ClientModelHost } from './clientModel';
import type { LmModelInfo } from '../../protocol/accordMethods';
import { detectLocalServers } from './detect';
import { KEYED_PROVIDERS, PROVIDER_MODELS } from './catalog';
import { formatModelId, parseModelId, type ModelId } from './modelId';
import { observedFetch } from './requestSent';
import { leanChatModel } from './chat/chatModel';
import type { LanguageModelV3 } from '@ai-sdk/provider';

type ProviderOptions = Record<string, Record<string, any>>;

export interface ResolvedModel {
  id: string;
  parsed: ModelId;
  language: LanguageModel;
  /** Where requests go, for error messages. */
  endpoint: string;
  providerOptions(effort: ReasoningEffort): ProviderOptions | undefined;
  /** The context window the provider reports, when it does (overrides the price data's). */
  contextWindow?: number;
  /** True when usage is the client's estimate, not counted by the provider; the gauge says so. */
  estimatedUsage?: boolean;
}

export class MissingKeyError extends Error {}

const hostedCompatible = {
  openrouter: { name: 'OpenRouter', variable: 'OPENROUTER_API_KEY', baseURL: 'https://openrouter.ai/api/v1' },
  google: { name: 'Google Gemini', variable: 'GEMINI_API_KEY', baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai' },
} as const;



const thinkingBudget = { low: 2048, medium: 8192, high: 24576 } as const;
const isOpenAIReasoningModel = (model: string) => /^(o\d|gpt-5)/.test(model);

export const NO_CLIENT_MODELS_MESSAGE =
  'This session uses a language model that VS Code lends (e.g. GitHub Copilot), and this client does not offer them. Continue it in Accord for VS Code, or pick another model.';

/** `clientModels`: the connection's client's models (`_accord/lm/*`), when it offers them. */
export async function resolveModel(id: string, env: Env, clientModels?: ClientModelHost): Promise<ResolvedModel> {
  const parsed = parseModelId(id);
  const canonical = formatModelId(parsed);
  if (parsed.provider === 'vscode-lm') {
    if (!clientModels) throw new MissingKeyError(NO_CLIENT_MODELS_MESSAGE);
    const info = (await clientModels.list()).find((m) => m.vendor === parsed.vendor && m.id === parsed.model);
    if (!info) throw new MissingKeyError(`VS Code offers no model "${parsed.model}" from ${parsed.vendor} now. Sign in to its provider (for GitHub Copilot, the Accounts menu), or pick another model.`);
    return {
      id: canonical,
      parsed,
      language: clientLanguageModel(clientModels, info.vendor, info.id),
      endpoint: `VS Code's language model ${info.name}`,
      providerOptions: () => undefined,
      ...(info.maxInputTokens ? { contextWindow: info.maxInputTokens } : {}),
      estimatedUsage: true,
    };
  }
  if (parsed.provider === 'anthropic') {
    const apiKey = apiKeyFor(env, 'anthropic');
    if (!apiKey) throw new MissingKeyError(missingKeyMessage('Anthropic', 'ANTHROPIC_API_KEY', 'anthropic'));
    const baseURL = baseUrlFor(env, 'anthropic');
    const { createAnthropic } = await import('@ai-sdk/anthropic');
    const provider = createAnthropic({ apiKey, fetch: observedFetch, ...(baseURL ? { baseURL } : {}) });
    return {
      id: canonical,
      parsed,
      language: provider(parsed.model),
      endpoint: baseURL ?? 'https://api.anthropic.com/v1',
      providerOptions: (effort) =>
        effort === 'off' ? undefined : { anthropic: { thinking: { type: 'enabled', budgetTokens: thinkingBudget[effort] } } },
    };
  }
  if (parsed.provider === 'openai') {
    const apiKey = apiKeyFor(env, 'openai');
    if (!apiKey) throw new MissingKeyError(missingKeyMessage('OpenAI', 'OPENAI_API_KEY', 'openai'));
    const baseURL = baseUrlFor(env, 'openai');
    const { createOpenAI } = await import('@ai-sdk/openai');
    const provider = createOpenAI({ apiKey, fetch: observedFetch, ...(baseURL ? { baseURL } : {}) });
    return {
      id: canonical,
      parsed,
      language: provider.responses(parsed.model),
      endpoint: baseURL ?? 'https://api.openai.com/v1',
      // store:false: the history Accord keeps (and may persist) is complete on its own, rather than
      // references to items that live on OpenAI's servers for a limited time.
      providerOptions: (effort) =>
        effort === 'off' || !isOpenAIReasoningModel(parsed.model)
          ? { openai: { store: false } }
          : { openai: { store: false, reasoningEffort: effort, reasoningSummary: 'auto', include: ['reasoning.encrypted_content'] } },
    };
  }
  if (parsed.provider === 'openrouter' || parsed.provider === 'google') {
    // Both speak OpenAI's chat completions (Gemini at its OpenAI-compatible endpoint), so one model serves them.
    const hosted = hostedCompatible[parsed.provider];
    const apiKey = apiKeyFor(env, parsed.provider);
    if (!apiKey) throw new MissingKeyError(missingKeyMessage(hosted.name, hosted.variable, parsed.provider));
    const baseURL = baseUrlFor(env, parsed.provider) ?? hosted.baseURL;
    const language = chatModel(parsed.model, { name: parsed.provider, baseURL, apiKey });
    return { id: canonical, parsed, language, endpoint: baseURL, providerOptions: () => undefined };
  }
  const baseURL = parsed.baseUrl!;
  const apiKey = apiKeyFor(env, 'openai-compatible');
  return {
    id: canonical,
    parsed,
    language: chatModel(parsed.model, { name: 'local', baseURL, ...(apiKey ? { apiKey } : {}) }),
    endpoint: baseURL,
    providerOptions: () => undefined,
  };
}

/**
 * OpenAI's chat completions, for every server that speaks them: our lean
 * model (agent/models/chat/), which hands the calls it leaves to the SDK to
 * @ai-sdk/openai-compatible's model with the same settings, loaded then.
 */
function chatModel(model: string, settings: { name: string; baseURL: string; apiKey?: string }): LanguageModelV3 {
  return leanChatModel(model, {
    ...settings,
    includeUsage: true,
    fetch: observedFetch,
    sdkModel: async () => {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({ ...settings, includeUsage: true, fetch: observedFetch }).chatModel(model);
    },
  });
}

function missingKeyMessage(name: string, variable: string, provider: string): string {
  return `No ${name} API key is configured. Set ${variable} in the environment Accord starts from, run \`accord login ${provider}\`, or use the command "Accord: Set API Key" in VS Code.`;
}

/** The model a new session starts with: ACCORD_MODEL, else a provider with a key, else a detected local server. */
export async function defaultModelId(env: Env): Promise<string | undefined> {
  if (env.ACCORD_MODEL) return env.ACCORD_MODEL;
  for (const provider of KEYED_PROVIDERS) if (apiKeyFor(env, provider)) return `${provider}:${PROVIDER_MODELS[provider][0]}`;
  const [server] = await detectLocalServers(env);
  const model = server?.models[0];
  return server && model ? formatModelId({ provider: 'openai-compatible', baseUrl: server.baseUrl, model }) : undefined;
}

/** Models worth offering in the picker: the configured one, each keyed provider's, the client's (VS Code), detected local models. */
export async function availableModelIds(env: Env, current: string | undefined, lent: readonly LmModelInfo[] = []): Promise<string[]> {
  const ids = new Set<string>();
  if (current) ids.add(current);
  if (env.ACCORD_MODEL) ids.add(env.ACCORD_MODEL);
  for (const provider of KEYED_PROVIDERS) if (apiKeyFor(env, provider)) for (const m of PROVIDER_MODELS[provider]) ids.add(`${provider}:${m}`);
  for (const m of lent) ids.add(formatModelId({ provider: 'vscode-lm', vendor: m.vendor, model: m.id }));
  // The local servers found are offered beside the rest: the picker lists every model Accord could use.
  {
    for (const server of await detectLocalServers(env)) {
      for (const model of server.models) ids.add(formatModelId({ provider: 'openai-compatible', baseUrl: server.baseUrl, model }));
    }
  }
  return [...ids];
}
