// Readies the model before the first prompt: session/new loads the provider's
// code and opens a keep-alive connection to its endpoint while the person is
// still typing, so the prompt pays neither (module load, DNS, TCP, TLS).
import { resolveModel } from './resolve';
import type { Env } from './credentials';

const WARM_TIMEOUT_MS = 10_000;

/**
 * Fire and forget; never throws. The request is a GET of `<endpoint>/models`
 * without any key: it costs no tokens and tells the provider nothing but that
 * a connection was opened. `ACCORD_WARM_MODEL=off` turns it off.
 */
export function warmModel(id: string | undefined, env: Env): void {
  if (!id || env.ACCORD_WARM_MODEL === 'off') return;
  void (async () => {
    // After the current request's response: loading the provider's code must not delay session/new.
    await new Promise((resolve) => setImmediate(resolve));
    // The ai SDK's streaming code is loaded on the first prompt (not at start): load it now instead.
    await import('ai');
    const model = await resolveModel(id, env);
    const url = new URL(`${model.endpoint.replace(/\/+$/, '')}/models`);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
    const response = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(WARM_TIMEOUT_MS) });
    // Read to the end: only a finished response leaves its connection in the pool.
    await response.arrayBuffer();
  })().catch(() => undefined);
}
