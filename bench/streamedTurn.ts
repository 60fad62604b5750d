// What agent.bench.ts and turnCompare.ts measure the same way: the project
// the agents work in, their environment, and one streamed turn's timings net
// of the fake model's own time.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeModelServer } from '../test/fakeModelServer/index';
import { delta } from './logFixture';
import type { RawConnection } from './rawAcp';

/** Chunks the fake model streams per turn. */
export const CHUNKS = 200;

/** A small git project: twenty source files, one commit. */
export function benchProject(dir: string): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(dir, 'src', `f${i}.ts`), `export const v${i} = ${i};\n`);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=B', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
}

/** Nothing from the person's environment: a private HOME and data dir, the fake model, no local servers. */
export function benchEnv(home: string, server: FakeModelServer): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    ACCORD_HOME: join(home, 'data'),
    ACCORD_CONFIG_DIR: join(home, 'config'),
    ACCORD_LOCAL_SERVERS: '',
    ACCORD_MODEL: `openai-compatible:${server.baseUrl}#bench`,
  };
}

/**
 * One prompt answered by a CHUNKS-chunk stream: prompt → first chunk and the
 * whole turn, each net of the model's own time (from the request reaching it
 * to its first text event / its last event).
 */
export async function streamedTurn(acp: RawConnection, server: FakeModelServer, sessionId: string): Promise<{ firstChunkNet: number; turnNet: number }> {
  const requestsBefore = server.requests.length;
  let arrived = 0;
  void server.waitForRequests(requestsBefore + 1).then(() => (arrived = performance.now()));
  const firstEvent = server.sentAt.length;
  server.script({ type: 'stream', parts: Array.from({ length: CHUNKS }, (_, i) => ({ text: delta(i) })) });
  let firstChunkAt = 0;
  acp.onUpdate = (update) => {
    if (!firstChunkAt && update.sessionUpdate === 'agent_message_chunk') firstChunkAt = performance.now();
  };
  const promptAt = performance.now();
  await acp.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'stream' }] });
  const doneAt = performance.now();
  const sent = server.sentAt.slice(firstEvent);
  return { firstChunkNet: firstChunkAt - promptAt - (sent[0]! - arrived), turnNet: doneAt - promptAt - (sent.at(-1)! - arrived) };
}
