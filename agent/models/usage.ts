// Context gauge and cost after each model request. Prices and context windows
// come from @pydantic/genai-prices; a model it does not know gets no cost,
// never a guessed one.
import type { PriceCalculationResult } from '@pydantic/genai-prices';
import type { LanguageModelUsage } from 'ai';
import type { ModelId } from './modelId';

/** `usage_update._meta` key set when the counts are an estimate (the provider reported none). */
export const USAGE_ESTIMATED_META = 'accord/usageEstimated';

/** Used when the price data has no context window for the model (common for local models). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

export interface RequestUsage {
  /** Tokens now in the context window: the last request's input (cached included) plus its output. */
  used: number;
  size: number;
  /** USD for this request; undefined when the model is not in the price data. */
  cost: number | undefined;
}

// A model lent by VS Code is paid through the person's subscription (Copilot): no per-token price applies.
const pricingProvider: Record<ModelId['provider'], string | undefined> = {
  anthropic: 'anthropic', openai: 'openai', openrouter: 'openrouter', google: 'google', 'openai-compatible': undefined, 'vscode-lm': undefined,
};

/** `contextWindow`: what the provider itself says the window is, when it says (VS Code's maxInputTokens). */
export async function measureRequest(model: ModelId, usage: LanguageModelUsage, contextWindow?: number): Promise<RequestUsage> {
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  const providerId = pricingProvider[model.provider];
  let price: PriceCalculationResult = null;
  // A local or self-hosted server has no list price; matching its model name
  // against a cloud provider's would report a cost nobody pays.
  if (providerId) try {
    const { calcPrice } = await import('@pydantic/genai-prices'); // ~0.5 MB of price data, loaded on first use
    price = calcPrice(
      {
        input_tokens: input,
        cache_read_tokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
        cache_write_tokens: usage.inputTokenDetails?.cacheWriteTokens ?? 0,
        output_tokens: output,
      },
      model.model,
      providerId ? { providerId } : {},
    );
  } catch {
    price = null;
  }
  return {
    used: input + output,
    size: contextWindow ?? price?.model.context_window ?? DEFAULT_CONTEXT_WINDOW,
    cost: price ? price.total_price : undefined,
  };
}
