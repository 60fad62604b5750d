// Compact text-chunk records (agent/log/compact.ts): a log written with them
// replays update for update, each at its exact offset, from 0 or from any
// offset; logs written before them still load; damaged ones lose no more
// than the damaged lines.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import { SessionStore, type LogEvent, type SessionUpdateJson } from '../../../agent/log';
import { newSession, recordedTurn, tempDataDir } from './fixtures';

const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', '✓', '"', '\\', '\n', '\u0000', '😀'), maxLength: 12 });
const chunkUpdate: fc.Arbitrary<SessionUpdateJson> = fc.oneof(
  fc.record({ kind: fc.constantFrom('agent_message_chunk', 'agent_thought_chunk'), messageId: fc.option(fc.constantFrom('m1', 'm2'), { nil: undefined }), text }).map(
    ({ kind, messageId, text }) => ({ sessionUpdate: kind, ...(messageId === undefined ? {} : { messageId }), content: { type: 'text', text } }),
  ),
  // Chunks that must stay full records: extra fields, other content.
  text.map((t) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t }, _meta: { 'x/y': 1 } })),
  fc.constant({ sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'AA==', mimeType: 'image/png' } }),
  fc.constant({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x', annotations: { priority: 1 } } }),
);
const otherEvent: fc.Arbitrary<LogEvent> = fc.constantFrom<LogEvent>(
  { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Run', kind: 'execute', status: 'pending' } },
  { type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' } },
  { type: 'model_message', message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] } },
  { type: 'usage', usage: { inputTokens: 1 } },
  { type: 'turn_start' },
  { type: 'turn_end', stopReason: 'end_turn' },
);
const event: fc.Arbitrary<LogEvent> = fc.oneof({ weight: 4, arbitrary: chunkUpdate.map((update): LogEvent => ({ type: 'update', update })) }, { weight: 1, arbitrary: otherEvent });

describe('compact text-chunk records', () => {
  test('property: a log written with compact records replays update for update, at exact offsets, from 0 and from any update, across reopens', async () => {
    const { dir, cleanup } = await tempDataDir();
    let n = 0;
    try {
      const store = new SessionStore(dir);
      await fc.assert(
        fc.asyncProperty(fc.array(event, { maxLength: 40 }), fc.nat(40), async (events, reopenAt) => {
          const id = `p${n++}`;
          let log = await store.create({ ...newSession(), id });
          const expected: Array<{ offset: number; update: SessionUpdateJson }> = [];
          for (const [i, e] of events.entries()) {
            if (i === reopenAt) {
              await log.close();
              log = await store.open(id); // a reopened writer starts without a template
            }
            const at = log.append(e);
            if (e.type === 'update') expected.push({ offset: at.offset, update: JSON.parse(JSON.stringify(e.update)) });
          }
          await log.close();
          const replay = await store.replay(id);
          const plain = replay.updates.filter((u) => !u.synthesized).map(({ offset, update }) => ({ offset, update }));
          assert.deepStrictEqual(plain, expected);
          assert.equal(replay.invalidLines, 0);
          for (const [k, { offset }] of expected.entries()) {
            const from = await store.replay(id, { fromOffset: offset });
            assert.deepStrictEqual(from.updates.filter((u) => !u.synthesized).map(({ offset, update }) => ({ offset, update })), expected.slice(k));
          }
        }),
        { numRuns: 60 },
      );
    } finally {
      await cleanup();
    }
  });

  test('a streamed text chunk costs at most twice its text plus 40 bytes in the log', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'size' });
      const texts = Array.from({ length: 200 }, (_, i) => `word${i} and “more” `);
      const offsets = texts.map((t) => log.append({ type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t } } }).offset);
      await log.close();
      const size = (await readFile(store.pathOf('size'))).length;
      // The first chunk is a full record (the template); every one after it is compact.
      for (let i = 1; i < texts.length; i++) {
        const bytes = (i + 1 < texts.length ? offsets[i + 1]! : size) - offsets[i]!;
        assert.ok(bytes <= 2 * Buffer.byteLength(texts[i]!) + 40, `chunk ${i}: ${bytes} B for ${Buffer.byteLength(texts[i]!)} B of text`);
      }
    } finally {
      await cleanup();
    }
  });

  test('a log written before compact records (every chunk a full update record) still loads the same', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'old' });
      await log.close();
      const events = [...recordedTurn(1), ...recordedTurn(2)];
      const lines = events.map((e, i) => `${JSON.stringify({ seq: i + 2, ts: '2026-01-01T00:00:00.000Z', ...e })}\n`);
      await appendFile(store.pathOf('old'), lines.join(''));
      const replay = await store.replay('old');
      const updates = events.flatMap((e) => (e.type === 'update' ? [e.update] : []));
      assert.deepStrictEqual(replay.updates.filter((u) => !u.synthesized).map((u) => u.update), updates);
      assert.equal(replay.invalidLines, 0);
    } finally {
      await cleanup();
    }
  });

  test('attack: forged or orphaned compact records are skipped as invalid lines; the records around them still load', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'bad' });
      await log.close();
      const path = store.pathOf('bad');
      const good = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'kept' } };
      const bad = [
        '{"seq":2,"ts":"+5","type":"more","text":"orphan: no full chunk before it"}',
        `{"seq":3,"ts":"2026-01-01T00:00:00.000Z","type":"update","update":${JSON.stringify(good)}}`,
        '{"seq":4,"ts":"+-5","type":"more","text":"negative delta"}',
        '{"seq":5,"ts":"+1e400","type":"more","text":"not an integer delta"}',
        '{"seq":6,"ts":"+5","type":"more","text":{"__proto__":{"polluted":true}}}',
        '{"seq":7,"ts":"+5","type":"more"}',
        '{"seq":8,"ts":"+7","type":"more","text":"continued"}',
      ];
      await writeFile(path, `${(await readFile(path, 'utf8'))}${bad.join('\n')}\n`);
      const replay = await store.replay('bad');
      assert.deepStrictEqual(
        replay.updates.map((u) => u.update),
        [good, { ...good, content: { type: 'text', text: 'continued' } }],
      );
      assert.equal(replay.invalidLines, 5);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      // Opening for appending takes the last valid record's seq.
      const reopened = await store.open('bad');
      assert.equal(reopened.append({ type: 'turn_start' }).seq, 9);
      await reopened.close();
    } finally {
      await cleanup();
    }
  });
});
