// agent/acp/webStdio.ts: the agent's stdio as web streams without Node's
// adapters. Bytes flow in order both ways with backpressure; the end of input,
// a vanished input and an input error each end the readable stream; a writer
// whose reader went away fails the stream, never the process; and the
// bundled agent answers initialize without loading the adapters at all.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { webReadable, webWritable } from '../../../agent/acp/webStdio';
import { ensureAgentBundle, probeAroundInitialize } from './harness';

const bytes = (text: string) => Buffer.from(text);
const text = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString();

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for (const reader = stream.getReader(); ; ) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

describe('webReadable', () => {
  test('passes every byte in order and closes at the end of input', async () => {
    const source = new PassThrough();
    const all = readAll(webReadable(source));
    source.write(bytes('{"a":1}\n{"b"'));
    source.write(':2}\n');
    source.end(bytes('tail'));
    assert.equal(text(await all), '{"a":1}\n{"b":2}\ntail');
  });

  test('pauses its source while the reader is behind, and resumes when it reads', async () => {
    const source = new PassThrough();
    const stream = webReadable(source, 2);
    for (let i = 0; i < 5; i++) source.write(bytes(`chunk ${i}\n`));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(source.isPaused(), true, 'nothing read: the source waits instead of filling memory');
    const reader = stream.getReader();
    const seen: string[] = [];
    while (seen.length < 5) seen.push(Buffer.from((await reader.read()).value!).toString());
    assert.deepEqual(seen, ['chunk 0\n', 'chunk 1\n', 'chunk 2\n', 'chunk 3\n', 'chunk 4\n']);
    source.end();
    assert.equal((await reader.read()).done, true);
  });

  test('attack: an input destroyed without an end (the client vanished) ends the stream instead of hanging it', async () => {
    const source = new PassThrough();
    const all = readAll(webReadable(source));
    source.write(bytes('half a li'));
    source.destroy();
    assert.equal(text(await all), 'half a li');
  });

  test('attack: an input error fails the reader with that error', async () => {
    const source = new PassThrough();
    const all = readAll(webReadable(source));
    source.destroy(new Error('EIO on stdin'));
    await assert.rejects(all, /EIO on stdin/);
  });

  test('cancel by the reader stops and destroys the source', async () => {
    const source = new PassThrough();
    await webReadable(source).cancel();
    assert.equal(source.destroyed, true);
  });
});

describe('webWritable', () => {
  test('writes in order; close ends the target after the last write', async () => {
    const got: string[] = [];
    let finished = false;
    const target = new Writable({
      write(chunk: Buffer, _encoding, done) {
        got.push(chunk.toString());
        done();
      },
      final(done) {
        finished = true;
        done();
      },
    });
    const writer = webWritable(target).getWriter();
    await writer.write(bytes('one\n'));
    await writer.write(bytes('two\n'));
    await writer.close();
    assert.deepEqual(got, ['one\n', 'two\n']);
    assert.equal(finished, true);
  });

  test('a full target makes the write wait for drain', async () => {
    let release: (() => void) | undefined;
    const target = new Writable({
      highWaterMark: 1,
      write(_chunk, _encoding, done) {
        release = done;
      },
    });
    const writer = webWritable(target).getWriter();
    let settled = false;
    const write = writer.write(bytes('a large enough chunk')).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'the target is over its mark: the writer waits');
    release!();
    await write;
    assert.equal(settled, true);
  });

  test('attack: the reader goes away (EPIPE): the write and every later one fail; the process sees no unhandled error', async () => {
    const target = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const writer = webWritable(target).getWriter();
    await writer.write(bytes('first\n')).catch(() => undefined); // taken before the error arrives, or failed by it
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(writer.write(bytes('second\n')), /EPIPE/);
    await assert.rejects(writer.closed, /EPIPE/);
  });

  test('attack: a write waiting for drain fails when the target errors instead', async () => {
    const target = new Writable({
      highWaterMark: 1,
      write(_chunk, _encoding, done) {
        setImmediate(() => done(new Error('write EPIPE')));
      },
    });
    const writer = webWritable(target).getWriter();
    await assert.rejects(writer.write(bytes('waits for a drain that never comes')), /EPIPE/);
  });
});

describe('the bundled agent', () => {
  ensureAgentBundle();

  test("answers initialize without loading Node's web stream adapters", async () => {
    const stderr = await probeAroundInitialize(
      `process.on('exit', () => process.stderr.write('adapters loaded: ' + process.moduleLoadList.includes('NativeModule internal/webstreams/adapters') + '\\n'));`,
    );
    assert.match(stderr, /adapters loaded: false/);
  });
});
