// Provider failures end the turn with a message that says what to fix; stop
// reasons map from the provider's finish reason; no model → how to set one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { reply, startFakeModelServer, type FakeModelServer, type Reply } from '../../fakeModelServer/index';
import { inMemoryAgent, isolatedEnv, messageText, tempDir } from './harness';

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('provider errors and stop reasons', () => {
  let server: FakeModelServer;
  const root = tempDir('accord-errors-');
  before(async () => {
    server = await startFakeModelServer();
  });
  after(async () => {
    await server.close();
    root.remove();
  });

  async function turn(replies: Reply[], extraEnv: Record<string, string> = {}, maxRetries = 0) {
    const env = isolatedEnv({ ACCORD_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k', ACCORD_ANTHROPIC_BASE_URL: server.baseUrl, ...extraEnv }, root.path);
    const agent = inMemoryAgent({ env, maxRetries });
    try {
      const sessionId = await agent.newSession(root.path);
      const before = server.requests.length;
      server.script(...replies);
      const stop = await agent.prompt(sessionId, 'hi');
      server.clearScript();
      return { stop, text: messageText(agent, sessionId), requests: server.requests.length - before };
    } finally {
      await agent.close();
    }
  }

  test('401 says the key was rejected and how to set one', async () => {
    const { stop, text } = await turn([reply.error(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } })]);
    assert.equal(stop, 'end_turn');
    assert.match(text, /rejected the API key/);
    assert.match(text, /Accord: Set API Key/);
    assert.match(text, /invalid x-api-key/);
    assert.doesNotMatch(text, /\n\s+at /, 'no stack trace');
  });

  test('429 is retried after retry-after, then succeeds', async () => {
    const { stop, text, requests } = await turn([reply.error(429, undefined, { 'retry-after-ms': '20' }), reply.text('made it')], {}, 2);
    assert.equal(stop, 'end_turn');
    assert.equal(text, 'made it');
    assert.equal(requests, 2);
  });

  test('429 that persists says so, with the number of attempts', async () => {
    const limited = () => reply.error(429, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, { 'retry-after-ms': '10' });
    const { stop, text, requests } = await turn([limited(), limited()], {}, 1);
    assert.equal(stop, 'end_turn');
    assert.equal(requests, 2);
    assert.match(text, /rate-limiting/);
    assert.match(text, /tried 2 times/);
  });

  test('500 says the provider had a server error', async () => {
    const { stop, text } = await turn([reply.error(500)]);
    assert.equal(stop, 'end_turn');
    assert.match(text, /server error/);
    assert.match(text, /HTTP 500/);
  });

  test('connection refused names the address to check', async () => {
    const port = await closedPort();
    const { stop, text } = await turn([], { ACCORD_ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}/v1` });
    assert.equal(stop, 'end_turn');
    assert.match(text, new RegExp(`Could not reach the model server at http://127.0.0.1:${port}/v1`));
  });

  test('a malformed chunk ends the turn with a clear message', async () => {
    const { stop, text } = await turn([{ type: 'stream', parts: [{ text: 'start ' }, { text: 'rest' }], malformedAfterParts: 1 }]);
    assert.equal(stop, 'end_turn');
    assert.match(text, /^start /);
    assert.match(text, /could not read/);
  });

  test('refusal and max_tokens become their stop reasons', async () => {
    assert.equal((await turn([reply.text('I cannot help with that.', { finish: 'refusal' })])).stop, 'refusal');
    assert.equal((await turn([reply.text('truncated', { finish: 'length' })])).stop, 'max_tokens');
  });

  test('a response cut off mid tool call: the call is not run and the next turn still works', async () => {
    const env = isolatedEnv({ ACCORD_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k', ACCORD_ANTHROPIC_BASE_URL: server.baseUrl }, root.path);
    const agent = inMemoryAgent({ env, maxRetries: 0 });
    try {
      const sessionId = await agent.newSession(root.path);
      server.script(reply.tool('cut', 'write_file', { path: 'cut.txt', content: 'x' }, { finish: 'length' }), reply.text('fine'));
      assert.equal(await agent.prompt(sessionId, 'write'), 'max_tokens');
      assert.equal(agent.permissionRequests.length, 0);
      assert.equal(await agent.prompt(sessionId, 'continue'), 'end_turn');
      assert.match(JSON.stringify(server.requests.at(-1)!.body.messages), /Not run: the response was cut off/);
    } finally {
      await agent.close();
    }
  });

  test('no model configured: the prompt explains every way to configure one', async () => {
    const agent = inMemoryAgent({ env: isolatedEnv({}, root.path) });
    try {
      const sessionId = await agent.newSession(root.path);
      const before = server.requests.length;
      assert.equal(await agent.prompt(sessionId, 'hello?'), 'end_turn');
      const text = messageText(agent, sessionId);
      for (const hint of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'accord login', 'Accord: Set API Key', 'ACCORD_MODEL']) assert.ok(text.includes(hint), hint);
      assert.equal(server.requests.length, before);
    } finally {
      await agent.close();
    }
  });

  test('a model whose key is missing says which variable to set', async () => {
    const agent = inMemoryAgent({ env: isolatedEnv({ ACCORD_MODEL: 'openai:gpt-5' }, root.path) });
    try {
      const sessionId = await agent.newSession(root.path);
      assert.equal(await agent.prompt(sessionId, 'hello?'), 'end_turn');
      assert.match(messageText(agent, sessionId), /No OpenAI API key is configured\. Set OPENAI_API_KEY/);
    } finally {
      await agent.close();
    }
  });
});

describe('a stalled stream without cancel', () => {
  test('is dropped after the idle timeout with a message, not a hang', async () => {
    const server = await startFakeModelServer();
    const root = tempDir('accord-stall-');
    const agent = inMemoryAgent({ env: isolatedEnv({ ACCORD_MODEL: `openai-compatible:${server.baseUrl}#fake` }, root.path), streamIdleTimeoutMs: 3_000 });
    try {
      const sessionId = await agent.newSession(root.path);
      server.script({ type: 'stream', parts: [{ text: 'so far' }, { text: 'never' }], stallAfterParts: 1 });
      assert.equal(await agent.prompt(sessionId, 'hi'), 'end_turn');
      const text = messageText(agent, sessionId);
      assert.match(text, /^so far/);
      // Long enough that a loaded machine still delivers the first part in time.
      assert.match(text, /stopped sending for 3 s/);
      assert.match(text, new RegExp(`Check the server at ${server.baseUrl}`));
    } finally {
      await agent.close();
      await server.close();
      root.remove();
    }
  });
});
