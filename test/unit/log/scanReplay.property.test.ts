// Replay reads compact chunk lines from the bytes (agent/log/reader.ts
// scanLog) instead of through readLog's entries. Property: on logs written by
// the agent's writer and then damaged or forged line by line (escapes, raw
// quotes and control bytes, bad deltas, orphans, torn tails), the replay is
// exactly the one built from readLog's entries: updates and offsets, history,
// updatedAt, invalid lines, end.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import { readLog, ReplayBuilder, SessionStore, type LogEvent } from '../../../agent/log';
import { newSession, recordedTurn, tempDataDir } from './fixtures';

const text = fc.string({ unit: fc.constantFrom('a', ' ', 'é', '✓', '"', '\\', '\n', '\t', '\u0000', '\u001f', '😀', '/'), maxLength: 10 });
const chunkEvent = fc
  .record({ kind: fc.constantFrom('agent_message_chunk', 'agent_thought_chunk'), messageId: fc.option(fc.constantFrom('m1', 'm2'), { nil: undefined }), text })
  .map(({ kind, messageId, text }): LogEvent => ({ type: 'update', update: { sessionUpdate: kind, ...(messageId === undefined ? {} : { messageId }), content: { type: 'text', text } } }));
const turnEvent = fc.nat(3).chain((n) => fc.constantFrom(...recordedTurn(n)));
const event = fc.oneof({ weight: 5, arbitrary: chunkEvent }, { weight: 2, arbitrary: turnEvent });

/** Lines a damaged or hostile log may hold, each judged by the same rules on both paths. */
const forged = fc.oneof(
  fc.tuple(fc.nat(99), fc.nat(2000), text).map(([seq, d, t]) => `{"seq":${seq},"ts":"+${d}","type":"more","text":${JSON.stringify(t)}}`),
  fc.tuple(fc.nat(99), text).map(([seq, t]) => `{"seq":${seq},"ts":"+5","type":"more","text":"${t}"}`), // unescaped: raw quotes, backslashes, control bytes
  fc.constantFrom(
    '{"seq":3,"ts":"+1234567890123456","type":"more","text":"too many digits"}',
    '{"seq":3,"ts":"+","type":"more","text":"no digits"}',
    '{"seq":3,"ts":"+5","type":"more","text":"x"} ',
    '{"seq":3,"ts":"+5","type":"more","text":"\\u00e9\\"q\\""}',
    '{"seq":3,"ts":"+5","type":"more","text":"\\x"}',
    '{"seq":3,"ts":"+5","type":"more","text":""}',
    '{"seq":3,"ts":"+5","type":"more","text":"a","extra":1}',
    '{"seq":3,"ts":"+5","type":"more","text":"a""}',
    '{"seq":3,"ts":"+5","type":"more","text":"\u00ff"}',
    '{"seq":3,"ts":"+-5","type":"more","text":"negative"}',
    '{"seq":3,"ts":"+5","type":"more","text":5}',
    '{"seq":3,"ts":"2026-01-01T00:00:00.000Z","type":"turn_end","stopReason":"end_turn"}',
    '{"seq":3,"ts":"2026-01-01T00:00:00.000Z","type":"interrupted","tornBytes":3,"turnOpen":true}',
    'not json',
    '',
  ),
);
const edit = fc.record({ at: fc.nat(60), line: forged });

describe('replay from the bytes', () => {
  test('property: replay equals the replay built from readLog entries, on damaged and forged logs', async () => {
    const { dir, cleanup } = await tempDataDir();
    let n = 0;
    try {
      const store = new SessionStore(dir);
      await fc.assert(
        fc.asyncProperty(fc.array(event, { maxLength: 50 }), fc.array(edit, { maxLength: 6 }), fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), async (events, edits, tail) => {
          const id = `s${n++}`;
          const log = await store.create({ ...newSession(), id });
          for (const e of events) log.append(e);
          await log.close();
          const path = store.pathOf(id);
          const lines = (await readFile(path, 'utf8')).split('\n').slice(0, -1);
          for (const { at, line } of edits) lines.splice(1 + (at % lines.length), 0, line);
          await writeFile(path, `${lines.join('\n')}\n`);
          if (tail !== undefined) await appendFile(path, `{"seq":${tail}`); // a torn last line

          const reference = new ReplayBuilder();
          for await (const entry of readLog(path, { onInvalid: () => reference.invalidLines++ })) reference.add(entry);
          assert.deepStrictEqual(await store.replay(id), reference.result(path));
        }),
        { numRuns: 150 },
      );
    } finally {
      await cleanup();
    }
  });
});
