import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accordDataDir, sessionLogPath, titleFromPrompt, truncateTitle } from '../../../agent/log';

test('data dir: ACCORD_HOME, XDG state on Linux, Application Support on macOS, LOCALAPPDATA on Windows', () => {
  const home = '/home/ada';
  assert.equal(accordDataDir({ env: { ACCORD_HOME: '/opt/acc', XDG_STATE_HOME: '/x' }, platform: 'linux', home }), '/opt/acc');
  assert.equal(accordDataDir({ env: { XDG_STATE_HOME: '/var/state' }, platform: 'linux', home }), '/var/state/accord');
  assert.equal(accordDataDir({ env: { XDG_STATE_HOME: 'relative/is/ignored' }, platform: 'linux', home }), '/home/ada/.local/state/accord');
  assert.equal(accordDataDir({ env: {}, platform: 'linux', home }), '/home/ada/.local/state/accord');
  assert.equal(accordDataDir({ env: {}, platform: 'darwin', home: '/Users/ada' }), '/Users/ada/Library/Application Support/Accord');
  assert.match(accordDataDir({ env: { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' }, platform: 'win32', home }), /^C:\\Users\\ada\\AppData\\Local.Accord$/);
  assert.equal(sessionLogPath('/d', 'abc-1_2'), '/d/sessions/abc-1_2.jsonl');
  for (const bad of ['', '../x', 'a/b', 'a.b', 'x'.repeat(129), 'con\u0000']) assert.throws(() => sessionLogPath('/d', bad), /not a valid session id/);
});

test('titles: first prompt text on one line, cut at a word, attachments named when there is no text', () => {
  assert.equal(titleFromPrompt([{ type: 'text', text: '  Fix\n\n the   bug ' }]), 'Fix the bug');
  assert.equal(titleFromPrompt([{ type: 'resource_link', uri: 'file:///a/b.ts', name: 'b.ts' }, { type: 'image', data: '', mimeType: 'image/png' }]), 'b.ts, image');
  assert.equal(titleFromPrompt([]), undefined);
  const long = truncateTitle('word '.repeat(40))!;
  assert.ok(long.length <= 80 && long.endsWith('word…'), long);
  const unbroken = truncateTitle('😀'.repeat(100))!;
  assert.equal(Array.from(unbroken).length, 80, 'counted in characters, never splitting an emoji');
});
