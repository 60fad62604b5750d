// agent/acp/sharedWriter.ts: every getWriter() is the same held writer, so
// interleaved callers' writes keep their order, "releasing" it is harmless,
// and close, abort and a failing sink reach every caller.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedWriter } from '../../../agent/acp/sharedWriter';

function sink() {
  const written: string[] = [];
  const events: string[] = [];
  let failWith: Error | undefined;
  const target = new WritableStream<string>({
    write(chunk) {
      if (failWith) throw failWith;
      written.push(chunk);
    },
    close: () => void events.push('close'),
    abort: (reason) => void events.push(`abort: ${(reason as Error).message}`),
  });
  return { target, written, events, fail: (error: Error) => (failWith = error) };
}

describe('sharedWriter', () => {
  test('writes from callers that take and release a writer per message keep their order', async () => {
    const { target, written } = sink();
    const shared = sharedWriter(target);
    const send = async (message: string) => {
      const writer = shared.getWriter();
      try {
        await writer.write(message);
      } finally {
        writer.releaseLock();
      }
    };
    await Promise.all(Array.from({ length: 200 }, (_, i) => send(`m${i}`)));
    assert.deepStrictEqual(written, Array.from({ length: 200 }, (_, i) => `m${i}`));
    assert.equal(target.locked, true, 'the real stream stays held by the one writer');
  });

  test('close and abort reach the real stream, through a writer or the stream', async () => {
    const a = sink();
    await sharedWriter(a.target).getWriter().close();
    assert.deepStrictEqual(a.events, ['close']);
    const b = sink();
    await sharedWriter(b.target).abort(new Error('gone'));
    assert.deepStrictEqual(b.events, ['abort: gone']);
  });

  test('a failing sink fails that write and every later one, for every caller', async () => {
    const { target, written, fail } = sink();
    const shared = sharedWriter(target);
    await shared.getWriter().write('before');
    fail(new Error('EPIPE'));
    await assert.rejects(shared.getWriter().write('lost'), /EPIPE/);
    await assert.rejects(shared.getWriter().write('after'), /EPIPE/);
    assert.deepStrictEqual(written, ['before']);
  });
});
