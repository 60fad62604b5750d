// `npm run bench` (resume part): on a 50,000-event session log, replay
// throughput of the agent through the protocol: v1 session/load, v2
// session/resume from the start, after an offset in the middle (the first
// half folded) and with no cursor. The client is a raw JSON-RPC reader on an
// in-memory stream behind the version router (as `accord acp` serves), so
// the figures are the agent's work, not a client library's validation.
// Last, the same v1 load from the built agent as an editor runs it (dist/agent.js
// acp --no-daemon over stdio, BENCH_DIST=<dir> for another build): the
// figure a person waits for, JSON and pipe writes included; its CPU time is
// the agent process's own (/proc), the client's parsing not counted.
// ACCORD_BENCH_V1_ONLY=1 / ACCORD_BENCH_V2_ONLY=1: only the in-memory v1 load / v2 resume from
// the start (for profiling with --cpu-prof).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyMessage } from '@agentclientprotocol/sdk/unstable';
import { createLoggedAgent } from '../agent/acp/sessionLog';
import { serveVersions } from '../agent/acp/versions';
import { ProcessRunner } from '../agent/exec/processRunner';
import { SessionStore } from '../agent/log';
import { builtinTools } from '../agent/tools/index';
import { streamPair } from '../test/unit/agent/v2Harness';
import { turn } from './logFixture';
import { rawConnection as stdioConnection } from './rawAcp';
import { recordResult } from './results';

const EVENTS = Number(process.env.ACCORD_BENCH_EVENTS ?? 50_000);
const ID = '00000000-0000-4000-8000-00000000b16b';
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** CPU time next to wall time: on a shared machine, wall time mostly measures the neighbours. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** A connection to a fresh logged agent on `dataDir`: requests answered, notifications counted. */
function rawConnection(dataDir: string) {
  const env = { PATH: process.env.PATH, ACCORD_LOCAL_SERVERS: '', ANTHROPIC_API_KEY: 'unused' };
  const { app, closeLogs } = createLoggedAgent({ env, tools: builtinTools(), commands: new ProcessRunner() }, new SessionStore(dataDir));
  const pair = streamPair();
  const served = serveVersions(app, pair.agent);
  const writer = pair.client.writable.getWriter();
  const reader = pair.client.readable.getReader();
  let id = 0;
  return {
    /** The response, and how many notifications came before it. */
    async request(method: string, params: unknown): Promise<{ result: any; notifications: number }> {
      id += 1;
      await writer.write({ jsonrpc: '2.0', id, method, params } as AnyMessage);
      let notifications = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the agent closed the connection');
        const message = value as { id?: unknown; method?: string; result?: unknown; error?: { message: string } };
        if (message.id === id && message.method === undefined) {
          if (message.error) throw new Error(message.error.message);
          return { result: message.result, notifications };
        }
        if (message.method === 'session/update') notifications++;
      }
    },
    async close() {
      pair.end();
      await served.closed;
      await closeLogs();
    },
  };
}

