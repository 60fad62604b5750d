// `npm run bench` (resume part): on a 50,000-event session log, replay
// throughput through the protocol, the way a client gets it: v1
// session/load, v2 session/resume from the start, and v2 resume after an
// offset in the middle (the first half folded, the second sent). Measured
// from the request to its response, with every update received by the SDK
// client in memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v1 from '@agentclientprotocol/sdk/unstable';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { createLoggedAgent } from '../agent/acp/sessionLog';
import { ProcessRunner } from '../agent/exec/processRunner';
import { SessionStore } from '../agent/log';
import { builtinTools } from '../agent/tools/index';
import { inMemoryV2 } from '../test/unit/agent/v2Harness';
import { turn } from './logFixture';

const EVENTS = 50_000;
const ID = '00000000-0000-4000-8000-00000000b16b';
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** CPU time next to wall time: on a shared machine, wall time mostly measures the neighbours (agent and client share this process). */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

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
    const env = { PATH: process.env.PATH, ACCORD_LOCAL_SERVERS: '', ANTHROPIC_API_KEY: 'unused' };
    const { app, closeLogs } = createLoggedAgent({ env, tools: builtinTools(), commands: new ProcessRunner() }, new SessionStore(dataDir));

    const v2Client = inMemoryV2(app);
    await v2Client.initialize(2);
    const timeV2 = async (replayFrom: unknown) => {
      const from = v2Client.updates.length;
      const start = performance.now();
      const cpu = process.cpuUsage();
      await v2Client.connection.agent.request(v2.methods.agent.session.resume, { sessionId: ID, cwd, replayFrom: replayFrom as never });
      return { ms: performance.now() - start, cpuMs: cpuMs(cpu), updates: v2Client.updates.length - from };
    };
    const runs = async (replayFrom: unknown) => {
      const results = [];
      for (let i = 0; i < 3; i++) results.push(await timeV2(replayFrom));
      return { ms: median(results.map((r) => r.ms)), cpuMs: median(results.map((r) => r.cpuMs)), updates: results[0]!.updates };
    };
    const fromStart = await runs({ type: 'start' });
    const afterMiddle = await runs({ type: '_accord_offset', after: middle });
    const none = await runs(null);
    await v2Client.close();

    const v1Updates: number[] = [];
    const v1Client = v1.client({ name: 'bench' }).onNotification(v1.methods.client.session.update, () => void v1Updates.push(1));
    const connection = v1Client.connect(createLoggedAgent({ env, tools: builtinTools(), commands: new ProcessRunner() }, new SessionStore(dataDir)).app);
    await closeLogs();
    await connection.agent.request(v1.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const v1Ms: number[] = [];
    const v1Cpu: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      const cpu = process.cpuUsage();
      await connection.agent.request(v1.methods.agent.session.load, { sessionId: ID, cwd, mcpServers: [] });
      v1Ms.push(performance.now() - start);
      v1Cpu.push(cpuMs(cpu));
    }
    connection.close();

    const rate = (count: number, ms: number) => Math.round(count / (ms / 1000)).toLocaleString('en');
    console.log(`resume/replay through the protocol, ${EVENTS}-event log (${replay.updates.length} replayable updates); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores, median of 3:`);
    const line = (what: string, ms: number, cpu: number, sent: number, note = '') =>
      console.log(`  ${what.padEnd(36)} ${ms.toFixed(0)} ms wall / ${cpu.toFixed(0)} ms CPU → ${rate(EVENTS, ms)} log events/s wall, ${rate(EVENTS, cpu)} CPU; ${sent} updates sent${note}`);
    line('v1 session/load (from the start)', median(v1Ms), median(v1Cpu), v1Updates.length / 3);
    line('v2 resume {"type":"start"}', fromStart.ms, fromStart.cpuMs, fromStart.updates);
    line('v2 resume after the middle offset', afterMiddle.ms, afterMiddle.cpuMs, afterMiddle.updates, ' (the first half folded)');
    line('v2 resume with no cursor', none.ms, none.cpuMs, none.updates, ' (no replay: the state only)');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

void main();
