// `npm run bench` (log part): on a 50,000-event session log, replay
// throughput (events/s), time to open the log for appending (lock + torn-tail
// check) and to replay it for session/load, listing cost, append throughput,
// and the log bytes one streamed agent_message_chunk costs as the writer laid it out.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore } from '../agent/log';
import { writeSessionLog } from './logFixture';
import { recordResult } from './results';

const EVENTS = 50_000;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'accord-log-bench-'));
  try {
    const store = new SessionStore(dataDir);
    const appendStart = performance.now();
    const { syncs, chunks } = await writeSessionLog(store, 'big', EVENTS);
    const appendMs = performance.now() - appendStart;
    const path = store.pathOf('big');
    const bytes = statSync(path).size;

    // CPU time next to wall time: on a shared 2-core machine, wall time mostly measures the neighbours.
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    // The first replay in a process also compiles the code (what a fresh `accord acp` pays once);
    // the daemon replays with it compiled: both are shown, the median of the warm ones is the figure.
    const replayOnce = async () => {
      const start = performance.now();
      const cpu = process.cpuUsage();
      const replay = await store.replay('big');
      return { ms: performance.now() - start, cpu: cpuMs(cpu), updates: replay.updates.length };
    };
    const cold = await replayOnce();
    const replayMs: number[] = [];
    const replayCpuMs: number[] = [];
    let updates = cold.updates;
    for (let i = 0; i < 5; i++) {
      const run = await replayOnce();
      replayMs.push(run.ms);
      replayCpuMs.push(run.cpu);
      updates = run.updates;
    }
    const openMs: number[] = [];
    const openCpuMs: number[] = [];
    for (let i = 0; i < 9; i++) {
      const start = performance.now();
      const cpu = process.cpuUsage();
      const opened = await store.open('big');
      openMs.push(performance.now() - start);
      openCpuMs.push(cpuMs(cpu));
      await opened.close();
    }
    const listCold: number[] = [];
    const listWarm: number[] = [];
    for (let i = 0; i < 3; i++) {
      rmSync(join(dataDir, 'sessions', 'index.json'), { force: true });
      let start = performance.now();
      await store.list();
      listCold.push(performance.now() - start);
      start = performance.now();
      await store.list();
      listWarm.push(performance.now() - start);
    }

    const chunkLine = chunks.lineBytes / chunks.count;
    const chunkText = chunks.textBytes / chunks.count;

    const r = median(replayMs);
    const rc = median(replayCpuMs);
    const perSecond = (ms: number) => Math.round(EVENTS / (ms / 1000)).toLocaleString('en');
    console.log(`session log, ${EVENTS} events, ${(bytes / 1e6).toFixed(1)} MB (${(bytes / EVENTS).toFixed(0)} B/event); load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores:`);
    console.log(`  replay (session/load: read + validate + rebuild): ${r.toFixed(0)} ms wall / ${rc.toFixed(0)} ms CPU, median of 5 → ${perSecond(r)} events/s wall, ${perSecond(rc)} events/s CPU (${updates} updates to re-send)`);
    console.log(`  the first replay in the process (code not yet compiled): ${cold.ms.toFixed(0)} ms wall / ${cold.cpu.toFixed(0)} ms CPU → ${perSecond(cold.ms)} events/s wall, ${perSecond(cold.cpu)} events/s CPU`);
    console.log(`  open for appending (lock + torn-tail check):      ${median(openMs).toFixed(2)} ms wall / ${median(openCpuMs).toFixed(2)} ms CPU, median of 9`);
    console.log(`  list, cold index / warm index:                    ${median(listCold).toFixed(0)} ms / ${median(listWarm).toFixed(2)} ms`);
    console.log(`  write (batched, fdatasync at ${syncs} turn ends and approvals): ${appendMs.toFixed(0)} ms → ${Math.round(EVENTS / (appendMs / 1000)).toLocaleString('en')} events/s`);
    const rate = (ms: number) => Math.round(EVENTS / (ms / 1000));
    recordResult({ id: 'replay', measured: `${rate(rc).toLocaleString('en')} events/s CPU, ${rate(r).toLocaleString('en')} wall; first replay in the process ${rate(cold.cpu).toLocaleString('en')} CPU`, met: rate(rc) >= 500_000, note: 'log.bench, median of 5 after the first' });
    recordResult({ id: 'logPerChunk', measured: `${chunkLine.toFixed(0)} B for ${chunkText.toFixed(0)} B of text (limit ${(2 * chunkText + 40).toFixed(0)} B)`, met: chunkLine <= 2 * chunkText + 40, note: `log.bench: ${chunks.count} chunks of a 50,000-event log` });
    console.log(`  one agent_message_chunk record, as written: ${chunkLine.toFixed(0)} B on average for ${chunkText.toFixed(0)} B of streamed text (overhead ${(chunkLine - chunkText).toFixed(0)} B; goal ≤ ${(2 * chunkText + 40).toFixed(0)} B), over the ${chunks.count} chunks of this log`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
