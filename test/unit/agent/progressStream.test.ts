// Live output never queues: at most one update in flight, each a snapshot of
// the latest tail, and nothing after close. Results are capped head + tail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { capText } from '../../../agent/core/outputCap';
import { PROGRESS_TAIL_CHARS, ProgressStream } from '../../../agent/core/progressStream';

test('a fast producer against a slow consumer: one update in flight, the last one shows the latest tail', async () => {
  const sent: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let release: (() => void) | undefined;
  const stream = new ProgressStream(async (snapshot) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    sent.push(snapshot);
    await new Promise<void>((resolve) => (release = resolve));
    inFlight -= 1;
  }, 0);
  for (let i = 0; i < 10_000; i += 1) stream.push(`line ${i}\n`);
  while (sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
  for (let i = 10_000; i < 20_000; i += 1) stream.push(`line ${i}\n`);
  release!();
  while (sent.length < 2) await new Promise((resolve) => setImmediate(resolve));
  release!();
  await stream.close();
  stream.push('after close\n');
  assert.equal(maxInFlight, 1);
  assert.equal(sent.length, 2, 'twenty thousand chunks became two updates');
  assert.ok(sent.every((s) => s.length <= PROGRESS_TAIL_CHARS));
  assert.ok(sent[1]!.endsWith('line 19999\n'));
});

test('capText keeps short text, and cuts long text to start + marker + end without splitting a surrogate pair', () => {
  assert.equal(capText('short', 100), 'short');
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 8, max: 200 }), (text, max) => {
      const capped = capText(text, max);
      if (text.length <= max) return capped === text;
      const match = /^([\s\S]*)\n\[… ([\d,]+) characters omitted \(([\d,]+) in all\); the start and the end are shown …\]\n([\s\S]*)$/.exec(capped);
      if (!match) return false;
      const [, start, omitted, all, end] = match;
      return text.startsWith(start!) && text.endsWith(end!) && start!.length + end!.length <= max && Number(omitted!.replace(/,/g, '')) === text.length - start!.length - end!.length && Number(all!.replace(/,/g, '')) === text.length && !/[\uD800-\uDBFF]$/.test(start!) && !/^[\uDC00-\uDFFF]/.test(end!);
    }),
  );
});
