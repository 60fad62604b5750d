// The bridge's cold start: spawn `accord acp` with the daemon already running
// → the `initialize` response, against a bare Node process printing one line
// (median of 21 each, alternated). Also the daemon's resident memory when
// idle. Prints the load average with every figure.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordResult } from './results';

const cli = join(process.cwd(), 'dist/agent.js');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

function firstLineMs(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
  if (input) child.stdin.write(input);
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('\n')) {
        const elapsed = performance.now() - started;
        child.stdin.end();
        child.kill();
        child.on('close', () => resolve(elapsed));
      }
    });
    child.on('error', reject);
  });
}

async function main(): Promise<void> {
const home = mkdtempSync(join(tmpdir(), 'accord-bench-bridge-'));
const env = { PATH: process.env.PATH, HOME: home, ACCORD_HOME: join(home, 'data'), ACCORD_CONFIG_DIR: home, ACCORD_LOCAL_SERVERS: '' };
const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;
try {
  const firstStart = await firstLineMs([cli, 'acp'], env, initialize);
  console.log(`first bridge, daemon not running (starts it): ${firstStart.toFixed(1)} ms  (load ${load()})`);
  const bridge: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 21; i++) {
    bare.push(await firstLineMs(['-e', 'console.log(1)'], env));
    bridge.push(await firstLineMs([cli, 'acp'], env, initialize));
  }
  console.log(`bridge cold start to initialize response: median ${median(bridge).toFixed(1)} ms  (load ${load()})`);
  console.log(`bare node printing one line:               median ${median(bare).toFixed(1)} ms  (load ${load()})`);
  const overhead = median(bridge) - median(bare);
  console.log(`bridge overhead: ${overhead.toFixed(1)} ms (target: within 20 ms)`);
  recordResult({ id: 'bridge overhead over bare node (daemon running): ≤ 20 ms', measured: `${overhead.toFixed(1)} ms (bridge ${median(bridge).toFixed(1)} ms, bare node ${median(bare).toFixed(1)} ms)`, met: overhead <= 20 });
  const lock = JSON.parse(readFileSync(join(home, 'data', 'run', 'daemon.lock'), 'utf8')) as { pid: number };
  await new Promise((r) => setTimeout(r, 2000));
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${lock.pid}/status`, 'utf8'))?.[1];
  console.log(`daemon idle RSS: ${(Number(rss) / 1024).toFixed(1)} MiB  (load ${load()})`);
  recordResult({ id: 'daemon idle RSS', measured: `${(Number(rss) / 1024).toFixed(1)} MiB` });
} finally {
  await new Promise((resolve) => spawn(process.execPath, [cli, 'daemon', 'stop'], { env, stdio: 'ignore' }).on('close', resolve));
  rmSync(home, { recursive: true, force: true });
}
}

void main();
