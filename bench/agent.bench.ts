// `npm run bench`: the bundled agent's cold start (spawn → initialize
// response, median of 10) and the latency it adds to each streamed chunk
// (fake server writes an SSE event → the client receives agent_message_chunk).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream } from '@agentclientprotocol/sdk';
import { startFakeModelServer } from '../test/fakeModelServer/index';

const agentBundle = join(process.cwd(), 'dist/agent.js');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

async function coldStartMs(env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [agentBundle, 'acp', '--no-daemon'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
  const elapsed = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('\n')) resolve(performance.now() - started);
    });
    child.on('error', reject);
  });
  child.kill();
  await new Promise((resolve) => child.on('close', resolve));
  return elapsed;
}

/** The same measurement for a bare node that answers at once: the floor the agent cannot beat. */
async function bareNodeMs(env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', 'process.stdin.once("data", () => process.stdout.write("{}\\n"))'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.write('{}\n');
  const elapsed = await new Promise<number>((resolve) => child.stdout.once('data', () => resolve(performance.now() - started)));
  child.kill();
  await new Promise((resolve) => child.on('close', resolve));
  return elapsed;
}

async function chunkLatency(env: NodeJS.ProcessEnv, cwd: string, chunks: number, paceMs: number): Promise<number[]> {
  const server = await startFakeModelServer();
  const child = spawn(process.execPath, [agentBundle, 'acp'], {
    env: { ...env, ACCORD_MODEL: `openai-compatible:${server.baseUrl}#bench` },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const received: number[] = [];
  const app = client({ name: 'bench' }).onNotification(methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === 'agent_message_chunk') received.push(performance.now());
  });
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  try {
    await connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    const firstEvent = server.sentAt.length;
    server.script({ type: 'stream', parts: Array.from({ length: chunks }, (_, i) => ({ text: `chunk ${i} ` })), delayMs: paceMs });
    await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'stream' }] });
    // Chat-completions format: text part i is SSE event i of the request.
    const sent = server.sentAt.slice(firstEvent, firstEvent + chunks);
    return received.map((at, i) => at - sent[i]!);
  } finally {
    connection.close();
    child.kill();
    await server.close();
  }
}

async function main(): Promise<void> {
  // Wall-clock numbers on a shared 2-core machine move with its load; print it next to them.
  console.log(`load average before: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const home = mkdtempSync(join(tmpdir(), 'accord-bench-'));
  const env = { PATH: process.env.PATH, HOME: home, ACCORD_CONFIG_DIR: home, ACCORD_LOCAL_SERVERS: '' };
  try {
    const starts: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < 10; i++) {
      starts.push(await coldStartMs(env));
      bare.push(await bareNodeMs(env));
    }
    console.log(`agent cold start to initialize response: median ${median(starts).toFixed(1)} ms (10 runs: ${starts.map((s) => s.toFixed(0)).join(', ')}); bare node round trip on this machine: median ${median(bare).toFixed(1)} ms`);

    const chunks = 200;
    const paceMs = 5;
    // The session's project sits beside the agent's data dir (in HOME), never around it.
    const project = join(home, 'project');
    mkdirSync(project);
    const added = await chunkLatency(env, project, chunks, paceMs);
    console.log(
      `agent added latency per streamed chunk (${added.length}/${chunks} chunks, server pace ${paceMs} ms): ` +
        `median ${median(added).toFixed(2)} ms, p95 ${percentile(added, 0.95).toFixed(2)} ms, max ${Math.max(...added).toFixed(2)} ms`,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

void main();
