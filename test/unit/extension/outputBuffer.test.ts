import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { OutputBuffer } from '../../../extension/terminal/outputBuffer';

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
});
