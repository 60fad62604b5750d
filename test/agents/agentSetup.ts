// How the opt-in agent tests point a catalogue agent at the fake model server:
// the entry's env (a fresh HOME, the endpoint variables the catalogue names)
// and, for Codex, a config.toml provider (Codex reads its endpoint there, not
// from OPENAI_BASE_URL alone). Shared by test/agents/launch.test.ts and the
// run through the extension (test/vscode/agents/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogueAgent } from '../../extension/agents/catalogue';

/** The variables an `accord.agents` entry for this agent gets in the tests. */
export function endpointEnv(agent: CatalogueAgent, home: string, modelBaseUrl: string): Record<string, string> {
  const env: Record<string, string> = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share') };
  if (agent.endpoint) {
    const base = agent.endpoint.protocol === 'anthropic' ? modelBaseUrl.replace(/\/v1$/, '') : modelBaseUrl;
    Object.assign(env, { [agent.endpoint.baseUrlEnv]: base, [agent.endpoint.keyEnv]: 'fake-key', ...agent.endpoint.extraEnv });
  }
  if (agent.id === 'codex') {
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(join(home, '.codex/config.toml'), [
      'model = "fake-model"', 'model_provider = "fake"', '[model_providers.fake]', 'name = "fake"',
      `base_url = "${modelBaseUrl}"`, 'env_key = "OPENAI_API_KEY"', 'wire_api = "responses"', '',
    ].join('\n'));
  }
  return env;
}
