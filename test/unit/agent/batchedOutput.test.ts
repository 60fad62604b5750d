// agent/acp/batchedOutput.ts: the first message written while the output is
// idle reaches the target at once (before the loop turns); what follows it
// while the loop is busy reaches the target together, in order, in one write;
// a lone write still goes out (no later write needed to push it); a full batch waits for the target
// (a reader that stops reading does not grow memory without bound); close
// delivers everything first; a failed write fails every later one.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { batchedOutput } from '../../../agent/acp/batchedOutput';

function target(options: { hold?: boolean } = {}) {
  const writes: Buffer[] = [];
  let release: () => void = () => undefined;
  let failWith: Error | undefined;
  let closed = false;
  let arrived: () => void = () => undefined;
  const stream = new WritableStream<Uint8Array>({
    async write(chunk) {
      if (failWith) throw failWith;
      writes.push(Buffer.from(chunk));
      arrived();
      if (options.hold) await new Promise<void>((resolve) => (release = resolve));
    },
    close: () => void (closed = true),
  });
  return {
    stream,
    writes,
    text: () => Buffer.concat(writes).toString(),
    isClosed: () => closed,
    release: () => release(),
    fail: (error: Error) => (failWith = error),
    /** Resolves once at least `n` writes reached the target. */
    until: async (n: number) => {
      while (writes.length < n) await new Promise<void>((resolve) => (arrived = resolve));
    },
  };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('batchedOutput', () => {
  test('messages written in one busy stretch reach the target in order: the first at once, the rest in one write', async () => {
    const t = target();
    const writer = batchedOutput(t.stream).output.getWriter();
    const lines = Array.from({ length: 1000 }, (_, i) => `{"n":${i}}\n`);
    for (const line of lines) await writer.write(bytes(line)); // each accepted at once: no turn of the loop between them
    assert.deepEqual(t.writes.map(String), [lines[0]], 'the first has left before the loop turned; the rest wait for it to turn');
    await t.until(2);
    assert.equal(t.writes.length, 2);
    assert.equal(t.text(), lines.join(''));
    await writer.close();
    assert.equal(t.isClosed(), true);
  });

  test('afterFirstSend runs once, after the target has taken the first batch, never for later ones', async () => {
    const t = target({ hold: true });
    let calls = 0;
    let writesWhenCalled = -1;
    const writer = batchedOutput(t.stream, undefined, () => {
      calls++;
      writesWhenCalled = t.writes.length;
    }).output.getWriter();
    await writer.write(bytes('{"id":1}\n'));
    await t.until(1);
    assert.equal(calls, 0, 'not while the target still holds the batch');
    t.release();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(calls, 1);
    assert.equal(writesWhenCalled, 1);
    await writer.write(bytes('{"id":2}\n'));
    await t.until(2);
    t.release();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(calls, 1, 'once');
  });

  test('a lone message goes out without another write behind it', async () => {
    const t = target();
    const writer = batchedOutput(t.stream).output.getWriter();
    await writer.write(bytes('only\n'));
    await t.until(1);
    assert.equal(t.text(), 'only\n');
  });

  test('a full batch waits until the target took it (bounded memory with a slow reader)', async () => {
    const t = target({ hold: true });
    const writer = batchedOutput(t.stream, 64).output.getWriter();
    await writer.write(bytes('w'.repeat(8))); // the output was idle: it leaves at once, and the target holds it
    await writer.write(bytes('x'.repeat(40)));
    let third = false;
    const full = writer.write(bytes('y'.repeat(40))).then(() => (third = true)); // 80 B gathered ≥ 64 B: handed on now
    await t.until(1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(third, false, 'the writer waits while the target holds the batches');
    t.release();
    await t.until(2);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(third, false, 'the full batch has reached the target, which still holds it');
    t.release();
    await full;
    assert.equal(t.text(), `${'w'.repeat(8)}${'x'.repeat(40)}${'y'.repeat(40)}`);
  });

  test('flush hands on what is gathered at once, without waiting for the loop to turn', async () => {
    const t = target();
    const batched = batchedOutput(t.stream);
    const writer = batched.output.getWriter();
    await writer.write(bytes('a\n'));
    await writer.write(bytes('b\n'));
    await writer.write(bytes('c\n'));
    assert.equal(t.text(), 'a\n', 'the first left at once; the others wait for the loop to turn');
    void batched.flush();
    assert.equal(t.text(), 'a\nb\nc\n', 'handed to the target within the same turn');
    assert.equal(t.writes.length, 2);
  });

  test('close delivers what is gathered before closing the target', async () => {
    const t = target();
    const writer = batchedOutput(t.stream).output.getWriter();
    void writer.write(bytes('a\n'));
    void writer.write(bytes('b\n'));
    await writer.close();
    assert.equal(t.text(), 'a\nb\n');
    assert.equal(t.isClosed(), true);
  });

  test('attack: the reader goes away; the failed batch fails every later write instead of piling up bytes', async () => {
    const t = target();
    const writer = batchedOutput(t.stream).output.getWriter();
    await writer.write(bytes('kept\n'));
    await t.until(1);
    t.fail(new Error('EPIPE'));
    await writer.write(bytes('lost\n')); // accepted into a batch; its write fails
    await assert.rejects(writer.closed, /EPIPE/);
    await assert.rejects(writer.write(bytes('later\n')));
    assert.equal(t.text(), 'kept\n');
  });

  test('property: whatever the writes, turns and flushes, the target gets every byte in order; an idle write and everything before a turn have reached it', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), size: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('turn' as const) }),
      fc.record({ kind: fc.constant('flush' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), fc.integer({ min: 1, max: 200 }), async (ops, batchBytes) => {
        const t = target();
        const batched = batchedOutput(t.stream, batchBytes);
        const writer = batched.output.getWriter();
        let written = '';
        let idle = true;
        for (const [i, step] of ops.entries()) {
          if (step.kind === 'write') {
            const line = String.fromCharCode(97 + (i % 26)).repeat(step.size);
            written += line;
            await writer.write(bytes(line));
            if (idle) assert.equal(t.text(), written, 'a write to an idle output leaves before the loop turns');
            idle = false;
          } else if (step.kind === 'turn') {
            await new Promise((resolve) => setImmediate(resolve));
            assert.equal(t.text(), written, 'nothing waits past a turn of the loop');
            idle = true;
          } else {
            await batched.flush();
            assert.equal(t.text(), written, 'flush hands on everything gathered');
          }
        }
        await writer.close();
        assert.equal(t.text(), written);
        assert.equal(t.isClosed(), true);
      }),
      { numRuns: 200 },
    );
  });
});
