// agent/acp/batchedOutput.ts: bytes written while the loop is busy reach the
// target together, in order, in fewer writes; a lone write still goes out
// (no later write needed to push it); a full batch waits for the target
// (a reader that stops reading does not grow memory without bound); close
// delivers everything first; a failed write fails every later one.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
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
  test('messages written in one busy stretch reach the target in order, in one write', async () => {
    const t = target();
    const writer = batchedOutput(t.stream).output.getWriter();
    const lines = Array.from({ length: 1000 }, (_, i) => `{"n":${i}}\n`);
    for (const line of lines) await writer.write(bytes(line)); // each accepted at once: no turn of the loop between them
    await t.until(1);
    assert.equal(t.writes.length, 1);
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
    await writer.write(bytes('x'.repeat(40)));
    let second = false;
    const full = writer.write(bytes('y'.repeat(40))).then(() => (second = true)); // 80 B ≥ 64 B: handed on now
    await t.until(1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(second, false, 'the writer waits while the target holds the batch');
    t.release();
    await full;
    assert.equal(t.text(), `${'x'.repeat(40)}${'y'.repeat(40)}`);
  });

  test('flush hands on what is gathered at once, without waiting for the loop to turn', async () => {
    const t = target();
    const batched = batchedOutput(t.stream);
    const writer = batched.output.getWriter();
    await writer.write(bytes('a\n'));
    await writer.write(bytes('b\n'));
    assert.equal(t.writes.length, 0);
    void batched.flush();
    assert.equal(t.text(), 'a\nb\n', 'handed to the target within the same turn');
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
});
