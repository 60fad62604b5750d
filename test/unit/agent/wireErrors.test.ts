// The bundled agent (dist/agent.js acp --no-daemon, whose ACP SDK schemas are
// built on first use: scripts/lazySdkSchemas.mjs) answers raw JSON-RPC lines
// exactly as the agent built from source does: requests before initialize,
// invalid params, unknown methods, notifications, batches, responses to
// nothing and a repeated initialize get the same answers, byte for byte
// once the build's version string is set aside.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ndJsonStream } from '@agentclientprotocol/sdk/unstable';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { guardLines, MAX_LINE_BYTES } from '../../../agent/acp/lineGuard';
import { serveVersions } from '../../../agent/acp/versions';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { SessionWorkspaces } from '../../../agent/session/workspaces';
import { builtinTools } from '../../../agent/tools/index';
import { agentBundle, ensureAgentBundle, isolatedEnv, tempDir } from './harness';

/** Sent at once; the last request's answer ends the conversation. */
const script = (cwd: string): string[] => [
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd, mcpServers: [] } }),
  JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: 'not an object', clientInfo: 5 } }),
  JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'no/such_method', params: {} }),
  JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'session/new', params: { cwd: 5 } }),
  JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'session/new' }),
  JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'session/prompt', params: { sessionId: 's', prompt: 'not a list' } }),
  JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'session/prompt', params: { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] } }),
  JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'session/prompt', params: { sessionId: 'nope', prompt: [{ type: 'video', url: 'x' }] } }),
  JSON.stringify({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 5 } }),
  JSON.stringify({ jsonrpc: '2.0', method: 'no/such_notification', params: {} }),
  JSON.stringify([{ jsonrpc: '2.0', id: 9, method: 'no/such_method' }]),
  JSON.stringify({ jsonrpc: '2.0', id: 10 }),
  JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'session/set_mode', params: { sessionId: 'x' } }),
  JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'session/set_config_option', params: { sessionId: 'x', configId: 'model', value: 7 } }),
  JSON.stringify({ jsonrpc: '2.0', id: 13, method: '_accord/no_such_method', params: {} }),
  JSON.stringify({ jsonrpc: '2.0', id: 99, result: {} }),
  JSON.stringify({ jsonrpc: '1.0', id: 14, method: 'initialize', params: { protocolVersion: 1 } }),
  JSON.stringify({ jsonrpc: '2.0', id: 15, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } } }),
  JSON.stringify({ jsonrpc: '2.0', id: 16, method: 'session/new', params: { cwd: 'relative', mcpServers: [] } }),
  JSON.stringify({ jsonrpc: '2.0', id: 17, method: 'session/new', params: { cwd, mcpServers: [{ name: 'x' }] } }),
  JSON.stringify({ jsonrpc: '2.0', id: 18, method: 'no/such_method' }),
];

/** Runs the script against an agent's stdin/stdout; returns every line it wrote, parsed, with the build's version set aside. */
async function converse(lines: string[], write: (line: string) => void, output: AsyncIterable<string>, end: () => void): Promise<unknown[]> {
  const received: unknown[] = [];
  const iterator = output[Symbol.asyncIterator]();
  const lastId = 18;
  for (const line of lines) write(`${line}\n`);
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    const message = JSON.parse(next.value) as { id?: unknown; result?: { agentInfo?: { version?: string } } };
    if (message.result?.agentInfo) message.result.agentInfo.version = '<version>';
    received.push(message);
    if (message.id === lastId) break;
  }
  end();
  // Requests run concurrently, so answers may leave in another order: compared as a set.
  return received.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

async function* linesOf(chunks: AsyncIterable<Uint8Array | string>): AsyncIterable<string> {
  let buffered = '';
  const decoder = new TextDecoder();
  for await (const chunk of chunks) {
    buffered += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim()) yield line;
    }
  }
}

/** The answers of the agent built from source, wired as agent/main.ts wires it. */
async function fromSource(dataDir: string, env: Record<string, string | undefined>, lines: string[]): Promise<unknown[]> {
  const logs = new SessionStore(dataDir);
  const isolation = new SessionWorkspaces({ dataDir, alwaysApprove: false });
  const { app, closeLogs } = createLoggedAgent({ env, tools: builtinTools(), commands: new ProcessRunner(), isolation }, logs);
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const output = new TransformStream<Uint8Array, Uint8Array>();
  const stdio = guardLines(input.readable, output.writable);
  const closed = serveVersions(app, ndJsonStream(stdio.output, stdio.input, { maxMessageBytes: MAX_LINE_BYTES + 1 })).closed;
  const writer = input.writable.getWriter();
  const encoder = new TextEncoder();
  const answers = await converse(lines, (line) => void writer.write(encoder.encode(line)), linesOf(output.readable), () => void writer.close());
  await closed;
  await closeLogs();
  await isolation.releaseAll();
  return answers;
}

async function fromBundle(dataDir: string, env: Record<string, string | undefined>, lines: string[]): Promise<unknown[]> {
  const child = spawn(process.execPath, [agentBundle, 'acp', '--no-daemon'], { env: { ...env, ACCORD_HOME: dataDir }, stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const answers = await converse(lines, (line) => child.stdin.write(line), linesOf(child.stdout), () => child.stdin.end());
  await exited;
  return answers;
}

describe('raw JSON-RPC lines: the bundle answers as the source does', () => {
  ensureAgentBundle();

  test('invalid and unexpected messages get the same answers from both', { timeout: 60_000 }, async (t) => {
    const dir = tempDir('accord-wire-errors-');
    t.after(() => dir.remove());
    const cwd = join(dir.path, 'project');
    mkdirSync(cwd);
    const env = isolatedEnv({ ACCORD_MODEL: 'openai-compatible:http://127.0.0.1:9/v1#none' }, join(dir.path, 'config'));
    const lines = script(cwd);
    const source = await fromSource(join(dir.path, 'source-data'), env, lines);
    const bundle = await fromBundle(join(dir.path, 'bundle-data'), env, lines);
    assert.deepEqual(bundle, source);
    // The script reaches what it is meant to: a -32600 before initialize, -32601 and -32602 after it.
    const codes = new Map((source as Array<{ id?: unknown; error?: { code: number } }>).map((m) => [m.id, m.error?.code]));
    assert.equal(codes.get(1), -32600);
    assert.equal(codes.get(2), undefined, 'an initialize with malformed optional fields is answered with defaults');
    assert.equal(codes.get(3), -32601);
    for (const id of [4, 5, 6, 8, 11, 17]) assert.equal(codes.get(id), -32602, `id ${id}`);
  });
});
