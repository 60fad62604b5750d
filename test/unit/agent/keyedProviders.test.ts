// "Set API Key" offers exactly the providers the agent uses: each key it
// stores reaches the bundled agent (its environment and the daemon's
// hand-off) under a variable the agent reads, and resolves a real model.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYED_PROVIDERS, PROVIDER_KEY_ENV, PROVIDER_MODELS } from '../../../agent/models/catalog';
import { apiKeyFor } from '../../../agent/models/credentials';
import { resolveModel, defaultModelId } from '../../../agent/models/resolve';
import { acceptedEnv, forwardedEnv } from '../../../agent/daemon/handshake';
import { BUNDLED_ENV } from '../../../extension/agents/agentEnv';

describe('keyed providers: what Set API Key stores is what the agent uses', () => {
  for (const provider of KEYED_PROVIDERS) {
    const variable = PROVIDER_KEY_ENV[provider];
    test(`${provider}: ${variable} reaches the agent and resolves its models`, async () => {
      const env = { [variable]: 'test-key', ACCORD_CONFIG_DIR: '/nonexistent-accord-config' };
      assert.equal(apiKeyFor(env, provider), 'test-key', 'the agent reads the variable');
      assert.ok(BUNDLED_ENV.includes(variable), 'the extension passes it to the bundled agent');
      assert.equal(acceptedEnv(forwardedEnv(env))[variable], 'test-key', 'the bridge hands it to the daemon, which accepts it');
      assert.equal(await defaultModelId({ ...env, ACCORD_LOCAL_SERVERS: '' }), `${provider}:${PROVIDER_MODELS[provider][0]}`);
      for (const model of PROVIDER_MODELS[provider]) {
        const resolved = await resolveModel(`${provider}:${model}`, env);
        assert.equal(resolved.id, `${provider}:${model}`);
      }
    });
  }
});
