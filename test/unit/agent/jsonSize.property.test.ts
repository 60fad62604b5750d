// jsonStringBytes counts what JSON.stringify makes of a text without making
// it; `_accord/changes/file` decides by it whether its answer fits one line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { jsonStringBytes } from '../../../agent/core/jsonSize';

const exact = (value: string | null) => Buffer.byteLength(JSON.stringify(value));

test('the count equals the bytes of JSON.stringify for any text: controls, quotes, astral characters, lone surrogates', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (value) => jsonStringBytes(value) === exact(value)), { numRuns: 2000 });
  fc.assert(fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) }), (value) => jsonStringBytes(value) === exact(value)));
  for (const value of [null, '', '\u0001', '"\\', '\ud800', '\udc00x', '😀', '\u2028', 'a\nb\tc\rd\be\ff']) assert.equal(jsonStringBytes(value), exact(value), JSON.stringify(value));
});
