// Run by modelHttp.test.ts in a fresh process (tsx, with the source-run hook
// test/support/providerUtilsHeaders.mjs): two turns with each provider format
// against the fake model server, then prints whether undici was loaded.
import { inMemoryAgent, isolatedEnv, messageText, tempDir } from '../harness';
import { startFakeModelServer } from '../../../fakeModelServer/index';

async function main(): Promise<void> {
  const server = await startFakeModelServer();
  const dir = tempDir('accord-model-turns-');
  const keys = { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k', ACCORD_ANTHROPIC_BASE_URL: server.baseUrl, ACCORD_OPENAI_BASE_URL: server.baseUrl };
  const texts: string[] = [];
  try {
    for (const model of ['anthropic:claude-sonnet-4-5', 'openai:gpt-5', `openai-compatible:${server.baseUrl}#qwen`]) {
      const agent = inMemoryAgent({ env: isolatedEnv({ ACCORD_MODEL: model, ...keys }, dir.path) });
      try {
        const sessionId = await agent.newSession(dir.path);
        server.script({ type: 'stream', parts: [{ text: 'one ' }, { text: 'two' }] }, { type: 'stream', parts: [{ text: ' three' }] });
        await agent.prompt(sessionId, 'first');
        await agent.prompt(sessionId, 'second');
        texts.push(messageText(agent, sessionId));
      } finally {
        await agent.close();
      }
    }
  } finally {
    await server.close();
    dir.remove();
  }
  // Node's list of the built-in modules it loaded (not in @types/node).
  const loaded = (process as unknown as { moduleLoadList: string[] }).moduleLoadList;
  process.stdout.write(JSON.stringify({ texts, undici: loaded.filter((m) => m.includes('undici')) }));
}

void main();
