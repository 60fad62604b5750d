// `node --import tsx bench/sessionNew.bench.ts [bundle]`: how long
// `session/new` takes to answer on a 5,000-file git repository, and how long
// until the session's isolated copy is ready (the `session_info_update` that
// names the workspace; an agent that copies before answering has it in the
// response). Median of 5 sessions in one agent process (the first pays the
// one-time sandbox probe, so it is printed apart). `bundle` defaults to
// dist/agent.js; pass another build's to compare.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream } from '@agentclientprotocol/sdk';

const bundle = resolve(process.argv[2] ?? 'dist/agent.js');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

function repoWith(files: number, dir: string): void {
  mkdirSync(dir);
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(sub);
    writeFileSync(join(sub, `f${i}.txt`), `file ${i}\n`);
  }
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=B', ...args], { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
}

async function main(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'accord-bench-new-'));
  const project = join(home, 'project');
  repoWith(5000, project);
  const env = { PATH: process.env.PATH, HOME: home, ACCORD_CONFIG_DIR: join(home, 'config'), ACCORD_LOCAL_SERVERS: '' };
  const child = spawn(process.execPath, [bundle, 'acp', '--no-daemon'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const ready = new Map<string, number>();
  const app = client({ name: 'bench' }).onNotification(methods.client.session.update, ({ params }) => {
    const meta = (params.update as { _meta?: Record<string, unknown> })._meta;
    if (params.update.sessionUpdate === 'session_info_update' && meta?.['accord/workspace']) ready.set(params.sessionId, performance.now());
  });
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  try {
    await connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    console.log(`bundle ${bundle}; load average before: ${load()}`);
    const answered: number[] = [];
    const usable: number[] = [];
    for (let i = 0; i < 6; i++) {
      const started = performance.now();
      const created = await connection.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
      const answeredAt = performance.now();
      const inResponse = (created._meta as Record<string, unknown> | undefined)?.['accord/workspace'] !== undefined;
      while (!inResponse && !ready.has(created.sessionId)) await new Promise((r) => setTimeout(r, 5));
      const readyAt = inResponse ? answeredAt : ready.get(created.sessionId)!;
      console.log(`  session ${i + 1}${i === 0 ? ' (sandbox probe)' : ''}: answered ${(answeredAt - started).toFixed(0)} ms, copy ready ${(readyAt - started).toFixed(0)} ms`);
      if (i > 0) {
        answered.push(answeredAt - started);
        usable.push(readyAt - started);
      }
    }
    console.log(`session/new on 5,000 files: answered median ${median(answered).toFixed(0)} ms, copy ready median ${median(usable).toFixed(0)} ms; load average after: ${load()}`);
  } finally {
    connection.close();
    child.kill();
    await new Promise((r) => child.on('close', r));
    rmSync(home, { recursive: true, force: true });
  }
}

void main();
