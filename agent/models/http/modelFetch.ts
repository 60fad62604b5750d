// `fetch` for the model providers, on node:http / node:https. Node's own
// fetch is undici, which the first request loads and compiles with what it
// needs (http2, tls, zlib, llhttp's WebAssembly, crypto.getHashes()): ~55 ms
// of the agent's main thread in the window between a prompt and its first
// chunk, and several MB of heap. The providers use little of fetch: a POST
// (or the warm-up's GET) with string headers and a string body, and a
// response read as a stream or, for errors, as text.
//
// What it keeps of fetch: certificates verified (node:https defaults),
// pooled keep-alive connections (one agent per scheme, which pools per
// origin), an AbortSignal that ends the request or its body with the
// signal's reason, network failures as `TypeError('fetch failed', {cause})`
// (the AI SDK retries those), undici's 300 s idle timeout. Redirects: at most
// MAX_REDIRECTS, within the same origin only (a credential header must not
// follow one elsewhere); any other 3xx is the provider's to report. Like
// Node 20's fetch, it ignores HTTP(S)_PROXY.
import type * as Http from 'node:http';
import { ModelResponse } from './modelResponse';

export const MAX_REDIRECTS = 5;
/** undici's headersTimeout and bodyTimeout: a connection silent this long is given up. */
const IDLE_TIMEOUT_MS = 300_000;

export type ModelHeaders = Record<string, string> | Array<[string, string]> | Iterable<[string, string]>;

export interface ModelRequestInit {
  method?: string;
  headers?: ModelHeaders;
  body?: string | Uint8Array | ArrayBuffer | null;
  signal?: AbortSignal | null;
  redirect?: 'follow' | 'manual' | 'error';
}

interface Transport {
  request: typeof Http.request;
  agent: Http.Agent;
}

const transports = new Map<string, Transport>();

/** node:https (and with it tls) loads only for an https endpoint; a local model needs neither. */
function transportFor(url: URL): Transport {
  let transport = transports.get(url.protocol);
  if (!transport) {
    if (url.protocol === 'http:') {
      const http = require('node:http') as typeof import('node:http');
      transport = { request: http.request, agent: new http.Agent({ keepAlive: true, scheduling: 'lifo' }) };
    } else if (url.protocol === 'https:') {
      const https = require('node:https') as typeof import('node:https');
      transport = { request: https.request, agent: new https.Agent({ keepAlive: true, scheduling: 'lifo' }) };
    } else {
      throw new TypeError(`fetch failed`, { cause: new Error(`A model endpoint must be http: or https:, not ${url.protocol}`) });
    }
    transports.set(url.protocol, transport);
  }
  return transport;
}

/** Kept-alive connections waiting in the pools (for tests of the warm-up: the first prompt takes one of these). */
export function idleModelConnections(): number {
  let idle = 0;
  for (const { agent } of transports.values()) for (const sockets of Object.values(agent.freeSockets)) idle += sockets?.length ?? 0;
  return idle;
}

export async function modelFetch(input: string | URL, init: ModelRequestInit = {}): Promise<ModelResponse> {
  init.signal?.throwIfAborted();
  if (typeof input !== 'string' && !(input instanceof URL)) throw new TypeError('modelFetch takes a URL (string or URL), not a Request');
  let url = new URL(input);
  let method = (init.method ?? 'GET').toUpperCase();
  const headers = headerRecord(init.headers);
  let body = bodyBytes(init.body);
  for (let hop = 0; ; hop++) {
    const response = await send(url, method, headers, body, init.signal ?? undefined, hop > 0);
    const location = isRedirect(response.status) ? response.headers.get('location') : null;
    if (location === null || init.redirect === 'manual') return response;
    if (init.redirect === 'error') {
      await response.body.cancel();
      throw new TypeError('fetch failed', { cause: new Error(`unexpected redirect to ${location}`) });
    }
    const next = new URL(location, url);
    if (next.origin !== url.origin || hop >= MAX_REDIRECTS) return response;
    // Nothing of this response is read: its connection closes.
    await response.body.cancel();
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) delete headers[name];
    }
    url = next;
  }
}

const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

/** Lower-case names, values trimmed of HTTP whitespace (as `Headers` does); `accept` as fetch sends it. */
function headerRecord(headers: ModelHeaders | undefined): Record<string, string> {
  const record: Record<string, string> = { accept: '*/*' };
  const entries = headers === undefined ? [] : Symbol.iterator in headers ? headers : Object.entries(headers);
  for (const [name, value] of entries as Iterable<[string, string]>) {
    if (value === undefined || value === null) continue;
    record[String(name).toLowerCase()] = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  }
  return record;
}

function bodyBytes(body: ModelRequestInit['body']): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError(`modelFetch sends a string or bytes, not ${Object.prototype.toString.call(body)}`);
}

function send(url: URL, method: string, headers: Record<string, string>, body: Uint8Array | undefined, signal: AbortSignal | undefined, redirected: boolean, retry = true): Promise<ModelResponse> {
  return new Promise((resolve, reject) => {
    // Aborted between hops (a redirect, a retry): an abort listener added now would never run.
    if (signal?.aborted) return reject(signal.reason);
    const { request, agent } = transportFor(url);
    let req: Http.ClientRequest;
    try {
      const sized = body === undefined ? headers : { ...headers, 'content-length': String(body.byteLength) };
      req = request(url, { method, headers: sized, agent });
    } catch (error) {
      // An invalid header name or value: fetch's TypeError, with node's reason.
      reject(new TypeError(`Invalid model request: ${(error as Error).message}`, { cause: error }));
      return;
    }
    let response: ModelResponse | undefined;
    const aborted = () => {
      if (response) response.fail(signal!.reason);
      else {
        req.destroy();
        reject(signal!.reason);
      }
    };
    const release = () => signal?.removeEventListener('abort', aborted);
    signal?.addEventListener('abort', aborted, { once: true });
    req.setTimeout(IDLE_TIMEOUT_MS, () => req.destroy(new Error(`the model server sent nothing for ${IDLE_TIMEOUT_MS / 1000} s`)));
    req.on('response', (message) => {
      response = new ModelResponse(message, url.href, redirected);
      // The abort listener stays while the body streams: cancelling a turn ends it.
      message.once('close', release);
      resolve(response);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (response) return; // the body's stream reports it
      release();
      if (signal?.aborted) return;
      // A kept-alive connection the server closed as this request went out on it: the request was never
      // answered, so it goes once more on a new connection (Node's documented remedy, `reusedSocket`).
      if (retry && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
        send(url, method, headers, body, signal, redirected, false).then(resolve, reject);
        return;
      }
      reject(new TypeError('fetch failed', { cause: error }));
    });
    req.end(body);
  });
}
