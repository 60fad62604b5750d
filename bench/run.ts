// `npm run bench`: every bench script in turn (a failing one does not stop
// the others), then one table of every issue-17 goal with what was measured,
// whether it is met and the load average at the time (bench/results.ts).
// Exits non-zero when a script failed. Expects dist/ built (the npm script builds it first).
// ACCORD_BENCH_STEPS=agent,log,...: only those steps; ACCORD_BENCH_AGENT_RUNS: runs per agent in agent.bench (default 8).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readResults, summaryTable } from './results';

const tsx = (script: string) => [process.execPath, '--import', 'tsx', script];
const steps: Array<[string, string[]]> = [
  ['agent', [...tsx('bench/agent.bench.ts'), ...(process.env.ACCORD_BENCH_AGENT_RUNS ? [process.env.ACCORD_BENCH_AGENT_RUNS] : [])]],
  ['bridge', tsx('bench/bridge.bench.ts')],
  ['log', tsx('bench/log.bench.ts')],
  ['resume', tsx('bench/resume.bench.ts')],
  ['webview', tsx('bench/webview.bench.ts')],
  ['output', tsx('bench/output.bench.ts')],
  // The UI part as its owner defines it (package.json bench:ui).
  ['ui', [process.platform === 'win32' ? 'npm.cmd' : 'npm', 'run', '-s', 'bench:ui']],
];

function run(command: string[], env: NodeJS.ProcessEnv): Promise<number | string> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit', env });
    child.on('error', (error) => resolve(error.message));
    child.on('close', (code, signal) => resolve(signal ?? code ?? 1));
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'accord-bench-results-'));
  const file = join(dir, 'results.jsonl');
  const env = { ...process.env, ACCORD_BENCH_RESULTS: file };
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
  const failed: string[] = [];
  try {
    const before = load();
    const only = process.env.ACCORD_BENCH_STEPS?.split(',').map((s) => s.trim());
    for (const [name, command] of steps.filter(([name]) => !only || only.includes(name))) {
      console.log(`\n== bench: ${name} (load ${load()})`);
      const status = await run(command, env);
      if (status !== 0) {
        failed.push(`${name} (${typeof status === 'number' ? `exit ${status}` : status})`);
        console.log(`== bench: ${name} failed: ${status}`);
      }
    }
    console.log(`\n== issue 17 goals: ${cpus().length} cores; load average before ${before}, after ${load()}`);
    console.log(summaryTable(readResults(file), failed));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (failed.length > 0) process.exitCode = 1;
}

void main();
