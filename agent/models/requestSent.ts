// "A model request went out", for work that should not compete with it: a
// new session's copy and sandbox wait for the first request of a turn that
// started before them (agent/acp/earlyStart.ts). Every provider's HTTP
// requests go through `observedFetch`; the client's own models signal it
// when the chat is handed to the client.
import { modelFetch, type ModelRequestInit } from './http/modelFetch';

const listeners = new Set<() => void>();

/** Calls `listener` once, after the next model request went out. Returns a function that cancels it. */
export function afterNextModelRequest(listener: () => void): () => void {
  const once = () => {
    listeners.delete(once);
    listener();
  };
  listeners.add(once);
  return () => listeners.delete(once);
}

/**
 * A request was just handed to the network (or the client). Listeners run
 * after the current I/O phase (setImmediate): by then the request's
 * promise chain has run and its bytes are written on a kept-alive connection.
 */
export function modelRequestSent(): void {
  if (listeners.size === 0) return;
  setImmediate(() => {
    for (const listener of [...listeners]) listener();
  });
}

/**
 * `fetch` for the model providers: modelFetch (node:http, not undici), noticed.
 * The providers take a `typeof fetch`; they pass a URL string and read what
 * ModelResponse has.
 */
export const observedFetch = ((input: string | URL, init?: ModelRequestInit) => {
  const response = modelFetch(input, init);
  modelRequestSent();
  return response;
}) as unknown as typeof fetch;
