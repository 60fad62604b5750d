// `npm run bench` UI part (issue 17): from opening the Accord view in a real
// VS Code (code-server + Chromium, the test harness) to the panel's header
// saying "connected", and where that time goes, from the marks the extension
// logs (extension/startup/startupMarks.ts). A fresh server, profile and
// window per run, so each run is a cold activation; medians with the load
// average. Needs `node esbuild.mjs` first (npm run bench does it) and VS Code
// installed (npm run install:vscode); without it this part says so and skips.
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { openWorkbench, root, startServer, vscodePaths, webviewFrame } from '../scripts/vscode-harness.mjs';
import { recordResult } from './results';

const RUNS = Number(process.env.ACCORD_BENCH_RUNS ?? 3);
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Files under `dir` whose name ends with `suffix`. */
function findFiles(dir: string, suffix: string, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (statSync(path).isDirectory()) findFiles(path, suffix, out);
      else if (name.endsWith(suffix)) out.push(path);
    } catch {
      // removed meanwhile
    }
  }
  return out;
}

/** The marks line the extension logged, as name → ms since the view opened. */
async function startupMarks(dataDir: string): Promise<Map<string, number> | undefined> {
  for (let i = 0; i < 50; i += 1) {
    for (const file of findFiles(dataDir, 'Accord.log')) {
      const line = readFileSync(file, 'utf8').split('\n').find((l) => l.includes('startup, ms since'));
      if (!line) continue;
      const marks = new Map<string, number>();
      for (const m of line.matchAll(/([a-z][a-z ]+?) (\d+) \(([+-]?\d+)\)/g)) marks.set((m[1] as string).trim(), Number(m[3]));
      return marks;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return undefined;
}

async function once(): Promise<{ connected: number; marks: Map<string, number> | undefined }> {
  const server = await startServer({ smokeTestDriver: true });
  try {
    const workbench = await openWorkbench(server, {
      folder: join(root, 'test-workspace'),
      payload: [['extensionDevelopmentPath', server.remote(root)]],
      onLog: () => {},
    });
    try {
      const page = workbench.page;
      const icon = page.locator('.activitybar [aria-label^="Accord"]').first();
      await icon.waitFor({ timeout: 180_000 });
      // Let the workbench finish starting (its own restore and extension scan) before the clock starts.
      await page.waitForTimeout(3000);
      const started = Date.now();
      await icon.click();
      await webviewFrame(page).locator('#agent-status[data-state="connected"]').waitFor({ timeout: 120_000 });
      const connected = Date.now() - started;
      if (process.env.ACCORD_BENCH_SCREENSHOT) {
        mkdirSync(join(root, 'test-results'), { recursive: true });
        await page.screenshot({ path: join(root, 'test-results', 'bench-activation.png') });
      }
      return { connected, marks: await startupMarks(join(server.dirs.userDataDir, '..')) };
    } finally {
      await workbench.close();
    }
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  if (!vscodePaths().installed) {
    console.log('activation bench skipped: VS Code is not installed (npm run install:vscode)');
    return;
  }
  const runs: Array<Awaited<ReturnType<typeof once>>> = [];
  const loads: string[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    loads.push(load());
    runs.push(await once());
  }
  console.log(`Activation bench (issue 17): real VS Code ${vscodePaths().home.split('/').pop()}, fresh window per run, medians of ${RUNS}; load average per run: ${loads.join(' | ')}; now ${load()}`);
  console.log('| from clicking the Accord view to | median | runs |');
  console.log('|---|---|---|');
  const row = (label: string, values: number[]) => console.log(`| ${label} | ${median(values).toFixed(0)} ms | ${values.map((v) => v.toFixed(0)).join(', ')} |`);
  row('panel header "connected" (Playwright, wall)', runs.map((r) => r.connected));
  const connected = median(runs.map((r) => r.connected));
  recordResult({ id: 'activation', measured: `${connected.toFixed(0)} ms (wall)`, met: connected <= 1000 });
  const names = new Set<string>();
  for (const r of runs) for (const name of r.marks?.keys() ?? []) names.add(name);
  console.log('| extension marks, ms after the view was resolved: | | |');
  for (const name of names) {
    const values = runs.map((r) => r.marks?.get(name)).filter((v): v is number => v !== undefined);
    if (values.length) row(name, values);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
