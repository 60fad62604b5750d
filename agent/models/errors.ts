// Provider failures as sentences a person can act on. The turn ends with this
// text in the conversation; no stack trace ever reaches the client.
import { MissingKeyError } from './resolve';
import { ModelIdError } from './modelId';
import { BODY_LIMIT, BrokenBodyError, UnendedLineError } from './http/modelResponse';
import { APICallError } from '@ai-sdk/provider';
import { RetryError } from './retry';


export class StalledStreamError extends Error {
  constructor(readonly idleMs: number) {
    const idle = idleMs >= 1000 ? `${Math.round(idleMs / 1000)} s` : `${idleMs} ms`;
    super(`The model server stopped sending for ${idle}, so Accord dropped the request.`);
  }
}

function inCauses(error: unknown, found: (error: unknown) => boolean): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++, current = (current as { cause?: unknown }).cause) if (found(current)) return true;
  return false;
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** `modelId` and `endpoint` name what failed, so the message says what to fix. */
export async function describeModelError(error: unknown, modelId: string, endpoint: string): Promise<string> {
  if (error instanceof MissingKeyError || error instanceof ModelIdError) return error.message;
  if (error instanceof StalledStreamError) return `${error.message} Check the server at ${endpoint}, then send your message again.`;
  const retried = RetryError.isInstance(error) ? ` (tried ${error.errors.length} times)` : '';
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (inCauses(cause, (e) => e instanceof UnendedLineError)) {
    return `The model server at ${endpoint} sent more than ${BODY_LIMIT / 1024 / 1024} MB without a line break, so Accord stopped reading its answer. Send your message again; if it keeps happening, check the server.`;
  }
  if (inCauses(cause, (e) => e instanceof BrokenBodyError)) {
    return `The model server at ${endpoint} closed the connection in the middle of its answer, so the turn stopped there. Send your message again to continue.`;
  }
  const code = causeCode(cause);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ECONNRESET') {
    return `Could not reach the model server at ${endpoint} (${code})${retried}. Check that it is running and that the base URL is right, or choose another model.`;
  }
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    const detail = providerMessage(cause.responseBody);
    const suffix = detail ? ` The provider said: "${detail}"` : '';
    if (status === 401 || status === 403) {
      return `The provider rejected the API key for ${modelId} (HTTP ${status}). Set a valid key (environment variable, \`accord login\`, or "Accord: Set API Key" in VS Code) and try again.${suffix}`;
    }
    if (status === 404) return `The provider does not know the model ${modelId} (HTTP 404). Choose another model.${suffix}`;
    if (status === 429) {
      return `The provider is rate-limiting requests for ${modelId} (HTTP 429)${retried}. Wait a moment and try again, or check your plan's limits.${suffix}`;
    }
    if (status !== undefined && status >= 500) {
      return `The provider had a server error for ${modelId} (HTTP ${status})${retried}. Try again shortly.${suffix}`;
    }
    if (status !== undefined) return `The provider refused the request for ${modelId} (HTTP ${status}).${suffix}`;
  }
  const name = (cause as { name?: unknown })?.name;
  if (name === 'AI_JSONParseError' || name === 'AI_TypeValidationError') {
    return `The model server at ${endpoint} sent a response Accord could not read, so the turn stopped. Try again; if it keeps happening, the server may not be fully OpenAI/Anthropic compatible.`;
  }
  const message = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
  return `The request to ${modelId} failed: ${message}`;
}

function providerMessage(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message ?? parsed.message;
    return typeof message === 'string' ? message.slice(0, 300) : undefined;
  } catch {
    return body.slice(0, 200);
  }
}
