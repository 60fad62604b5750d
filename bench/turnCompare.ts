// Before/after for the turn path, in ONE interleaved run: two builds of the
// agent (`--no-daemon`, a fresh process per run as an editor starts it)
// against the fake model server streaming 200 chunks. Per run: prompt →
// first chunk and the whole turn, both net of the model's own time (as
// agent.bench.ts measures them), and the agent process's CPU time for the
// prompt (from /proc; steadier than wall time on a busy machine). With
// PROFILE_DIR set, each agent writes a `--cpu-prof` profile there.
// `node --import tsx bench/turnCompare.ts <distA> <distB> [runs]`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeModelServer, type FakeModelServer } from '../test/fakeModelServer/index';
import { rawConnection } from './rawAcp';
import { benchEnv, benchProject, streamedTurn } from './streamedTurn';

const [distA, distB] = [resolve(process.argv[2] ?? 'dist'), resolve(process.argv[3] ?? 'dist')];
const RUNS = Number(process.argv[4] ?? 6);
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
    const cpuBefore = cpuMs(child.pid!);
    const { firstChunkNet, turnNet } = await streamedTurn(acp, server, sessionId);
    const cpuAfter = cpuMs(child.pid!);
    return {
      sessionNew,
      firstChunkNet,
      turnNet,
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
  benchProject(project);
  const server = await startFakeModelServer();
  const env = benchEnv(home, server);
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
