// Retries of a model request, as the ai SDK's streamText retries them: only
// errors the provider marks retryable, exponential backoff from 2 s, a
// retry-after / retry-after-ms header honoured when it asks for less than a
// minute (or less than the backoff), and an abort ends the wait at once.
import { AISDKError, APICallError } from '@ai-sdk/provider';
import { retryWithExponentialBackoff } from '@ai-sdk/provider-utils';

const RETRY_ERROR = 'AI_RetryError';
const marker = `vercel.ai.error.${RETRY_ERROR}`;
const markerSymbol = Symbol.for(marker);

/**
 * The ai SDK's RetryError, marked the same way, so its `isInstance` (and
 * describeModelError) recognise errors from before and after the switch.
 */
export class RetryError extends AISDKError {
  private readonly [markerSymbol] = true;
  readonly lastError: unknown;

  constructor(message: string, readonly reason: 'maxRetriesExceeded' | 'errorNotRetryable' | 'abort', readonly errors: unknown[]) {
    super({ name: RETRY_ERROR, message });
    this.lastError = errors.at(-1);
  }

  static override isInstance(error: unknown): error is RetryError {
    return AISDKError.hasMarker(error, marker);
  }
}

/** The wait before the next try: the server's retry-after when reasonable, else the backoff. */
export function retryDelayMs(error: unknown, backoffMs: number, now: () => number = Date.now): number {
  const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
  if (!headers) return backoffMs;
  let ms: number | undefined;
  const afterMs = headers['retry-after-ms'];
  if (afterMs) {
    const parsed = parseFloat(afterMs);
    if (!Number.isNaN(parsed)) ms = parsed;
  }
  const after = headers['retry-after'];
  if (after && ms === undefined) {
    const seconds = parseFloat(after);
    ms = Number.isNaN(seconds) ? Date.parse(after) - now() : seconds * 1000;
  }
  return ms != null && !Number.isNaN(ms) && ms >= 0 && (ms < 60_000 || ms < backoffMs) ? ms : backoffMs;
}

/** Runs `request`, retrying it up to `maxRetries` times; with 0, its own error comes back unwrapped. */
export function withRetries<T>(request: () => PromiseLike<T>, maxRetries: number, signal?: AbortSignal): PromiseLike<T> {
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new RangeError(`maxRetries must be an integer >= 0 (got ${maxRetries})`);
  return retryWithExponentialBackoff({
    maxRetries,
    ...(signal ? { abortSignal: signal } : {}),
    shouldRetry: (error) => APICallError.isInstance(error) && error.isRetryable === true,
    getDelayInMs: ({ error, exponentialBackoffDelay }) => retryDelayMs(error, exponentialBackoffDelay),
    createRetryError: ({ message, reason, errors }) => new RetryError(message, reason, errors),
  })(request);
}
