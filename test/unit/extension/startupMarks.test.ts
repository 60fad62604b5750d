import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setStartupLog, startupConnected, startupMark, startupMarks, startupPanelBoot } from '../../../extension/startup/startupMarks';

test('startup marks: each taken once, logged in order in one line when the panel first hears "connected", never again', () => {
  const lines: string[] = [];
  setStartupLog((line) => lines.push(line));
  startupMark('activate start');
  startupMark('view resolved');
  const first = startupMarks().get('view resolved');
  startupMark('view resolved'); // a second view (after a reload of the panel) keeps the first time
  assert.equal(startupMarks().get('view resolved'), first);
  startupMark('panel ready');
  // The panel's boot, on its own clock, lands before its ready in order; a second panel's does not count.
  startupPanelBoot({ requested: 100, loaded: 180, ran: 190, ready: 250 });
  const began = startupMarks().get('panel document began') as number;
  assert.equal((startupMarks().get('panel boot script loaded') as number) - began, 180);
  startupPanelBoot({ requested: 1, loaded: 2, ran: 3, ready: 4 });
  assert.equal(startupMarks().get('panel document began'), began);
  startupConnected();
  startupConnected();
  startupMark('late');
  assert.equal(lines.length, 1);
  const names = [...(lines[0] ?? '').matchAll(/([a-z][a-z ]+?) -?\d+ \([+-]?\d+\)/g)].map((m) => m[1]?.replace(/^, /, '').trim());
  assert.deepEqual(names.filter((n) => !n?.startsWith('panel ') || n === 'panel ready' || n === 'panel told connected'), ['bundle evaluated', 'activate start', 'view resolved', 'panel ready', 'panel told connected']);
  assert.deepEqual(names.filter((n) => n?.startsWith('panel ') && n !== 'panel ready' && n !== 'panel told connected'), ['panel document began', 'panel boot script requested', 'panel boot script loaded', 'panel boot script ran']);
  assert.ok(!startupMarks().has('late'));
  assert.match(lines[0] ?? '', /; clock origin \d+(\.\d)? ms since the epoch$/, 'the clock origin, for a bench to place the marks on its own clock');
});
