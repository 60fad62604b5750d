import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readdir, readFile, stat, truncate } from 'node:fs/promises';
import { SessionStore } from '../../../agent/log';
import { startChild } from './child/spawnChild';
import { chunk, newSession, recordedTurn, tempDataDir } from './fixtures';

async function seqsOf(store: SessionStore, id: string): Promise<number[]> {
  const seqs: number[] = [];
  for await (const entry of store.read(id)) seqs.push(entry.record.seq);
  return seqs;
}

describe('crash recovery', () => {
  test('a line cut mid-write is removed, saved beside the log, and followed by an interrupted record', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'torn' });
      for (const event of recordedTurn(1)) log.append(event);
      log.append({ type: 'turn_start' });
      const last = log.append(chunk('this line will be torn'));
      await log.close();
      const path = store.pathOf('torn');
      const original = await readFile(path);
      await truncate(path, last.offset + 17);

      const reopened = await store.open('torn');
      assert.deepEqual(reopened.recovery, { tornBytes: 17, turnOpen: true, interrupted: true, savedTo: reopened.recovery.savedTo });
      assert.deepEqual(await readFile(reopened.recovery.savedTo!), original.subarray(last.offset, last.offset + 17));
      reopened.append(chunk('next turn'));
      await reopened.close();

      const bytes = await readFile(path);
      assert.deepEqual(bytes.subarray(0, last.offset), original.subarray(0, last.offset), 'nothing before the torn line changed');
      const seqs = await seqsOf(store, 'torn');
      assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1), 'seqs stay contiguous');
      const replay = await store.replay('torn');
      assert.equal(replay.lastTurnInterrupted, true, 'an update outside a turn does not clear it; only a new turn does');
      assert.equal(replay.invalidLines, 0);
    } finally {
      await cleanup();
    }
  });

  test('garbage appended after the last record (with and without newlines) is cut', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'garbage' });
      for (const event of recordedTurn(1)) log.append(event);
      await log.close();
      const path = store.pathOf('garbage');
      const clean = await readFile(path);
      const garbage = Buffer.concat([Buffer.from('{"seq": "x"}\n\n\u0000\u0000'), Buffer.from([0xff, 0xfe, 0x0a, 0x41])]);
      await appendFile(path, garbage);

      const reopened = await store.open('garbage');
      assert.equal(reopened.recovery.tornBytes, garbage.length);
      assert.equal(reopened.recovery.turnOpen, false);
      await reopened.close();
      const bytes = await readFile(path);
      assert.deepEqual(bytes.subarray(0, clean.length), clean);
      const records = [];
      for await (const entry of store.read('garbage')) records.push(entry.record);
      assert.deepEqual(records.at(-1), { ...records.at(-1)!, type: 'interrupted', tornBytes: garbage.length, turnOpen: false });
      const replay = await store.replay('garbage');
      assert.equal(replay.lastTurnInterrupted, false, 'the last turn had ended before the garbage');
      assert.equal(replay.updates.length, recordedTurn(1).filter((e) => e.type === 'update').length + 1);
    } finally {
      await cleanup();
    }
  });

  test('a turn that started and never ended is closed by an interrupted record; open tool calls fail; the history gets results', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      const log = await store.create({ ...newSession(), id: 'midturn' });
      for (const event of recordedTurn(1)) log.append(event);
      const turn2 = recordedTurn(2);
      // Stop right after the permission request: the tool call is pending, the model asked for it.
      const cut = turn2.findIndex((e) => e.type === 'permission_request') + 1;
      for (const event of turn2.slice(0, cut)) log.append(event);
      log.append({ type: 'model_message', message: { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_2', toolName: 'edit', input: {} }] } });
      await log.sync();
      // The writer "dies": no close, the lock stays with this pid. A new
      // process would find the pid dead; here the lock is released by hand.
      await (log as unknown as { writer: { close(): Promise<void> } }).writer.close();
      (log as unknown as { lock: { release(): void } }).lock.release();

      const before = await stat(store.pathOf('midturn'));
      const reopened = await store.open('midturn');
      assert.deepEqual(reopened.recovery, { tornBytes: 0, turnOpen: true, interrupted: true });
      const interruptedAt = reopened.size;
      await reopened.close();
      assert.ok(interruptedAt > before.size, 'an interrupted record was appended');

      const replay = await store.replay('midturn');
      assert.equal(replay.lastTurnInterrupted, true);
      const [closing, notice] = replay.updates.slice(-2);
      assert.deepEqual(closing, { offset: before.size, update: { sessionUpdate: 'tool_call_update', toolCallId: 'call_2', status: 'failed' }, synthesized: true });
      // The replay ends the turn with a message any client shows, saying it was interrupted and when.
      assert.equal(notice!.update.sessionUpdate, 'agent_message_chunk');
      assert.match((notice!.update.content as { text: string }).text, /This turn was interrupted: the agent stopped \(crashed or was killed\) at \d{4}-\d\d-\d\dT/);
      assert.equal(notice!.synthesized, true);
      const lastMessage = replay.history.at(-1)!;
      assert.equal(lastMessage.role, 'tool');
      assert.deepEqual((lastMessage.content as Array<Record<string, unknown>>).map((p) => [p.type, p.toolCallId]), [['tool-result', 'call_2']]);

      // Reopening a clean, closed log changes nothing.
      const size = (await stat(store.pathOf('midturn'))).size;
      const again = await store.open('midturn');
      assert.equal(again.recovery.interrupted, false);
      again.append({ type: 'turn_start' });
      again.append({ type: 'turn_end', stopReason: 'end_turn' }, { durable: true });
      await again.close();
      assert.ok((await stat(store.pathOf('midturn'))).size > size);
      assert.equal((await store.replay('midturn')).lastTurnInterrupted, false, 'a completed turn clears it');
    } finally {
      await cleanup();
    }
  });

  test('kill -9 of a process appending in a loop loses nothing it committed; the log reopens', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = new SessionStore(dir);
      await (await store.create({ ...newSession(), id: 'killed' })).close();
      const child = startChild('append', dir, 'killed');
      let committed = 0;
      await child.waitFor((line) => {
        committed = Number(line.split(' ')[1]);
        return committed >= 2000;
      });
      await child.kill9();
      const lastReported = Math.max(...child.lines.map((l) => Number(l.split(' ')[1])));

      const sizeAtKill = (await stat(store.pathOf('killed'))).size;
      const reopened = await store.open('killed');
      assert.equal(reopened.recovery.turnOpen, true, 'the child was mid-turn');
      await reopened.close();
      const seqs = await seqsOf(store, 'killed');
      assert.ok(seqs.length >= lastReported, `${seqs.length} records, child reported ${lastReported} committed`);
      assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1));
      const replay = await store.replay('killed');
      assert.equal(replay.lastTurnInterrupted, true);
      assert.equal(replay.invalidLines, 0);
      assert.ok(sizeAtKill - reopened.recovery.tornBytes <= (await stat(store.pathOf('killed'))).size);
      const torn = (await readdir(dir + '/sessions')).filter((n) => n.includes('.torn-'));
      assert.equal(torn.length, reopened.recovery.tornBytes > 0 ? 1 : 0);
    } finally {
      await cleanup();
    }
  });
});
