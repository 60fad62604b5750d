// agent/acp/messageOutput.ts: the SDK's messages go into the output batch as
// JSON lines, in the order written, beside bytes written to the byte stream;
// one writer is shared and never locked; a closed output refuses later
// messages; a reader gone fails the writes. Attack: whatever text a message
// carries (newlines, line and paragraph separators, lone surrogates), it
// stays one line and reads back equal.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AnyMessage } from '@agentclientprotocol/sdk/unstable';
import { batchedOutput } from '../../../agent/acp/batchedOutput';
import { acpStream, messageOutput } from '../../../agent/acp/messageOutput';
import { guardLines } from '../../../agent/acp/lineGuard';

function sink() {
  const writes: Buffer[] = [];
  let failWith: Error | undefined;
  const stream = new WritableStream<Uint8Array>({
    write(chunk) {
      if (failWith) throw failWith;
      writes.push(Buffer.from(chunk));
    },
  });
  return {
    stream,
    writes,
    lines: () => Buffer.concat(writes).toString('utf8').split('\n').filter(Boolean),
    fail: (error: Error) => (failWith = error),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const update = (text: string): AnyMessage => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });

describe('messageOutput', () => {
  test('messages leave as JSON lines in the order written, the first at once, the rest together', async () => {
    const target = sink();
    const batched = batchedOutput(target.stream);
    const messages = messageOutput(batched.push);
    const sent = Array.from({ length: 50 }, (_, i) => update(`chunk ${i}`));
    for (const message of sent) {
      const writer = messages.getWriter(); // as the SDK does per message: get, write, release
      await writer.write(message);
      writer.releaseLock();
    }
    assert.equal(target.writes.length, 1, 'the first message left before the loop turned');
    await turn();
    assert.equal(target.writes.length, 2);
    assert.deepEqual(target.lines().map((line) => JSON.parse(line)), sent);
  });

  test('bytes written to the byte stream and messages share one order', async () => {
    const target = sink();
    const batched = batchedOutput(target.stream);
    const messages = messageOutput(batched.push).getWriter();
    await messages.write(update('a'));
    const bytes = batched.output.getWriter();
    await bytes.write(Buffer.from('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n'));
    await messages.write(update('b'));
    await turn();
    assert.deepEqual(
      target.lines().map((line) => (JSON.parse(line) as { params?: { update: { content: { text: string } } }; error?: { code: number } })),
      [update('a'), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, update('b')],
    );
  });

  test('the writer is one and never locked; closing it refuses later messages', async () => {
    const target = sink();
    const messages = messageOutput(batchedOutput(target.stream).push);
    assert.equal(messages.getWriter(), messages.getWriter());
    assert.equal(messages.locked, false);
    await messages.getWriter().write(update('kept'));
    await messages.close();
    await assert.rejects(messages.getWriter().write(update('late')), /closed/);
    await turn();
    assert.deepEqual(target.lines().map((line) => JSON.parse(line)), [update('kept')]);
  });

  test('a message that cannot be written as JSON fails its own write; the others still go', async () => {
    const target = sink();
    const writer = messageOutput(batchedOutput(target.stream).push).getWriter();
    await assert.rejects(writer.write({ jsonrpc: '2.0', method: 'x', params: { big: 1n } } as unknown as AnyMessage), /BigInt/);
    await writer.write(update('after'));
    await turn();
    assert.deepEqual(target.lines().map((line) => JSON.parse(line)), [update('after')]);
  });

  test('attack: the reader goes away; the writes fail instead of piling up', async () => {
    const target = sink();
    const writer = messageOutput(batchedOutput(target.stream).push).getWriter();
    await writer.write(update('kept'));
    target.fail(new Error('EPIPE'));
    await writer.write(update('lost')); // gathered; its batch's write fails
    await turn();
    await turn();
    await assert.rejects(writer.write(update('later')), /EPIPE/);
    assert.deepEqual(target.lines().map((line) => JSON.parse(line)), [update('kept')]);
  });

  test('attack: whatever text a message carries, each message stays one line and reads back equal', async () => {
    const hostile = fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('\n', '\r\n', '\u2028\u2029', '\ud800', '\udfff\ud800', '"}\n{"id":1,"result":{}}\n', '\u0000'));
    await fc.assert(
      fc.asyncProperty(fc.array(hostile, { minLength: 1, maxLength: 20 }), async (texts) => {
        const target = sink();
        const writer = messageOutput(batchedOutput(target.stream).push).getWriter();
        for (const text of texts) await writer.write(update(text));
        await turn();
        const lines = target.lines();
        assert.equal(lines.length, texts.length);
        assert.deepEqual(lines.map((line) => JSON.parse(line)), texts.map(update));
      }),
      { numRuns: 100 },
    );
  });

  test('acpStream: the SDK reads the guarded input; what is written to it leaves through the same output', async () => {
    const target = sink();
    const input = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\nnot json\n'));
        controller.close();
      },
    });
    const stream = acpStream(guardLines(input, target.stream), 1 << 20);
    const reader = stream.readable.getReader();
    const first = await reader.read();
    assert.deepEqual(first.value, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } });
    await stream.writable.getWriter().write({ jsonrpc: '2.0', id: 1, result: {} });
    assert.equal((await reader.read()).done, true);
    await turn();
    const lines = target.lines().map((line) => JSON.parse(line) as { id?: unknown; error?: { code: number } });
    assert.deepEqual(lines.find((line) => line.id === 1), { jsonrpc: '2.0', id: 1, result: {} });
    assert.equal(lines.find((line) => line.error)?.error?.code, -32700, 'the malformed line is answered on the same output');
  });
});
