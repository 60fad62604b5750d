// ResponseHeaders (agent/models/http/) answers as fetch's Headers would for
// the same header block: any names in any case, repeated or not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ResponseHeaders } from '../../../agent/models/http/responseHeaders';

// Header names a server might send, in random case (set-cookie is left out: Headers iterates it apart).
const name = fc
  .tuple(fc.constantFrom('content-type', 'x-request-id', 'retry-after', 'retry-after-ms', 'x-ratelimit-remaining', 'anthropic-ratelimit-tokens-reset', 'openai-processing-ms'), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }))
  .map(([n, upper]) => [...n].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
// Values as node's parser hands them over: printable, no surrounding whitespace.
const value = fc.stringMatching(/^[!-~]([ -~]{0,20}[!-~])?$/);

test('get, has, entries and forEach agree with fetch Headers for any header block', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(name, value), { maxLength: 12 }), fc.array(name, { maxLength: 4 }), (pairs, probes) => {
      const ours = new ResponseHeaders(pairs.flat());
      const reference = new Headers();
      for (const [n, v] of pairs) reference.append(n, v);
      assert.deepEqual([...ours], [...reference]);
      assert.deepEqual([...ours.entries()], [...reference.entries()]);
      for (const probe of [...probes, ...pairs.map(([n]) => n)]) {
        assert.equal(ours.get(probe), reference.get(probe));
        assert.equal(ours.has(probe), reference.has(probe));
      }
      const seen: string[] = [];
      ours.forEach((v, n) => seen.push(`${n}:${v}`));
      const expected: string[] = [];
      reference.forEach((v, n) => expected.push(`${n}:${v}`));
      assert.deepEqual(seen, expected);
    }),
  );
});
