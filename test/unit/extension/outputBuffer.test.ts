import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_TERMINAL_OUTPUT_BYTES, OutputBuffer } from '../../../extension/terminal/outputBuffer';

describe('terminal output buffer', () => {
  test('keeps everything under the limit', () => {
    const b = new OutputBuffer(100);
    b.append('hello ');
    b.append(Buffer.from('world'));
    assert.equal(b.text(), 'hello world');
    assert.equal(b.truncated, false);
  });

  test('drops from the front past the limit', () => {
    const b = new OutputBuffer(5);
    b.append('0123456789');
    assert.equal(b.text(), '56789');
    assert.equal(b.truncated, true);
  });

  test('never starts inside a multi-byte character', () => {
    const b = new OutputBuffer(5);
    b.append('aé€😀'); // 1 + 2 + 3 + 4 bytes; the last 5 bytes start inside €
    assert.equal(b.text(), '😀');
    assert.ok(b.byteLength <= 5);
    for (let limit = 1; limit <= 10; limit++) {
      const c = new OutputBuffer(limit);
      c.append('aé€😀');
      assert.ok(!c.text().includes('\uFFFD'), `limit ${limit}: ${c.text()}`);
    }
  });

  test('a character split across chunks is kept whole', () => {
    const b = new OutputBuffer();
    const euro = Buffer.from('€');
    b.append(euro.subarray(0, 1));
    assert.equal(b.text(), '');
    b.append(euro.subarray(1));
    assert.equal(b.text(), '€');
  });

  test('attack: an agent that gives no outputByteLimit, or an enormous one, gets the last 4 MiB, never the whole flood', () => {
    // A hostile agent's terminal/create runs `yes` without a limit: everything was kept in the extension host.
    const chunk = Buffer.alloc(64 * 1024, 'y\n');
    for (const limit of [undefined, Number.MAX_SAFE_INTEGER, 1e300]) {
      const b = new OutputBuffer(limit);
      for (let i = 0; i < 1024; i++) b.append(chunk); // 64 MiB
      assert.equal(b.truncated, true);
      assert.equal(b.byteLength, MAX_TERMINAL_OUTPUT_BYTES);
      assert.equal(b.text().length, MAX_TERMINAL_OUTPUT_BYTES);
      assert.ok(b.text().endsWith('y\ny\n'));
    }
  });

  test('property: the text is the last limit bytes of everything appended, from a character start, without an unfinished last character', () => {
    const piece = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('é', '€', '😀', '\n'));
    fc.assert(
      fc.property(fc.array(fc.array(piece, { maxLength: 6 }), { maxLength: 30 }), fc.nat(40), fc.array(fc.nat(3), { maxLength: 30 }), (chunks, limit, splits) => {
        const b = new OutputBuffer(limit);
        const all: Buffer[] = [];
        chunks.forEach((pieces, i) => {
          const bytes = Buffer.from(pieces.join(''), 'utf8');
          all.push(bytes);
          // Chunks are cut anywhere, characters included, as a pipe cuts them.
          const at = Math.min(bytes.length, splits[i] ?? 0);
          b.append(bytes.subarray(0, at));
          b.append(bytes.subarray(at));
        });
        const stream = Buffer.concat(all);
        let start = Math.max(0, stream.length - limit);
        while (start < stream.length && ((stream[start] ?? 0) & 0xc0) === 0x80) start++;
        const tail = stream.subarray(start);
        let end = tail.length;
        // Leave out an unfinished last character (the next chunk would finish it).
        for (let back = 1; back <= Math.min(4, tail.length); back++) {
          const lead = tail[tail.length - back]!;
          if ((lead & 0xc0) === 0x80) continue;
          const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
          if (need > back) end = tail.length - back;
          break;
        }
        assert.equal(b.text(), tail.subarray(0, end).toString('utf8'));
        assert.equal(b.truncated, stream.length > limit);
        assert.ok(b.byteLength <= limit);
      }),
      { numRuns: 500 },
    );
  });
});
