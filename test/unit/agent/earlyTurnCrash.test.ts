// kill -9 of the bundled agent while a new session's first turn streams,
// most likely while its copy is still being made (a project of many files;
// the turn starts as soon as the copy's root is known). Wherever the kill
// lands, a load in a fresh process replays every chunk the client saw,
// continues in the recorded copy or makes one when none was finished, and
// the person's tree is never touched.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { reply, startFakeModelServer, type FakeModelServer } from '../../fakeModelServer/index';
import { agentBundle, childAgent, isolatedEnv, tempDir, updatesOf } from './harness';
import { gitProject } from './isolationFixtures';

describe('kill -9 during the first turn of a session whose copy is being made', () => {
  let server: FakeModelServer;
  const config = tempDir('accord-early-crash-config-');
  before(async () => {
    if (!existsSync(agentBundle)) spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'ignore' });
    server = await startFakeModelServer();
  });
  after(async () => {
    await server.close();
    config.remove();
  });
  const start = (data: string) => childAgent(isolatedEnv({ ACCORD_MODEL: `openai-compatible:${server.baseUrl}#fake`, ACCORD_HOME: data }, config.path));

  test('a load replays every chunk the client saw and the session goes on in a copy, never in the person\'s tree', { timeout: 240_000 }, async (t) => {
    // Many files: making the copy takes long enough that the kill usually lands before it is finished.
    const files = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`src/f${i}.txt`, `${i}\n`]));
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n', ...files });
    const first = start(data);
    let sessionId = '';
    let seen: string[] = [];
    try {
      sessionId = await first.newSession(project);
      // Three chunks, then the stream stays open: the turn is still running when the agent is killed.
      server.script({ type: 'stream', parts: [{ text: 'one ' }, { text: 'two ' }, { text: 'three' }], stallAfterParts: 3 });
      void first.prompt(sessionId, 'count').catch(() => undefined);
      await first.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk' && (n.update as any).content.text === 'three');
      first.child.kill('SIGKILL');
      seen = updatesOf(first, sessionId, 'agent_message_chunk').map((u) => u.content.text);
    } finally {
      await first.close();
    }
    const recordedAtKill = readFileSync(join(data, 'sessions', `${sessionId}.jsonl`), 'utf8').includes('"type":"workspace"');
    t.diagnostic(recordedAtKill ? 'the copy was finished before the kill' : 'the kill landed before the copy was finished (the load makes one)');

    const second = start(data);
    try {
      await second.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const loaded = await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
      const replayed = updatesOf(second, sessionId, 'agent_message_chunk').map((u) => u.content.text);
      assert.deepEqual(replayed.slice(0, seen.length), seen, `every chunk the client saw is replayed (copy recorded at the kill: ${recordedAtKill})`);
      const root = (loaded._meta as any)['accord/workspace'].root as string;
      assert.notEqual(root, project, 'the session works in a copy');
      server.script(reply.tool('w1', 'write_file', { path: 'b.txt', content: 'agent\n' }), reply.text('Done.'));
      assert.equal(await second.prompt(sessionId, 'write b.txt'), 'end_turn');
      assert.equal(readFileSync(join(root, 'b.txt'), 'utf8'), 'agent\n', 'the call ran in the copy');
      assert.ok(!existsSync(join(project, 'b.txt')), "the person's tree is untouched");
    } finally {
      await second.close();
      remove();
    }
  });
});
