import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LogError, SessionStore, type SessionSummary } from '../../../agent/log';
import { chunk, newSession, recordedTurn, tempDataDir } from './fixtures';

async function allPages(store: SessionStore, options: { cwd?: string; limit: number }): Promise<{ pages: number; sessions: SessionSummary[] }> {
  const sessions: SessionSummary[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await store.list({ ...options, ...(cursor ? { cursor } : {}) });
    pages++;
    sessions.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor);
  return { pages, sessions };
}

describe('many sessions and listing', () => {
  test('50 sessions open at once in one process, appends interleaved, each replays only its own records', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const logs = await Promise.all(
        Array.from({ length: 50 }, (_, i) => store.create({ ...newSession(i % 2 ? '/work/odd' : '/work/even'), id: `s${i}` })),
      );
      for (let round = 0; round < 20; round++) {
        for (const [i, log] of logs.entries()) log.append(chunk(`${log.id}:${round}`), { durable: round === 19 && i % 10 === 0 });
      }
      for (const [i, log] of logs.entries()) log.append({ type: 'user_prompt', prompt: [{ type: 'text', text: `prompt of s${i}` }] });
      await Promise.all(logs.map((log) => log.close()));

      for (const [i, log] of logs.entries()) {
        const replay = await store.replay(log.id);
        const texts = replay.updates.filter((u) => u.update.sessionUpdate === 'agent_message_chunk').map((u) => (u.update.content as { text: string }).text);
        assert.deepEqual(texts, Array.from({ length: 20 }, (_, round) => `s${i}:${round}`));
        assert.equal(replay.title, `prompt of s${i}`);
      }

      const everything = await allPages(store, { limit: 7 });
      assert.equal(everything.pages, 8);
      assert.equal(new Set(everything.sessions.map((s) => s.sessionId)).size, 50);
      const order = everything.sessions.map((s) => [s.updatedAt, s.sessionId].join(' '));
      assert.deepEqual(order, [...order].sort((a, b) => (a.split(' ')[0]! === b.split(' ')[0]! ? a.localeCompare(b) : b.localeCompare(a))), 'newest first, ties by id');
      const odd = await allPages(store, { cwd: '/work/odd/', limit: 10 });
      assert.deepEqual(odd.sessions.map((s) => s.sessionId).sort(), Array.from({ length: 25 }, (_, i) => `s${2 * i + 1}`).sort());
      assert.ok(odd.sessions.every((s) => s.cwd === '/work/odd' && s.title === `prompt of ${s.sessionId}`));
      assert.deepEqual((await store.list({ cwd: '/elsewhere' })).sessions, []);
    } finally {
      await cleanup();
    }
  });

  test('the listing cache follows appends, titles and removals, and survives damage', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const a = await store.create({ ...newSession(), id: 'a' });
      for (const event of recordedTurn(1)) a.append(event);
      await a.close();
      await new Promise((resolve) => setTimeout(resolve, 5)); // distinct updatedAt: a tie in the same millisecond orders by id (a before b)
      const b = await store.create({ ...newSession(), id: 'b' });
      await b.close();

      const first = await store.list();
      assert.deepEqual(first.sessions.map((s) => [s.sessionId, s.title]), [['b', undefined], ['a', 'Set a to 1 — “quoted” ✓']]);
      assert.equal(first.nextCursor, undefined);
      const index = JSON.parse(await readFile(join(dir, 'sessions', 'index.json'), 'utf8')) as { sessions: Record<string, { readTo: number }> };
      assert.deepEqual(Object.keys(index.sessions).sort(), ['a', 'b']);

      await new Promise((resolve) => setTimeout(resolve, 5)); // distinct updatedAt
      const again = await store.open('a');
      again.append({ type: 'title', title: 'Renamed' });
      await again.close();
      const second = await store.list();
      assert.deepEqual(second.sessions.map((s) => [s.sessionId, s.title]), [['a', 'Renamed'], ['b', undefined]]);

      // A half-written record at the end (a writer mid-append) is not a record yet.
      await appendFile(store.pathOf('b'), '{"seq":2,"ts":"2099-01-01T00:00:00.000Z","type":"title","tit');
      assert.deepEqual((await store.list()).sessions.map((s) => s.title), ['Renamed', undefined]);

      await store.remove('a');
      assert.deepEqual((await store.list()).sessions.map((s) => s.sessionId), ['b']);
      await writeFile(join(dir, 'sessions', 'index.json'), '{not json');
      assert.deepEqual((await store.list()).sessions.map((s) => s.sessionId), ['b']);
      await assert.rejects(store.list({ cursor: 'garbage' }), (e: unknown) => e instanceof LogError && e.code === 'bad_cursor');
      await assert.rejects(store.remove('a'), (e: unknown) => e instanceof LogError && e.code === 'not_found');
    } finally {
      await cleanup();
    }
  });

  test('a log rewritten behind the cache (same id, different content) is read again from the start', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession('/one'), id: 'x' });
      log.append({ type: 'title', title: 'first life' });
      await log.close();
      assert.equal((await store.list()).sessions[0]!.title, 'first life');
      await store.remove('x');
      const reborn = await store.create({ ...newSession('/two'), id: 'x' });
      for (let i = 0; i < 10; i++) reborn.append(chunk(`padding ${i}`));
      reborn.append({ type: 'title', title: 'second life' });
      await reborn.close();
      const [summary] = (await store.list()).sessions;
      assert.deepEqual([summary!.cwd, summary!.title], ['/two', 'second life']);
    } finally {
      await cleanup();
    }
  });
});