/** CPU time (user + system) of process `pid` so far, in ms (Linux /proc; NaN elsewhere). */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** v1 session/load from the built agent over stdio: the first load in the process, then the median of 3 more. */
async function measureProcess(dataDir: string, cwd: string) {
  const bundle = join(process.env.BENCH_DIST ?? join(process.cwd(), 'dist'), 'agent.js');
  const env = { PATH: process.env.PATH, HOME: dataDir, ACCORD_HOME: dataDir, ACCORD_CONFIG_DIR: join(dataDir, 'config'), ACCORD_LOCAL_SERVERS: '', ANTHROPIC_API_KEY: 'unused' };
  const child = spawn(process.execPath, [bundle, 'acp', '--no-daemon'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const acp = stdioConnection(child);
  try {
    let sent = 0;
    acp.onUpdate = () => void sent++;
    await acp.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const runs: Array<{ ms: number; cpu: number; sent: number }> = [];
    for (let i = 0; i < 4; i++) {
      sent = 0;
      const cpu = processCpuMs(child.pid!);
      const start = performance.now();
      await acp.request('session/load', { sessionId: ID, cwd, mcpServers: [] });
      runs.push({ ms: performance.now() - start, cpu: processCpuMs(child.pid!) - cpu, sent });
    }
    const warm = runs.slice(1);
    return { first: runs[0]!, warm: { ms: median(warm.map((r) => r.ms)), cpu: median(warm.map((r) => r.cpu)), sent: warm[0]!.sent } };
  } finally {
    await acp.close();
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'accord-resume-bench-'));
  const cwd = mkdtempSync(join(tmpdir(), 'accord-resume-bench-cwd-'));
  try {
    const store = new SessionStore(dataDir);
    const log = await store.create({ id: ID, cwd, agentVersion: 'bench', config: { model: 'anthropic:claude-sonnet-4-5' } });
    let written = 1;
    for (let n = 0; written < EVENTS; n++) {
      for (const event of turn(n)) {
        if (written >= EVENTS) break;
        log.append(event);
        written++;
      }
    }
    await log.close();
    const replay = await store.replay(ID);
    const middle = replay.updates[Math.floor(replay.updates.length / 2)]!.offset;

    const measure = async (version: 1 | 2, method: string, params: Record<string, unknown>) => {
      const connection = rawConnection(dataDir);
      try {
        await connection.request('initialize', version === 1 ? { protocolVersion: 1, clientCapabilities: {} } : { protocolVersion: 2, info: { name: 'bench', version: '1' } });
        const runs: Array<{ ms: number; cpu: number; sent: number }> = [];
        for (let i = 0; i < 3; i++) {
          const start = performance.now();
          const cpu = process.cpuUsage();
          const { notifications } = await connection.request(method, { sessionId: ID, cwd, ...params });
          runs.push({ ms: performance.now() - start, cpu: cpuMs(cpu), sent: notifications });
        }
        return { ms: median(runs.map((r) => r.ms)), cpu: median(runs.map((r) => r.cpu)), sent: runs[0]!.sent };
      } finally {
        await connection.close();
      }
    };
    const load = loadavg().map((l) => l.toFixed(1)).join(' ');
    if (process.env.ACCORD_BENCH_V2_ONLY) {
      const v2 = await measure(2, 'session/resume', { replayFrom: { type: 'start' } });
      return void console.log(`v2 session/resume from the start: ${v2.ms.toFixed(0)} ms wall / ${v2.cpu.toFixed(0)} ms CPU`);
    }
    const v1 = await measure(1, 'session/load', { mcpServers: [] });
    if (process.env.ACCORD_BENCH_V1_ONLY) return void console.log(`v1 session/load: ${v1.ms.toFixed(0)} ms wall / ${v1.cpu.toFixed(0)} ms CPU`);
    const fromStart = await measure(2, 'session/resume', { replayFrom: { type: 'start' } });
    const afterMiddle = await measure(2, 'session/resume', { replayFrom: { type: '_accord_offset', after: middle } });
    const none = await measure(2, 'session/resume', {});

    const rate = (count: number, ms: number) => Math.round(count / (ms / 1000)).toLocaleString('en');
    console.log(`resume/replay through the protocol, ${EVENTS}-event log (${replay.updates.length} replayable updates); load average ${load} → ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores, median of 3:`);
    const line = (what: string, r: { ms: number; cpu: number; sent: number }, note = '') => {
      console.log(`  ${what.padEnd(36)} ${r.ms.toFixed(0)} ms wall / ${r.cpu.toFixed(0)} ms CPU → ${rate(EVENTS, r.ms)} log events/s wall, ${rate(EVENTS, r.cpu)} CPU; ${r.sent} updates sent${note}`);
      recordResult({ id: `${what}, ${EVENTS.toLocaleString('en')}-event log, through the protocol`, measured: `${rate(EVENTS, r.cpu)} log events/s CPU, ${rate(EVENTS, r.ms)} wall; ${r.sent} updates sent` });
    };
    line('v1 session/load (from the start)', v1);
    line('v2 resume {"type":"start"}', fromStart);
    line('v2 resume after the middle offset', afterMiddle, ' (the first half folded)');
    line('v2 resume with no cursor', none, ' (no replay: the state only)');
    const agent = await measureProcess(dataDir, cwd);
    console.log(`the built agent (acp --no-daemon) over stdio, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}:`);
    line('v1 session/load, first in the process', agent.first);
    line('v1 session/load, median of 3 more', agent.warm);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

void main();
