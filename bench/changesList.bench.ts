// `node --import tsx bench/changesList.bench.ts [agent module dir]`: what
// `_accord/changes/list` costs on a 5,000-file repository (one file changed):
// the first list of a session, then the median of 10 more. Prints the load
// average with the figures. The module dir defaults to agent/session; pass
// another checkout's (e.g. agent/workspace on an older tree) to compare.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

async function main(): Promise<void> {
  const moduleDir = resolve(process.argv[2] ?? 'agent/session');
  const { createWorkspace } = await import(join(moduleDir, 'isolated.ts'));
  const { listChanges } = await import(join(moduleDir, 'isolatedDiff.ts'));

  const dir = mkdtempSync(join(tmpdir(), 'accord-bench-list-'));
  try {
    const project = join(dir, 'project');
    for (let i = 0; i < 5000; i++) {
      const folder = join(project, `pkg${i % 50}`, `mod${i % 7}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `file${i}.ts`), `export const value${i} = ${i};\n`.repeat(20));
    }
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=B', ...args], { cwd: project, stdio: 'pipe' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'start');
    const ws = await createWorkspace({ sessionId: 'bench', source: project, dataDir: join(dir, 'data') });
    writeFileSync(join(ws.root, 'pkg1', 'mod1', 'file1.ts'), 'changed\n');
    let started = performance.now();
    const first = await listChanges(ws);
    const firstMs = performance.now() - started;
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      started = performance.now();
      await listChanges(ws);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const load = loadavg().map((n) => n.toFixed(2)).join(' ');
    console.log(`changes/list on 5,000 files (${first.length} changed), ${moduleDir}: first ${firstMs.toFixed(0)} ms, median of 10 ${times[5]!.toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${times[9]!.toFixed(0)}); load average ${load}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
