// `npm run bench` (agent part): the bundled agent on the wire, started the
// way an editor starts it (a fresh process per run), interleaved with the
// dependency-free floor agent (bench/floorAgent.mjs) in the same run, against
// the fake model server streaming 200 chunks. Two situations: a daemon
// already running (`dist/accord acp`, what an editor configured with `accord
// acp` runs: socat on a hand-off socket on Linux; "daemon (node bridge)" is
// `node dist/agent.js acp`, the Node bridge, for comparison) and none
// (`--no-daemon`); and a third, "daemon, direct": no bridge, this process connects to the daemon's
// socket as the extension does (extension/agents/daemonLink.ts), so the
// agent's tree is the daemon and its children. Beside the peak RSS (the
// issue's measure) it prints the tree's peak PSS, which counts the pages a
// bridge shares with its daemon (the node binary's) once.
// Prints medians, the ratio to the floor, and the machine's load average:
// on a shared machine read the ratios, not the absolute numbers.
// `node --import tsx bench/agent.bench.ts [runs]` (default 8); BENCH_DIST=<dir> runs another build.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionLogPath, SessionStore } from '../agent/log';
import { startFakeModelServer, type FakeModelServer } from '../test/fakeModelServer/index';
import { delta, writeSessionLog } from './logFixture';
import { rawConnection } from './rawAcp';
import { treePssBytes, treeRssBytes } from './processTree';
import { DaemonLink } from '../extension/agents/daemonLink';
import { benchEnv, benchProject, CHUNKS, streamedTurn } from './streamedTurn';
import { recordResult } from './results';

