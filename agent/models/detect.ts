// Finds OpenAI-compatible servers on this machine (Ollama, LM Studio,
// llama.cpp) on their default ports; all probes run at once.
import type { Env } from './credentials';

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
    const response = await fetch(`${baseUrl.replace(/\/$/, '')}/models`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { data?: Array<{ id?: unknown }> };
    const models = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
    return models.length ? { baseUrl, models } : undefined;
  } catch {
    return undefined;
  }
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
