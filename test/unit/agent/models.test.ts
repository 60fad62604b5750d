// Model ids, credentials (env first, then the 0600 file `accord login`
// writes), local-server detection, and usage/cost accounting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { apiKeyFor, configDir, credentialsPath, storeCredential } from '../../../agent/models/credentials';
import { detectLocalServers } from '../../../agent/models/detect';
import { formatModelId, ModelIdError, parseModelId } from '../../../agent/models/modelId';
import { defaultModelId } from '../../../agent/models/resolve';
import { DEFAULT_CONTEXT_WINDOW, measureRequest } from '../../../agent/models/usage';
import { startFakeModelServer, type FakeModelServer } from '../../fakeModelServer/index';
import { agentBundle, inMemoryAgent, isolatedEnv, tempDir } from './harness';

const usage = (input: number, output: number, cached = 0) => ({
  inputTokens: input,
  inputTokenDetails: { noCacheTokens: input - cached, cacheReadTokens: cached, cacheWriteTokens: 0 },
  outputTokens: output,
  outputTokenDetails: { textTokens: output, reasoningTokens: 0 },
  totalTokens: input + output,
});

describe('model ids', () => {
  test('parse and format each provider', () => {
    assert.deepEqual(parseModelId('anthropic:claude-sonnet-4-5'), { provider: 'anthropic', model: 'claude-sonnet-4-5' });
    assert.deepEqual(parseModelId('openai:gpt-5'), { provider: 'openai', model: 'gpt-5' });
    const local = 'openai-compatible:http://127.0.0.1:11434/v1#qwen2.5-coder:7b';
    assert.deepEqual(parseModelId(local), { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder:7b' });
    assert.equal(formatModelId(parseModelId(local)), local);
  });

  test('bad ids say what a good one looks like', () => {
    for (const bad of ['gpt-5', 'mistral:large', 'openai-compatible:qwen', 'anthropic:']) {
      assert.throws(() => parseModelId(bad), (error: unknown) => error instanceof ModelIdError && /provider:model|base URL/.test(error.message));
    }
  });
});

describe('credentials', () => {
  const dir = tempDir('accord-cred-');
  after(() => dir.remove());

  test('config dir honours ACCORD_CONFIG_DIR, then XDG_CONFIG_HOME', () => {
    assert.equal(configDir({ ACCORD_CONFIG_DIR: '/x/y' }), '/x/y');
    assert.equal(configDir({ XDG_CONFIG_HOME: '/cfg' }), '/cfg/accord');
    assert.equal(configDir({ HOME: '/home/me' }), '/home/me/.config/accord');
  });

  test('a stored key is 0600 and used when the environment has none; the environment wins', () => {
    const env = { ACCORD_CONFIG_DIR: join(dir.path, 'nested') };
    storeCredential(env, 'anthropic', 'stored-key');
    assert.equal(statSync(credentialsPath(env)).mode & 0o777, 0o600);
    assert.equal(apiKeyFor(env, 'anthropic'), 'stored-key');
    assert.equal(apiKeyFor({ ...env, ANTHROPIC_API_KEY: 'env-key' }, 'anthropic'), 'env-key');
    storeCredential(env, 'openai', 'other');
    assert.equal(apiKeyFor(env, 'anthropic'), 'stored-key', 'storing one provider keeps the others');
  });

  test('`accord login openai` reads the key from stdin and stores it 0600', async () => {
    const home = join(dir.path, 'login');
    const child = spawn(process.execPath, [agentBundle, 'login', 'openai'], { env: { PATH: process.env.PATH, ACCORD_CONFIG_DIR: home }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stdin.end('sk-from-login\n');
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    assert.equal(stdout, '', 'prompts go to stderr');
    const path = join(home, 'credentials.json');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(path, 'utf8')).openai.apiKey, 'sk-from-login');
  });
});

describe('local server detection', () => {
  let server: FakeModelServer;
  const dir = tempDir('accord-detect-');
  before(async () => {
    server = await startFakeModelServer();
  });
  after(async () => {
    await server.close();
    dir.remove();
  });

  test('a server answering /v1/models is found; nothing configured means no probes', async () => {
    const found = await detectLocalServers({ ACCORD_LOCAL_SERVERS: `http://127.0.0.1:1/v1,${server.baseUrl}` });
    assert.deepEqual(found, [{ baseUrl: server.baseUrl, models: ['fake-local'] }]);
    assert.deepEqual(await detectLocalServers({ ACCORD_LOCAL_SERVERS: '' }), []);
  });

  /** A TCP port nothing listens on: one just closed. */
  async function closedPort(): Promise<number> {
    const listener = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    const { port } = listener.address() as { port: number };
    await new Promise((resolve) => listener.close(resolve));
    return port;
  }

  test('a port that refuses the connection is never asked over HTTP (no HTTP client loads for it)', async () => {
    // In a fresh process: this one has HTTP clients loaded already (the fake server, other tests).
    const refused = `http://127.0.0.1:${await closedPort()}/v1`;
    const script = `require('./agent/models/detect').detectLocalServers({ ACCORD_LOCAL_SERVERS: ${JSON.stringify(refused)} }).then((found) =>
      process.stdout.write(JSON.stringify({ found, http: process.moduleLoadList.filter((m) => /_http_client|undici/.test(m)) })));`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(child.stdout), { found: [], http: [] }, child.stderr);
    const found = await detectLocalServers({ ACCORD_LOCAL_SERVERS: `${refused},${server.baseUrl}` });
    assert.deepEqual(found, [{ baseUrl: server.baseUrl, models: ['fake-local'] }], 'the listening server is asked');
  });

  test('a port that accepts and never answers, and a URL that is not http(s): not found, and the probe ends', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket)).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    try {
      const { port } = silent.address() as { port: number };
      // The timeout only bounds the wait here; nothing is asserted about how long it took.
      assert.deepEqual(await detectLocalServers({ ACCORD_LOCAL_SERVERS: `http://127.0.0.1:${port}/v1,ftp://127.0.0.1:${port}/v1` }, 300), []);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('with no key and no ACCORD_MODEL, a detected server becomes the session model', async () => {
    assert.equal(await defaultModelId({ ACCORD_LOCAL_SERVERS: server.baseUrl, ACCORD_CONFIG_DIR: dir.path }), `openai-compatible:${server.baseUrl}#fake-local`);
    const agent = inMemoryAgent({ env: isolatedEnv({ ACCORD_LOCAL_SERVERS: server.baseUrl }, dir.path) });
    try {
      const sessionId = await agent.newSession(dir.path);
      server.script({ type: 'stream', parts: [{ text: 'local reply' }] });
      assert.equal(await agent.prompt(sessionId, 'hi'), 'end_turn');
      assert.equal(server.requests.at(-1)!.body.model, 'fake-local');
    } finally {
      await agent.close();
    }
  });
});

describe('usage and cost', () => {
  test('a priced model: used is input (cached included) + output, window and cost from genai-prices', async () => {
    const measured = await measureRequest(parseModelId('anthropic:claude-sonnet-4-5'), usage(10_000, 500, 8_000));
    assert.equal(measured.used, 10_500);
    assert.equal(measured.size, 200_000);
    // 2,000 uncached input at $3/M + 8,000 cache reads at $0.30/M + 500 output at $15/M.
    assert.ok(Math.abs(measured.cost! - (0.006 + 0.0024 + 0.0075)) < 1e-9, String(measured.cost));
  });

  test('an unknown or local model gets the default window and no cost', async () => {
    for (const id of ['openai:not-a-real-model-xyz', 'openai-compatible:http://127.0.0.1:1/v1#gpt-5']) {
      const measured = await measureRequest(parseModelId(id), usage(100, 10));
      assert.equal(measured.cost, undefined, id);
      assert.equal(measured.size, DEFAULT_CONTEXT_WINDOW, id);
    }
  });
});
