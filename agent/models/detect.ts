// Finds OpenAI-compatible servers on this machine (Ollama, LM Studio,
// llama.cpp) on their default ports; all probes run at once.
//
// A probe first opens a plain TCP connection and asks over HTTP only where
// one is accepted. Usually no port is (no local server runs), and then no
// HTTP client loads: the process's first `fetch` compiles undici and its
// WebAssembly parser (~35 ms of CPU, ~70 ms of wall time on a cold agent),
// which session/new paid on every start just to learn that nothing listens.
// Where one does listen, the question goes through the providers' own client
// (agent/models/http/), which loads no undici either.
import { connect } from 'node:net';
import type { Env } from './credentials';
import { modelFetch } from './http/modelFetch';

const defaultServers = ['http://127.0.0.1:11434/v1', 'http://127.0.0.1:1234/v1', 'http://127.0.0.1:8080/v1'];

export interface LocalServer {
  baseUrl: string;
  models: string[];
}

/** `ACCORD_LOCAL_SERVERS` (comma-separated base URLs, empty for none) overrides the default ports. */
export function localServerCandidates(env: Env): string[] {
  const configured = env.ACCORD_LOCAL_SERVERS;
  if (configured === undefined) return defaultServers;
  return configured.split(',').map((s) => s.trim()).filter(Boolean);
}

async function probe(baseUrl: string, timeoutMs: number): Promise<LocalServer | undefined> {
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    if (!(await accepts(new URL(baseUrl), signal))) return undefined;
    const response = await modelFetch(`${baseUrl.replace(/\/$/, '')}/models`, { signal });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { data?: Array<{ id?: unknown }> };
    const models = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
    return models.length ? { baseUrl, models } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the URL's host accepts a TCP connection on its port (the protocol's default if none); false on refusal, any error or `signal`. */
function accepts(url: URL, signal: AbortSignal): Promise<boolean> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    // [::1] in a URL is ::1 to connect().
    const socket = connect({ host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port });
    const done = (accepted: boolean) => {
      signal.removeEventListener('abort', aborted);
      socket.destroy();
      resolve(accepted);
    };
    const aborted = () => done(false);
    signal.addEventListener('abort', aborted, { once: true });
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * A port with nothing on it refuses at once, so probing costs nothing in the usual case; the timeout only
 * bounds a server that accepts and then hangs. It is generous because a loaded machine delays the answer
 * of a live server by seconds, and a live server missed is a model the person cannot pick.
 */
export async function detectLocalServers(env: Env, timeoutMs = 3000): Promise<LocalServer[]> {
  const found = await Promise.all(localServerCandidates(env).map((url) => probe(url, timeoutMs)));
  return found.filter((server): server is LocalServer => server !== undefined);
}
