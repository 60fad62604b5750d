// The update emitter: one ordered stream per session, recorders before deliverers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UpdateEmitter } from '../../../agent/core/emitter';
import type { SessionUpdate } from '../../../agent/core/updates';

const chunk = (text: string): SessionUpdate => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });

test('a record listener finishes each update before any deliver listener sees it', async () => {
  const emitter = new UpdateEmitter();
  const events: string[] = [];
  emitter.subscribe((u) => void events.push(`deliver ${(u as any).content.text}`));
  emitter.subscribe(async (u) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    events.push(`record ${(u as any).content.text}`);
  }, { phase: 'record' });
  // Overlapping emits, as a tool's progress and a plan update can produce.
  await Promise.all([emitter.emit(chunk('a')), emitter.emit(chunk('b'))]);
  assert.deepEqual(events, ['record a', 'deliver a', 'record b', 'deliver b']);
});

test('a failing listener does not stop the others or later updates', async () => {
  const emitter = new UpdateEmitter();
  const seen: string[] = [];
  emitter.subscribe(() => {
    throw new Error('boom');
  });
  emitter.subscribe((u) => void seen.push((u as any).content.text));
  await emitter.emit(chunk('x'));
  await emitter.emit(chunk('y'));
  assert.deepEqual(seen, ['x', 'y']);
});
