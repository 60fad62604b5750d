// `npm run bench` (log part): on a 50,000-event session log, replay
// throughput (events/s), time to open the log for appending (lock + torn-tail
// check) and to replay it for session/load, listing cost, append throughput,
// and the log bytes one streamed agent_message_chunk costs.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore, type LogEvent } from '../agent/log';

const EVENTS = 50_000;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const WORDS = 'the function returns a promise that resolves once every pending record is written to disk and synced'.split(' ');

/** A streamed text delta as providers send them: a few words. */
function delta(i: number): string {
  const n = 2 + (i % 4);
  return `${Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k) % WORDS.length]).join(' ')} `;
}

function chunkEvent(i: number, messageId: string): LogEvent {
  return { type: 'update', update: { sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: delta(i) } } };
}

/** One turn of about 100 records: prompt, thoughts, a tool call with approval and diff, a streamed answer, usage. */
function turn(n: number): LogEvent[] {
  const messageId = randomUUID();
  const callId = `toolu_${n.toString(36).padStart(10, '0')}`;
  const diff = { type: 'diff', path: `/work/project/src/file${n}.ts`, oldText: 'const a = 1;\n'.repeat(20), newText: 'const a = 2;\n'.repeat(20) };
  const answer = Array.from({ length: 80 }, (_, i) => chunkEvent(n * 100 + i, messageId));
  return [
    { type: 'turn_start' },
    { type: 'user_prompt', prompt: [{ type: 'text', text: `Please change a in file${n}.ts and explain why` }] },
    { type: 'model_message', message: { role: 'user', content: [{ type: 'text', text: `Please change a in file${n}.ts and explain why` }] } },
    ...Array.from({ length: 8 }, (_, i): LogEvent => ({ type: 'update', update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: delta(i) } } })),
    { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: callId, title: `Edit file${n}.ts`, kind: 'edit', status: 'pending', content: [diff] } },
    { type: 'permission_request', toolCallId: callId, request: { toolCall: { toolCallId: callId }, options: [{ optionId: 'allow', kind: 'allow_once', name: 'Allow' }, { optionId: 'reject', kind: 'reject_once', name: 'Reject' }] } },
    { type: 'permission_answer', toolCallId: callId, outcome: { outcome: 'selected', optionId: 'allow' } },
    { type: 'tool_io', toolCallId: callId, toolName: 'edit_file', input: { path: `src/file${n}.ts`, oldText: 'const a = 1;', newText: 'const a = 2;' }, output: 'Edited src/file.ts (20 replacements)' },
    { type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'completed', content: [diff] } },
    { type: 'model_message', message: { role: 'assistant', content: [{ type: 'tool-call', toolCallId: callId, toolName: 'edit_file', input: { path: `src/file${n}.ts` } }] } },
    { type: 'model_message', message: { role: 'tool', content: [{ type: 'tool-result', toolCallId: callId, toolName: 'edit_file', output: { type: 'text', value: 'Edited' } }] } },
    ...answer,
    { type: 'model_message', message: { role: 'assistant', content: [{ type: 'text', text: answer.map((_, i) => delta(n * 100 + i)).join('') }] } },
    { type: 'update', update: { sessionUpdate: 'usage_update', used: 1000 + n, size: 200_000, cost: { amount: 0.001 * n, currency: 'USD' } } },
    { type: 'usage', usage: { inputTokens: 1000 + n, outputTokens: 240, cachedInputTokens: 800 } },
    { type: 'turn_end', stopReason: 'end_turn' },
  ];
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'accord-log-bench-'));
  try {
    const store = new SessionStore(dataDir);
    const log = await store.create({ id: 'big', cwd: '/work/project', agentVersion: 'bench', config: { model: 'anthropic/claude-sonnet' } });
    let written = 1;
    let syncs = 0;
    const appendStart = performance.now();
    for (let n = 0; written < EVENTS; n++) {
      for (const event of turn(n)) {
        if (written >= EVENTS) break;
        const durable = event.type === 'turn_end' || event.type === 'permission_answer';
        log.append(event, { durable });
        syncs += durable ? 1 : 0;
        written++;
      }
      await log.sync();
    }
    await log.close();
    const appendMs = performance.now() - appendStart;
    const path = store.pathOf('big');
    const bytes = statSync(path).size;

    // CPU time next to wall time: on a shared 2-core machine, wall time mostly measures the neighbours.
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    const replayMs: number[] = [];
    const replayCpuMs: number[] = [];
    let updates = 0;
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      const cpu = process.cpuUsage();
      const replay = await store.replay('big');
      replayMs.push(performance.now() - start);
      replayCpuMs.push(cpuMs(cpu));
      updates = replay.updates.length;
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

    const messageId = randomUUID();
    const chunkBytes = Array.from({ length: 1000 }, (_, i) => {
      const event = chunkEvent(i, messageId);
      return Buffer.byteLength(`${JSON.stringify({ seq: 123456, ts: new Date().toISOString(), ...event })}\n`);
    });
    const textBytes = Array.from({ length: 1000 }, (_, i) => Buffer.byteLength(delta(i)));
    const avg = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

    const r = median(replayMs);
    const rc = median(replayCpuMs);
    const perSecond = (ms: number) => Math.round(EVENTS / (ms / 1000)).toLocaleString('en');
    console.log(`session log, ${EVENTS} events, ${(bytes / 1e6).toFixed(1)} MB (${(bytes / EVENTS).toFixed(0)} B/event); load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores:`);
    console.log(`  replay (session/load: read + validate + rebuild): ${r.toFixed(0)} ms wall / ${rc.toFixed(0)} ms CPU, median of 5 → ${perSecond(r)} events/s wall, ${perSecond(rc)} events/s CPU (${updates} updates to re-send)`);
    console.log(`  open for appending (lock + torn-tail check):      ${median(openMs).toFixed(2)} ms wall / ${median(openCpuMs).toFixed(2)} ms CPU, median of 9`);
    console.log(`  list, cold index / warm index:                    ${median(listCold).toFixed(0)} ms / ${median(listWarm).toFixed(2)} ms`);
    console.log(`  write (batched, fdatasync at ${syncs} turn ends and approvals): ${appendMs.toFixed(0)} ms → ${Math.round(EVENTS / (appendMs / 1000)).toLocaleString('en')} events/s`);
    console.log(`  one agent_message_chunk record: ${avg(chunkBytes).toFixed(0)} B on average for ${avg(textBytes).toFixed(0)} B of streamed text (overhead ${(avg(chunkBytes) - avg(textBytes)).toFixed(0)} B)`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