const RUNS = Number(process.argv[2] ?? 8);
const REPLAY_EVENTS = 50_000;
// BENCH_DIST: another build's dist/ (e.g. main's, for a before/after table).
const agentBundle = join(process.env.BENCH_DIST ?? join(process.cwd(), 'dist'), 'agent.js');
/** The shell launcher (package.json `bin`); a build from before it has none, and its "daemon" line is the Node bridge. */
const launcher = join(agentBundle, '..', 'accord');
const hasLauncher = existsSync(launcher);
/** The direct link says the bundled agent's version in its hello, as the extension (built with it) does. */
const agentVersion = (JSON.parse(readFileSync(join(agentBundle, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
const floorAgent = join(process.cwd(), 'bench/floorAgent.mjs');

type Kind = 'floor' | 'no daemon' | 'daemon' | 'daemon (node bridge)' | 'daemon, direct';

interface Run {
  initialize: number;
  sessionNew: number;
  firstChunkNet: number;
  turnNet: number;
  peakRssMb: number;
  /** The same tree's peak proportional set size: pages shared between its processes count once. */
  peakPssMb: number;
  /** Log bytes written per streamed text chunk (the agent only). */
  logBytesPerChunk?: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

function commandFor(kind: Kind): [string, string[]] {
  if (kind === 'floor') return [process.execPath, [floorAgent]];
  if (kind === 'daemon' && hasLauncher) return [launcher, ['acp']];
  if (kind === 'daemon' || kind === 'daemon (node bridge)') return [process.execPath, [agentBundle, 'acp']];
  return [process.execPath, [agentBundle, 'acp', '--no-daemon']];
}

/** The extension's link to the daemon (no process of its own); its stderr is the bench's. */
function directLink(env: NodeJS.ProcessEnv): DaemonLink {
  const strings = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const link = new DaemonLink({ command: process.execPath, args: [agentBundle, 'acp'], env: strings }, { version: agentVersion });
  link.stderr.pipe(process.stderr, { end: false });
  return link;
}

/** One editor-like run: spawn (or connect), initialize, session/new, one 200-chunk prompt, close. */
async function runOnce(kind: Kind, env: NodeJS.ProcessEnv, server: FakeModelServer, project: string, daemonPid: () => number | undefined): Promise<Run> {
  const started = performance.now();
  const child = kind === 'daemon, direct' ? directLink(env) : spawn(...commandFor(kind), { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const acp = rawConnection(child);
  try {
    await acp.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const initialize = performance.now() - started;
    const newAt = performance.now();
    const { sessionId } = (await acp.request('session/new', { cwd: project, mcpServers: [] })) as { sessionId: string };
    const sessionNew = performance.now() - newAt;

    // Peak RSS and PSS of the agent's processes (bridge, daemon and their children) while the turn runs.
    const roots = () => (kind === 'daemon, direct' ? [daemonPid()!] : [(child as { pid?: number }).pid!, ...(kind.startsWith('daemon') ? [daemonPid()!] : [])]);
    let peak = 0;
    let peakPss = 0;
    const sample = () => {
      peak = Math.max(peak, treeRssBytes(roots()));
      peakPss = Math.max(peakPss, treePssBytes(roots()));
    };
    sample();
    const sampler = setInterval(sample, 10);

    const { firstChunkNet, turnNet } = await streamedTurn(acp, server, sessionId);
    clearInterval(sampler);
    sample();

    const run: Run = {
      initialize,
      sessionNew,
      firstChunkNet,
      turnNet,
      peakRssMb: peak / 2 ** 20,
      peakPssMb: peakPss / 2 ** 20,
    };
    if (kind !== 'floor') run.logBytesPerChunk = textChunkLogBytes(sessionLogPath(env.ACCORD_HOME!, sessionId)) / CHUNKS;
    return run;
  } finally {
    await acp.close();
  }
}

/** Bytes of the log lines that record streamed message text (plain update records or compact ones). */
function textChunkLogBytes(path: string): number {
  let bytes = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.includes('agent_message_chunk') || line.includes('"type":"more"')) bytes += Buffer.byteLength(line) + 1;
  }
  return bytes;
}

function daemonPidOf(env: NodeJS.ProcessEnv): number | undefined {
  try {
    const status = JSON.parse(execFileSync(process.execPath, [agentBundle, 'daemon', 'status', '--json'], { env, encoding: 'utf8' })) as { pid?: number };
    return status.pid;
  } catch {
    return undefined;
  }
}

/** Replay throughput on a 50,000-event log: wall clock and CPU time (on a loaded machine the CPU rate is the steadier one). */
async function replayRate(dataDir: string): Promise<{ wall: number; cpu: number }> {
  const store = new SessionStore(dataDir);
  await writeSessionLog(store, 'replay', REPLAY_EVENTS);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    const used = process.cpuUsage();
    await store.replay('replay');
    const { user, system } = process.cpuUsage(used);
    wall.push(REPLAY_EVENTS / ((performance.now() - start) / 1000));
    cpu.push(REPLAY_EVENTS / ((user + system) / 1e6));
  }
  return { wall: median(wall), cpu: median(cpu) };
}

function table(results: Map<Kind, Run[]>, replay: { wall: number; cpu: number }): string {
  const rows: Array<[string, keyof Run, string, string]> = [
    ['spawn → initialize (ms)', 'initialize', '≤ floor+20 (daemon), ≤ 2× floor', '%.1f'],
    ['session/new (ms)', 'sessionNew', '≤ 20', '%.1f'],
    ['prompt → first chunk, net of model (ms)', 'firstChunkNet', '≤ 60', '%.1f'],
    ['200-chunk turn, net of model (ms)', 'turnNet', '≤ 100', '%.1f'],
    ['peak RSS of process tree (MB)', 'peakRssMb', '≤ 100', '%.0f'],
    ['peak PSS of process tree (MB; shared pages once)', 'peakPssMb', '– (the goal is RSS)', '%.0f'],
    ['log bytes per text chunk', 'logBytesPerChunk', `≤ ${(2 * avgText() + 40).toFixed(0)}`, '%.0f'],
  ];
  const fmt = (v: number | undefined, spec: string) => (v === undefined ? '–' : v.toFixed(spec === '%.0f' ? 0 : 1));
  const lines = [
    `| measure | floor | no daemon | × floor | daemon (${hasLauncher ? 'dist/accord' : 'node bridge'}) | × floor | daemon (node bridge) | × floor | daemon, direct | × floor | goal |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [label, key, goal, spec] of rows) {
    const m = (kind: Kind) => {
      const values = results.get(kind)!.map((r) => r[key]).filter((v): v is number => v !== undefined);
      return values.length ? median(values) : undefined;
    };
    const f = m('floor');
    const ratio = (v: number | undefined) => (v !== undefined && f ? `${(v / f).toFixed(1)}×` : '–');
    const cells = (['no daemon', 'daemon', 'daemon (node bridge)', 'daemon, direct'] as const).map((kind) => `${fmt(m(kind), spec)} | ${ratio(m(kind))}`);
    lines.push(`| ${label} | ${fmt(f, spec)} | ${cells.join(' | ')} | ${goal} |`);
  }
  lines.push(`| replay of ${REPLAY_EVENTS.toLocaleString('en')} events (events/s, wall / CPU) | – | ${Math.round(replay.wall).toLocaleString('en')} / ${Math.round(replay.cpu).toLocaleString('en')} | | | | | | | | ≥ 500,000 |`);
  return lines.join('\n');
}

/** The table's figures against the goals, for the summary of `npm run bench` (bench/results.ts). */
function recordGoals(results: Map<Kind, Run[]>, replay: { wall: number; cpu: number }): void {
  const m = (kind: Kind, key: keyof Run) => {
    const values = results.get(kind)!.map((r) => r[key]).filter((v): v is number => v !== undefined);
    return values.length ? median(values) : NaN;
  };
  const floor = m('floor', 'initialize');
  for (const [kind, suffix] of [['daemon', 'daemon'], ['no daemon', 'noDaemon']] as const) {
    const init = m(kind, 'initialize');
    const limit = kind === 'daemon' ? floor + 20 : 2 * floor;
    recordResult({ id: `initialize.${suffix}`, measured: `${init.toFixed(1)} ms (floor ${floor.toFixed(1)} ms, limit ${limit.toFixed(1)} ms)`, met: init <= limit });
    const ms = (key: keyof Run, id: string, goal: number) => {
      const v = m(kind, key);
      recordResult({ id: `${id}.${suffix}`, measured: `${v.toFixed(1)} ms (floor ${m('floor', key).toFixed(1)} ms)`, met: v <= goal });
    };
    ms('sessionNew', 'sessionNew', 20);
    ms('firstChunkNet', 'firstChunk', 60);
    ms('turnNet', 'turn', 100);
    const rss = m(kind, 'peakRssMb');
    recordResult({ id: `rss.${suffix}`, measured: `${rss.toFixed(0)} MB, PSS ${m(kind, 'peakPssMb').toFixed(0)} MB (floor ${m('floor', 'peakRssMb').toFixed(0)} MB)`, met: rss <= 100 });
  }
  // What a VS Code user has with the daemon on: no bridge (figures with no goal of their own; the goals' rows stay the bridge's).
  const bridge = (key: keyof Run) => m('daemon (node bridge)', key);
  recordResult({ id: 'initialize.nodeBridge', measured: `${bridge('initialize').toFixed(1)} ms (floor ${floor.toFixed(1)} ms)`, met: bridge('initialize') <= floor + 20, note: 'daemon (node bridge): node dist/agent.js acp, the portable form' });
  recordResult({ id: 'rss.nodeBridge', measured: `${bridge('peakRssMb').toFixed(0)} MB, PSS ${bridge('peakPssMb').toFixed(0)} MB`, met: bridge('peakRssMb') <= 100, note: 'daemon (node bridge)' });
  const direct = (key: keyof Run) => m('daemon, direct', key);
  recordResult({ id: 'initialize.direct', measured: `${direct('initialize').toFixed(1)} ms (floor ${floor.toFixed(1)} ms)`, met: direct('initialize') <= floor + 20, note: 'daemon, direct (the extension connects itself)' });
  recordResult({ id: 'sessionNew.direct', measured: `${direct('sessionNew').toFixed(1)} ms`, met: direct('sessionNew') <= 20, note: 'daemon, direct' });
  recordResult({ id: 'firstChunk.direct', measured: `${direct('firstChunkNet').toFixed(1)} ms`, met: direct('firstChunkNet') <= 60, note: 'daemon, direct' });
  recordResult({ id: 'turn.direct', measured: `${direct('turnNet').toFixed(1)} ms`, met: direct('turnNet') <= 100, note: 'daemon, direct' });
  recordResult({ id: 'rss.direct', measured: `${direct('peakRssMb').toFixed(0)} MB, PSS ${direct('peakPssMb').toFixed(0)} MB`, met: direct('peakRssMb') <= 100, note: 'daemon, direct: the daemon and its children' });
  const perChunk = m('no daemon', 'logBytesPerChunk');
  const limit = 2 * avgText() + 40;
  recordResult({ id: 'logPerChunk', measured: `${perChunk.toFixed(0)} B for ${avgText().toFixed(0)} B of text (limit ${limit.toFixed(0)} B)`, met: perChunk <= limit, note: 'the agent\'s own log of a 200-chunk turn' });
  recordResult({ id: 'replay', measured: `${Math.round(replay.cpu).toLocaleString('en')} events/s CPU, ${Math.round(replay.wall).toLocaleString('en')} wall`, met: replay.cpu >= 500_000, note: 'agent.bench, median of 5' });
}

const avgText = () => Array.from({ length: CHUNKS }, (_, i) => Buffer.byteLength(delta(i))).reduce((a, b) => a + b, 0) / CHUNKS;

async function main(): Promise<void> {
  console.log(`agent bench: ${RUNS} interleaved runs per agent, ${CHUNKS} chunks of ${avgText().toFixed(0)} B on average; ${cpus().length} cores; load average before: ${load()}`);
  const home = mkdtempSync(join(tmpdir(), 'accord-bench-'));
  const project = join(home, 'project');
  benchProject(project);
  const server = await startFakeModelServer();
  const env: NodeJS.ProcessEnv = {
    ...benchEnv(home, server),
    FLOOR_MODEL_URL: server.baseUrl,
    // Passed through so a run can compare with a feature off (e.g. ACCORD_COMPILE_CACHE=off).
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => key === 'ACCORD_COMPILE_CACHE' || key === 'ACCORD_WARM_MODEL' || key === 'ACCORD_SMALL_HEAP' || key === 'ACCORD_WASM_TIER_UP')),
    // BENCH_NODE_OPTIONS: e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the agent processes (never the bench itself).
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  };
  let daemon: number | undefined;
  const daemonPid = () => (daemon ??= daemonPidOf(env));
  const results = new Map<Kind, Run[]>([['floor', []], ['no daemon', []], ['daemon', []], ['daemon (node bridge)', []], ['daemon, direct', []]]);
  try {
    // One discarded run each: the daemon starts, and every file is in the page cache.
    const kinds: Kind[] = ['floor', 'no daemon', 'daemon', 'daemon (node bridge)', 'daemon, direct'];
    for (const kind of kinds) await runOnce(kind, env, server, project, daemonPid);
    if (!daemonPid()) throw new Error('the daemon did not start');
    for (let i = 0; i < RUNS; i++) {
      // Rotate the order so no agent always runs right after another.
      for (let k = 0; k < kinds.length; k++) {
        const kind = kinds[(i + k) % kinds.length]!;
        results.get(kind)!.push(await runOnce(kind, env, server, project, daemonPid));
      }
    }
    const replay = await replayRate(join(home, 'replay'));
    console.log(table(results, replay));
    recordGoals(results, replay);
    console.log(`load average after: ${load()}`);
  } finally {
    execFileSync(process.execPath, [agentBundle, 'daemon', 'stop'], { env, stdio: 'ignore' });
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
