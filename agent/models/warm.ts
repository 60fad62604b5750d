// Readies the model before the first prompt: session/new loads the provider's
// code and opens a keep-alive connection to its endpoint
// while the person is still typing, so the prompt pays neither (module load,
// DNS, TCP, TLS).
import { resolveModel } from './resolve';
import { modelFetch } from './http/modelFetch';
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
    const model = await resolveModel(id, env);
    const url = new URL(`${model.endpoint.replace(/\/+$/, '')}/models`);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
    // modelFetch, as the providers' requests: its keep-alive pool is the one the first prompt takes a connection from.
    const request = modelFetch(url, { method: 'GET', signal: AbortSignal.timeout(WARM_TIMEOUT_MS) });
    request.catch(() => undefined); // handled below; a refusal must not count as unhandled meanwhile
    const response = await request;
    // Read to the end (bounded): only a finished response leaves its connection in the pool.
    await response.arrayBuffer();
  })().catch(() => undefined);
}
