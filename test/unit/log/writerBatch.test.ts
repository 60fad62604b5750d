// Records appended before the writer's next write share that write and one
// commit promise; records after it get the next. Each record keeps its own
// offset and timestamp, compact chunk records included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LogWriter } from '../../../agent/log/writer';
import { chunk, tempDataDir } from './fixtures';

test('records appended together share one commit; a record after the write waits for the next one', async (t) => {
  const { dir, cleanup } = await tempDataDir();
  t.after(cleanup);
  const path = join(dir, 'log.jsonl');
  await writeFile(path, '');
  const writer = await LogWriter.open(path, { size: 0, nextSeq: 1 });
  const before = Date.now();
  const together = ['a', 'b', 'c'].map((text) => writer.append(chunk(text)));
  assert.equal(together[1]!.committed, together[0]!.committed);
  assert.equal(together[2]!.committed, together[0]!.committed);
  await together[0]!.committed;
  const text = await readFile(path, 'utf8');
  const lines = text.split('\n').filter(Boolean);
  assert.equal(lines.length, 3);
  // Offsets and seqs are each record's own, the compact ones included.
  assert.deepEqual(together.map((a) => a.seq), [1, 2, 3]);
  for (const [i, appended] of together.entries()) assert.equal(text.slice(appended.offset).split('\n')[0], lines[i]);
  assert.match(lines[1]!, /"type":"more"/);
  // The timestamp of a compact record, made only when asked for, is still the time it was appended.
  for (const appended of together) {
    const ms = Date.parse(appended.ts);
    assert.ok(ms >= before && ms <= Date.now(), appended.ts);
  }

  const later = writer.append(chunk('d'), { durable: true });
  assert.notEqual(later.committed, together[0]!.committed);
  await later.committed;
  assert.equal((await readFile(path, 'utf8')).split('\n').filter(Boolean).length, 4);
  await writer.close();
});

test('the first write of a loop turn goes out without waiting for the loop; later ones in that turn gather behind it', async (t) => {
  const { dir, cleanup } = await tempDataDir();
  t.after(cleanup);
  const path = join(dir, 'log.jsonl');
  await writeFile(path, '');
  const writer = await LogWriter.open(path, { size: 0, nextSeq: 1 });
  await new Promise((resolve) => setImmediate(resolve)); // a fresh loop turn
  let turned = false;
  setImmediate(() => (turned = true));
  const first = writer.append(chunk('first'));
  await first.committed;
  assert.equal(turned, false, 'a lone record does not wait for the loop to turn');
  const later = ['b', 'c'].map((text) => writer.append(chunk(text)));
  assert.equal(later[0]!.committed, later[1]!.committed);
  await later[1]!.committed;
  assert.equal(turned, true, 'the next write of the same turn waited for the loop');
  assert.equal((await readFile(path, 'utf8')).split('\n').filter(Boolean).length, 3);
  await writer.close();
});
