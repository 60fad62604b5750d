// `accord login [anthropic|openai|openrouter|google|openai-compatible]`: stores an API key in
// the user's config directory (0600). The key is read from stdin, never from
// the command line, so it stays out of shell history and process lists.
import { createInterface } from 'node:readline/promises';
import { storeCredential, type Env, type StoredCredentials } from './models/credentials';

const providers: Array<keyof StoredCredentials> = ['anthropic', 'openai', 'openrouter', 'google', 'openai-compatible'];

export async function login(args: string[], env: Env): Promise<number> {
  const provider = (args[0] ?? 'anthropic') as keyof StoredCredentials;
  if (!providers.includes(provider)) {
    process.stderr.write(`accord login: unknown provider "${provider}". Use one of: ${providers.join(', ')}.\n`);
    return 2;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY });
  const key = (await rl.question(`Paste your ${provider} API key and press Enter: `)).trim();
  rl.close();
  if (!key) {
    process.stderr.write('accord login: no key given; nothing stored.\n');
    return 1;
  }
  const path = storeCredential(env, provider, key);
  process.stderr.write(`Stored the ${provider} key in ${path} (readable only by you).\n`);
  return 0;
}
