import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { EFFECT_META_KEY, summarizeEffect } from '../../../extension/approvals/effectSummary';

describe('approval effect summary', () => {
  test('argv and cwd from rawInput', () => {
    const s = summarizeEffect({ toolCallId: 't', title: 'Run tests', kind: 'execute', rawInput: { command: ['npm', 'run', 'my test'], cwd: '/w' } });
    assert.deepEqual(s.command?.argv, ['npm', 'run', 'my test']);
    assert.match(s.detail, /Command: npm run 'my test'/);
    assert.match(s.detail, /In: \/w/);
  });

  test('a shell line is shown as such', () => {
    const s = summarizeEffect({ toolCallId: 't', rawInput: { command: 'rm -rf build && make' } });
    assert.equal(s.command?.line, 'rm -rf build && make');
    assert.match(s.detail, /run by a shell/);
  });

  test("Accord's effect metadata wins, with env changes", () => {
    const s = summarizeEffect({
      toolCallId: 't',
      rawInput: { command: 'ignored' },
      _meta: { [EFFECT_META_KEY]: { type: 'command', command: { argv: ['ls', '-la'], cwd: '/p', envChanges: { CI: '1' } } } },
    });
    assert.deepEqual(s.command?.argv, ['ls', '-la']);
    assert.match(s.detail, /Env: CI=1/);
  });

  test('diff content becomes proposed files', () => {
    const s = summarizeEffect({
      toolCallId: 't', kind: 'edit', title: 'Edit a.ts',
      content: [{ type: 'diff', path: '/w/a.ts', oldText: 'a\n', newText: 'a\nb\n' }, { type: 'diff', path: '/w/new.ts', newText: 'x' }],
    });
    assert.deepEqual(s.files.map((f) => [f.path, f.oldText]), [['/w/a.ts', 'a\n'], ['/w/new.ts', null]]);
    assert.match(s.detail, /Change: \/w\/a.ts/);
    assert.match(s.detail, /Create: \/w\/new.ts/);
  });

  test('line counts are the lines a person sees: a final newline ends the last line, it does not start another', () => {
    const s = summarizeEffect({
      toolCallId: 't', kind: 'edit',
      content: [{ type: 'diff', path: '/w/a.ts', oldText: 'a\n', newText: 'a\nb\n' }, { type: 'diff', path: '/w/new.ts', newText: 'x' }, { type: 'diff', path: '/w/empty.ts', newText: '' }],
    });
    assert.match(s.detail, /Change: \/w\/a.ts \(1 → 2 lines\)/);
    assert.match(s.detail, /Create: \/w\/new.ts \(1 line\)/);
    assert.match(s.detail, /Create: \/w\/empty.ts \(0 lines\)/);
  });

  test('nothing described: says so', () => {
    assert.match(summarizeEffect({ toolCallId: 't' }).detail, /did not describe/);
  });
});
