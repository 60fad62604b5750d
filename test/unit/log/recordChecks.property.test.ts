// The log's record validation (agent/log/records.ts) runs hand-written
// checks, not zod, for speed: property, every record type, field values of
// every JSON kind (and missing), the hand checks and the zod schemas (the
// specification) give the same verdict, and a valid record is kept whole.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseRecordLine, payloadSchemas, type RecordType } from '../../../agent/log/records';

const MISSING = Symbol('missing');
const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(2 ** 60), fc.boolean(), fc.constant(null));
const item = fc.oneof(
  scalar,
  fc.record({ type: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()) }, { requiredKeys: [] }),
  fc.record({ role: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), content: scalar }, { requiredKeys: [] }),
  fc.record({ sessionUpdate: fc.oneof(fc.string({ maxLength: 3 }), fc.boolean()) }, { requiredKeys: [] }),
);
/** A field's value: absent, any scalar, objects of the shapes the schemas look for, arrays of those. */
const value = fc.oneof(
  { weight: 2, arbitrary: fc.constant(MISSING) },
  { weight: 3, arbitrary: scalar },
  { weight: 2, arbitrary: item },
  { weight: 2, arbitrary: fc.array(item, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 }) },
);
const types = Object.keys(payloadSchemas()) as RecordType[];
/** The keys each schema names, plus one it does not. */
const keysOf = (type: RecordType) => [...Object.keys(payloadSchemas()[type].shape), 'extra'];

const record = fc.constantFrom(...types).chain((type) =>
  fc.tuple(fc.constant(type), fc.tuple(...keysOf(type).map(() => value))).map(([type, values]) => {
    const fields: Record<string, unknown> = {};
    keysOf(type).forEach((key, i) => {
      if (values[i] !== MISSING) fields[key] = values[i];
    });
    return { seq: 1, ts: '2026-01-01T00:00:00.000Z', type, ...fields };
  }),
);

describe('record validation', () => {
  test('property: the hand-written checks and the zod schemas agree on every record type', () => {
    fc.assert(
      fc.property(record, (r) => {
        const line = JSON.stringify(r);
        const parsed = parseRecordLine(line);
        const spec = payloadSchemas()[r.type as RecordType].safeParse(JSON.parse(line));
        assert.equal(parsed.ok, spec.success, `${line}: parse says ${JSON.stringify(parsed)}, zod says ${JSON.stringify(spec.error?.issues ?? 'valid')}`);
        if (parsed.ok) {
          assert.equal(parsed.known, true);
          assert.deepStrictEqual(parsed.record, JSON.parse(line)); // nothing stripped
        } else {
          assert.match(parsed.reason, new RegExp(`^malformed ${r.type} record: `));
        }
      }),
      { numRuns: 3000 },
    );
  });

  test('the records the agent writes are valid', () => {
    const valid = [
      { type: 'session_created', sessionId: 's', cwd: '/w', agentVersion: '1', config: {}, additionalDirectories: ['/a'], workspace: { root: '/x' } },
      { type: 'user_prompt', prompt: [{ type: 'text', text: 'hi' }] },
      { type: 'tool_io', toolCallId: 't', toolName: 'run', input: null, output: 'ok', isError: false },
      { type: 'history_reset', messages: [{ role: 'user', content: 'x' }], reason: 'compaction' },
      { type: 'interrupted', tornBytes: 0, turnOpen: true, savedTo: '/p' },
      { type: 'turn_end', stopReason: 'end_turn', error: 'boom' },
    ];
    for (const r of valid) assert.equal(parseRecordLine(JSON.stringify({ seq: 1, ts: 't', ...r })).ok, true, JSON.stringify(r));
    const bad = parseRecordLine(JSON.stringify({ seq: 1, ts: 't', type: 'tool_io', toolCallId: 't', toolName: 'run', output: 1 }));
    assert.deepStrictEqual(bad, { ok: false, reason: 'malformed tool_io record: input is required' });
  });
});
