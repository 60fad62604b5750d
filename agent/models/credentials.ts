// Where keys come from: the environment first, then the file `accord login`
// writes (0600, under the user's config directory). Never from the editor's
// protocol connection.
import { chmodSync, mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Env = Record<string, string | undefined>;

export interface StoredCredentials {
  anthropic?: { apiKey: string };
  openai?: { apiKey: string };
  openrouter?: { apiKey: string };
  google?: { apiKey: string };
  'openai-compatible'?: { apiKey: string };
}

export function configDir(env: Env): string {
  if (env.ACCORD_CONFIG_DIR) return env.ACCORD_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'accord');
}

export function credentialsPath(env: Env): string {
  return join(configDir(env), 'credentials.json');
}

export function readStoredCredentials(env: Env): StoredCredentials {
  try {
    const parsed: unknown = JSON.parse(readFileSync(credentialsPath(env), 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as StoredCredentials) : {};
  } catch {
    return {};
  }
}

/** Writes atomically with mode 0600 so the key is never readable by others, even briefly. */
export function storeCredential(env: Env, provider: keyof StoredCredentials, apiKey: string): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = credentialsPath(env);
  const next = { ...readStoredCredentials(env), [provider]: { apiKey } };
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
  return path;
}

const envKeys = {
  anthropic: ['ANTHROPIC_API_KEY', 'ACCORD_ANTHROPIC_API_KEY'],
  openai: ['OPENAI_API_KEY', 'ACCORD_OPENAI_API_KEY'],
  openrouter: ['OPENROUTER_API_KEY', 'ACCORD_OPENROUTER_API_KEY'],
  google: ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'ACCORD_GEMINI_API_KEY'],
  'openai-compatible': ['ACCORD_OPENAI_COMPATIBLE_API_KEY'],
} as const;

export function apiKeyFor(env: Env, provider: keyof StoredCredentials): string | undefined {
  for (const name of envKeys[provider]) if (env[name]) return env[name];
  return readStoredCredentials(env)[provider]?.apiKey;
}

export function baseUrlFor(env: Env, provider: 'anthropic' | 'openai' | 'openrouter' | 'google'): string | undefined {
  switch (provider) {
    case 'anthropic':
      return env.ACCORD_ANTHROPIC_BASE_URL || env.ANTHROPIC_BASE_URL;
    case 'openai':
      return env.ACCORD_OPENAI_BASE_URL || env.OPENAI_BASE_URL;
    case 'openrouter':
      return env.ACCORD_OPENROUTER_BASE_URL;
    case 'google':
      return env.ACCORD_GEMINI_BASE_URL;
  }
}
