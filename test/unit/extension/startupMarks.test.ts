import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setStartupLog, startupConnected, startupMark, startupMarks } from '../../../extension/startup/startupMarks';

test('startup marks: each taken once, logged in order in one line when the panel first hears "connected", never again', () => {
  const lines: string[] = [];
  setStartupLog((line) => lines.push(line));
  startupMark('activate start');
  startupMark('view resolved');
  const first = startupMarks().get('view resolved');
  startupMark('view resolved'); // a second view (after a reload of the panel) keeps the first time
  assert.equal(startupMarks().get('view resolved'), first);
  startupMark('panel ready');
  startupConnected();
  startupConnected();
  startupMark('late');
  assert.equal(lines.length, 1);
  const names = [...(lines[0] ?? '').matchAll(/([a-z][a-z ]+?) \d+ \([+-]?\d+\)/g)].map((m) => m[1]?.replace(/^, /, '').trim());
  assert.deepEqual(names, ['bundle evaluated', 'activate start', 'view resolved', 'panel ready', 'panel told connected']);
  assert.ok(!startupMarks().has('late'));
});
