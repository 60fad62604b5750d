// Before/after for the turn path, in ONE interleaved run: two builds of the
// agent (`--no-daemon`, a fresh process per run as an editor starts it)
// against the fake model server streaming 200 chunks. Per run: prompt →
// first chunk and the whole turn, both net of the model's own time (as
// agent.bench.ts measures them), and the agent process's CPU time for the
// prompt (from /proc; steadier than wall time on a busy machine). With
// PROFILE_DIR set, each agent writes a `--cpu-prof` profile there.
// `node --import tsx bench/turnCompare.ts <distA> <distB> [runs]`.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeModelServer, type FakeModelServer } from '../test/fakeModelServer/index';
import { delta } from './logFixture';
import { rawConnection } from './rawAcp';

const [distA, distB] = [resolve(process.argv[2] ?? 'dist'), resolve(process.argv[3] ?? 'dist')];
const RUNS = Number(process.argv[4] ?? 6);
const CHUNKS = 200;
const ticks = 100; // USER_HZ on Linux
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
}

interface Run { sessionNew: number; firstChunkNet: number; turnNet: number; promptCpu: number; totalCpu: number }

async function runOnce(dist: string, env: NodeJS.ProcessEnv, server: FakeModelServer, project: string): Promise<Run> {
  const profile = process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, join(dist, 'agent.js'), 'acp', '--no-daemon'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const acp = rawConnection(child);
  try {
    await acp.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const newAt = performance.now();
    const { sessionId } = (await acp.request('session/new', { cwd: project, mcpServers: [] })) as { sessionId: string };
    const sessionNew = performance.now() - newAt;
    const requestsBefore = server.requests.length;
    let arrived = 0;
    void server.waitForRequests(requestsBefore + 1).then(() => (arrived = performance.now()));
    const firstEvent = server.sentAt.length;
    server.script({ type: 'stream', parts: Array.from({ length: CHUNKS }, (_, i) => ({ text: delta(i) })) });
    let firstChunkAt = 0;
    acp.onUpdate = (update) => {
      if (!firstChunkAt && update.sessionUpdate === 'agent_message_chunk') firstChunkAt = performance.now();
    };
    const cpuBefore = cpuMs(child.pid!);
    const promptAt = performance.now();
    await acp.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'stream' }] });
    const doneAt = performance.now();
    const cpuAfter = cpuMs(child.pid!);
    const sent = server.sentAt.slice(firstEvent);
    return {
      sessionNew,
      firstChunkNet: firstChunkAt - promptAt - (sent[0]! - arrived),
      turnNet: doneAt - promptAt - (sent.at(-1)! - arrived),
      promptCpu: cpuAfter - cpuBefore,
      totalCpu: cpuAfter,
    };
  } finally {
    await acp.close();
  }
}

async function main(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'accord-turn-compare-'));
  const project = join(home, 'project');
  mkdirSync(join(project, 'src'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(project, 'src', `f${i}.ts`), `export const v${i} = ${i};\n`);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=B', '-c', 'commit.gpgsign=false', ...args], { cwd: project, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  const server = await startFakeModelServer();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    ACCORD_HOME: join(home, 'data'),
    ACCORD_CONFIG_DIR: join(home, 'config'),
    ACCORD_LOCAL_SERVERS: '',
    ACCORD_MODEL: `openai-compatible:${server.baseUrl}#bench`,
  };
  const results: Record<'A' | 'B', Run[]> = { A: [], B: [] };
  console.log(`turn compare: A=${distA} B=${distB}, ${RUNS} interleaved runs each (no daemon); load average before: ${load()}`);
  try {
    await runOnce(distA, env, server, project);
    await runOnce(distB, env, server, project);
    for (let i = 0; i < RUNS; i++) {
      for (const kind of i % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) results[kind].push(await runOnce(kind === 'A' ? distA : distB, env, server, project));
    }
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
  const keys: Array<keyof Run> = ['sessionNew', 'firstChunkNet', 'turnNet', 'promptCpu', 'totalCpu'];
  console.log('| median (ms) | A | B |\n|---|---|---|');
  for (const key of keys) console.log(`| ${key} | ${median(results.A.map((r) => r[key])).toFixed(1)} | ${median(results.B.map((r) => r[key])).toFixed(1)} |`);
  console.log(`load average after: ${load()}`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
