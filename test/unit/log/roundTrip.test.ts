import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { LogError, SessionStore, type Appended, type LogEvent } from '../../../agent/log';
import { chunk, newSession, recordedTurn, tempDataDir } from './fixtures';

describe('session log round trip', () => {
  test('what was appended is replayed: updates in order, history, settings, title', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'rt1' });
      const events: LogEvent[] = [...recordedTurn(1), { type: 'config_change', config: { model: 'openai/gpt', mode: 'ask' } }, ...recordedTurn(2)];
      const appended = events.map((event) => ({ event, at: log.append(event) }));
      await log.close();

      const replay = await store.replay('rt1');
      assert.equal(replay.sessionId, 'rt1');
      assert.equal(replay.cwd, '/work/project');
      assert.deepEqual(replay.config, { model: 'openai/gpt', mode: 'ask' });
      assert.equal(replay.title, 'Set a to 1 — “quoted” ✓');
      assert.equal(replay.lastTurnInterrupted, false);
      assert.equal(replay.turnInProgress, false);

      const expected = appended.flatMap(({ event, at }) => {
        if (event.type === 'update') return [{ offset: at.offset, update: event.update }];
        if (event.type === 'user_prompt') {
          return event.prompt.map((content) => ({ offset: at.offset, update: { sessionUpdate: 'user_message_chunk', content }, synthesized: true }));
        }
        return [];
      });
      assert.deepEqual(replay.updates, expected);
      const history = events.flatMap((e) => (e.type === 'model_message' ? [e.message] : []));
      assert.deepEqual(replay.history, history);
    } finally {
      await cleanup();
    }
  });

  test('an explicit title wins over the first prompt; long prompts are cut at a word', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'titled' });
      const long = 'Please refactor the session log writer so that it batches appends and syncs at turn boundaries only, thanks';
      log.append({ type: 'user_prompt', prompt: [{ type: 'text', text: `  ${long}\n\nmore` }] });
      await log.sync();
      const untitled = await store.replay('titled');
      assert.ok(untitled.title && untitled.title.length <= 80 && untitled.title.endsWith('…'), untitled.title);
      assert.ok(long.startsWith(untitled.title.slice(0, -1)), 'cut at a word boundary of the prompt');
      assert.doesNotMatch(untitled.title, /\s…$/);
      log.append({ type: 'title', title: 'Batching the log writer' });
      await log.close();
      assert.equal((await store.replay('titled')).title, 'Batching the log writer');
    } finally {
      await cleanup();
    }
  });

  test('offsets are exact byte offsets of each record, also after multi-byte text', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'offsets' });
      const appended: Appended[] = [];
      for (let i = 0; i < 200; i++) appended.push(log.append(chunk(`ünïcødé ${'🙂'.repeat(i % 7)} ${i}`)));
      await log.close();
      const bytes = await readFile(store.pathOf('offsets'));
      for (const at of appended) {
        assert.equal(bytes[at.offset - 1], 0x0a);
        assert.equal(JSON.parse(bytes.subarray(at.offset, bytes.indexOf(0x0a, at.offset)).toString('utf8')).seq, at.seq);
      }
      const read = [];
      for await (const entry of store.read('offsets')) read.push(entry.offset);
      assert.deepEqual(read.slice(1), appended.map((a) => a.offset));

      const middle = appended[120]!;
      const fromMiddle = [];
      for await (const entry of store.read('offsets', { from: middle.offset })) fromMiddle.push(entry.record.seq);
      assert.deepEqual(fromMiddle, appended.slice(120).map((a) => a.seq));
      const replayed = await store.replay('offsets', { fromOffset: middle.offset });
      assert.equal(replayed.updates.length, 80);
      assert.equal(replayed.updates[0]!.offset, middle.offset);
      assert.equal((await store.replay('offsets', { fromOffset: bytes.length })).updates.length, 0);

      for (const bad of [middle.offset + 1, middle.offset - 1, bytes.length + 10, -5]) {
        await assert.rejects(async () => {
          for await (const _ of store.read('offsets', { from: bad })) break;
        }, (error: unknown) => error instanceof LogError && error.code === 'bad_offset', `read from ${bad}`);
        await assert.rejects(store.replay('offsets', { fromOffset: bad }), (error: unknown) => error instanceof LogError && error.code === 'bad_offset', `replay from ${bad}`);
      }
    } finally {
      await cleanup();
    }
  });

  test('records of unknown future types are kept and skipped by replay; invalid lines in the middle are skipped, not fatal', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'future' });
      log.append(chunk('before'));
      await log.close();
      const { appendFile } = await import('node:fs/promises');
      const ts = new Date().toISOString();
      const foreign = JSON.stringify({ seq: 3, ts, type: 'hologram', beam: 1 });
      const later = JSON.stringify({ seq: 4, ts, type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'later' } } });
      await appendFile(store.pathOf('future'), `${foreign}\nnot json at all\n${later}\n`);
      const reopened = await store.open('future');
      assert.equal(reopened.recovery.tornBytes, 0, 'a damaged line followed by records is not a torn tail');
      reopened.append(chunk('after'));
      await reopened.close();
      const entries = [];
      const invalid: number[] = [];
      for await (const entry of store.read('future', { onInvalid: (offset) => invalid.push(offset) })) entries.push(entry);
      assert.deepEqual(entries.map((e) => [e.record.seq, e.record.type, e.known]), [
        [1, 'session_created', true],
        [2, 'update', true],
        [3, 'hologram', false],
        [4, 'update', true],
        [5, 'update', true],
      ]);
      assert.equal(invalid.length, 1);
      const replay = await store.replay('future');
      assert.equal(replay.invalidLines, 1);
      assert.deepEqual(replay.updates.map((u) => (u.update.content as { text: string }).text), ['before', 'later', 'after']);
      await assert.rejects(store.replay('future', { fromOffset: invalid[0] }), (e: unknown) => e instanceof LogError && e.code === 'bad_offset');
    } finally {
      await cleanup();
    }
  });

  test('create refuses an existing id and bad ids; open refuses a missing session', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      await (await store.create({ ...newSession(), id: 'dup' })).close();
      await assert.rejects(store.create({ ...newSession(), id: 'dup' }), (e: unknown) => e instanceof LogError && e.code === 'already_exists');
      await assert.rejects(store.create({ ...newSession(), id: '../escape' }), (e: unknown) => e instanceof LogError && e.code === 'bad_session_id');
      await assert.rejects(store.open('nope'), (e: unknown) => e instanceof LogError && e.code === 'not_found');
      const fresh = await store.create(newSession());
      assert.match(fresh.id, /^[0-9a-f-]{36}$/);
      await fresh.close();
    } finally {
      await cleanup();
    }
  });
});
