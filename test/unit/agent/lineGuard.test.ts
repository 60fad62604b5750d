// Issue 11, finding 8: an ACP line over the limit, or a malformed one, gets a
// JSON-RPC error, and the connection and every session on it live on (before:
// the agent exited with status 0). In process on the guard itself, then on
// the bundled agent over real stdio.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { guardLines, idFromHead } from '../../../agent/acp/lineGuard';
import { reply } from '../../fakeModelServer/index';
import { agentBundle, ensureAgentBundle, fakeModelFor, isolatedEnv } from './harness';
import { gitProject } from './isolationFixtures';

async function drain(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString('utf8');
  return text;
}

describe('the line guard', () => {
  test('batches the lines of one event-loop turn into one write, in order; a failed write fails the later ones', async () => {
    const written: string[] = [];
    const rawOutput = new WritableStream<Uint8Array>({ write: (chunk) => void written.push(Buffer.from(chunk).toString('utf8')) });
    const { output } = guardLines(new ReadableStream<Uint8Array>(), rawOutput);
    const writer = output.getWriter();
    const lines = Array.from({ length: 500 }, (_, i) => `{"n":${i}}\n`);
    await Promise.all(lines.map((line) => writer.write(Buffer.from(line))));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(written.join(''), lines.join(''), 'every line, whole and in order');
    assert.ok(written.length < lines.length, `fewer writes than lines (${written.length})`);
    await writer.write(Buffer.from('{"n":"later"}\n'));
    await writer.close();
    assert.equal(written.at(-1), '{"n":"later"}\n', 'close writes what is still batched');

    const broken = new WritableStream<Uint8Array>({ write: () => Promise.reject(new Error('EPIPE')) });
    const failing = guardLines(new ReadableStream<Uint8Array>(), broken).output.getWriter();
    await failing.write(Buffer.from('{"n":1}\n'));
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(async () => {
      for (let i = 0; i < 3; i++) await failing.write(Buffer.from('{"n":2}\n'));
    }, /EPIPE/);
  });

  test('passes lines through whole, drops an oversized one as it streams, and answers it with its id', async () => {
    const written: string[] = [];
    const rawOutput = new WritableStream<Uint8Array>({ write: (chunk) => void written.push(Buffer.from(chunk).toString('utf8')) });
    const big = `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"text":"${'x'.repeat(5000)}"}}`;
    const pieces = ['{"jsonrpc":"2.0","id":1,"me', 'thod":"a"}\n', big.slice(0, 700), big.slice(700, 3000), `${big.slice(3000)}\n{"id":`, '2}\n', 'not json\n', `${'y'.repeat(2000)}\n`, 'tail-without-newline'];
    const rawInput = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(Buffer.from(piece));
        controller.close();
      },
    });
    const { input } = guardLines(rawInput, rawOutput, 1000);
    assert.equal(await drain(input), '{"jsonrpc":"2.0","id":1,"method":"a"}\n{"id":2}\nnot json\ntail-without-newline');
    // Output leaves in batches (agent/acp/batchedOutput.ts): wait for both answers, then read them line by line.
    const lines = () => written.join('').split('\n').filter(Boolean);
    while (lines().length < 2) await new Promise((resolve) => setImmediate(resolve));
    const errors = lines().map((line) => JSON.parse(line));
    assert.deepEqual(errors.map((e) => [e.id, e.error.code]), [[7, -32600], [null, -32600]]);
    assert.match(errors[0].error.message, /larger than the 1000 bytes Accord accepts \(5\d{3} bytes\)/);
    assert.match(errors[0].error.message, /the connection and its sessions are unaffected/);
  });

  test('what was written before the input ended reaches the output in the same turn (a daemon tears the socket down right after)', async () => {
    const written: string[] = [];
    const rawOutput = new WritableStream<Uint8Array>({ write: (chunk) => void written.push(Buffer.from(chunk).toString('utf8')) });
    let end: () => void = () => undefined;
    const rawInput = new ReadableStream<Uint8Array>({ start: (controller) => void (end = () => controller.close()) });
    const { input, output } = guardLines(rawInput, rawOutput);
    const writer = output.getWriter();
    await writer.write(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\n')); // the output was idle: it leaves at once
    await writer.write(Buffer.from('{"jsonrpc":"2.0","id":2,"result":{}}\n'));
    assert.deepEqual(written, ['{"jsonrpc":"2.0","id":1,"result":{}}\n'], 'the second is gathered, not yet written');
    end();
    await drain(input);
    assert.equal(written.join(''), '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n');
  });

    test('the id is read only from the top level, before params', () => {
    assert.equal(idFromHead('{"jsonrpc":"2.0","id":"a-1","method":"x","params":{"id":5}}'), 'a-1');
    assert.equal(idFromHead('{"jsonrpc":"2.0","method":"x","params":{"id":5}'), null);
    assert.equal(idFromHead('{"id":12,"method"'), 12);
    assert.equal(idFromHead('garbage'), null);
  });
});

describe('the bundled agent over stdio', () => {
  ensureAgentBundle();
  const model = fakeModelFor('accord-lineguard-config-');

  test('an oversized line and a malformed one get errors; the connection and an open session go on', { timeout: 180_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const env = isolatedEnv({ ACCORD_MODEL: `openai-compatible:${model.server.baseUrl}#fake`, ACCORD_HOME: data }, model.configDir);
    const child = spawn(process.execPath, [agentBundle, 'acp'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const responses = new Map<unknown, any>();
    const waiters: Array<() => void> = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line);
      if ('id' in message && !('method' in message)) responses.set(message.id, message);
      waiters.splice(0).forEach((w) => w());
    });
    const response = async (id: unknown) => {
      while (!responses.has(id)) await new Promise<void>((resolve) => waiters.push(resolve));
      return responses.get(id);
    };
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
      assert.ok((await response(1)).result);
      send({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: project, mcpServers: [] } });
      const { sessionId } = (await response(2)).result;
      assert.ok(sessionId);

      // 33 MiB of prompt text, written in pieces as a client would stream it.
      const text = 'z'.repeat(33 * 1024 * 1024);
      const line = `${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text }] } })}\n`;
      for (let at = 0; at < line.length; at += 1024 * 1024) {
        if (!child.stdin.write(line.slice(at, at + 1024 * 1024))) await new Promise((resolve) => child.stdin.once('drain', resolve));
      }
      const tooLarge = await response(3);
      assert.equal(tooLarge.error.code, -32600);
      assert.match(tooLarge.error.message, /larger than the 32 MiB Accord accepts/);

      child.stdin.write('{"jsonrpc":"2.0","id":4,"method":\n');
      const malformed = await response(null);
      assert.equal(malformed.error.code, -32700);

      model.server.script(reply.text('still here'));
      send({ jsonrpc: '2.0', id: 5, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'hello' }] } });
      assert.equal((await response(5)).result.stopReason, 'end_turn', 'the session opened before goes on');
      assert.equal(child.exitCode, null, 'the agent is still running');
    } finally {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      // `acp` bridged to a daemon it started: stop it, or it outlives the test (10 min idle).
      spawnSync(process.execPath, [agentBundle, 'daemon', 'stop'], { env, stdio: 'ignore' });
      remove();
    }
  });
});
