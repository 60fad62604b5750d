// doStream alone, the SDK's openai-compatible chat model against ours
// (agent/models/chat/), in fresh processes interleaved: per process, the
// module load, the first call (cold: everything compiled on first use, as in
// an agent's first prompt) and a warm call (the fifth), each from doStream to
// the first text-delta and to the stream's end, over modelFetch against the
// fake model server streaming 200 chunks.
// `node --import tsx bench/chatModelStream.bench.ts [runs]` (default 10).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '../test/fakeModelServer/index';
import { CHUNKS } from './streamedTurn';
import { delta } from './logFixture';

const RUNS = Number(process.argv[2] ?? 10);
const CALLS = 5;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

type Sample = { load: number; first: { firstDelta: number; end: number }; warm: { firstDelta: number; end: number } };

async function main(): Promise<void> {
  const server = await startFakeModelServer();
  const child = join(process.cwd(), 'bench', 'chatModelStream.child.ts');
  const samples: Record<'sdk' | 'lean', Sample[]> = { sdk: [], lean: [] };
  console.log(`doStream, ${RUNS} fresh processes each, interleaved; load average before: ${load()}`);
  for (let run = 0; run < RUNS; run++) {
    for (const which of run % 2 === 0 ? (['sdk', 'lean'] as const) : (['lean', 'sdk'] as const)) {
      for (let i = 0; i < CALLS; i++) server.script({ type: 'stream', parts: Array.from({ length: CHUNKS }, (_, n) => ({ text: delta(n) })) });
      // Not spawnSync: the fake server answers from this process's event loop.
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/support/providerUtilsHeaders.mjs', child, which, server.baseUrl, String(CALLS)], { encoding: 'utf8' });
      samples[which].push(JSON.parse(stdout) as Sample);
    }
  }
  const row = (label: string, pick: (s: Sample) => number) => `| ${label} | ${median(samples.sdk.map(pick)).toFixed(1)} | ${median(samples.lean.map(pick)).toFixed(1)} | ${(median(samples.lean.map(pick)) / median(samples.sdk.map(pick))).toFixed(2)} |`;
  console.log('| median (ms) | SDK | lean | lean/SDK |\n|---|---|---|---|');
  console.log(row('module load', (s) => s.load));
  console.log(row('first call: doStream -> first text-delta', (s) => s.first.firstDelta));
  console.log(row('first call: doStream -> end of stream', (s) => s.first.end));
  console.log(row(`warm call (#${CALLS}): -> first text-delta`, (s) => s.warm.firstDelta));
  console.log(row(`warm call (#${CALLS}): -> end of stream`, (s) => s.warm.end));
  console.log(`load average after: ${load()}`);
  await server.close();
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

