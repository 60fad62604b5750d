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

  describe('the truth about the disk (issue 20)', () => {
    test("oldText: null on a file that exists with 4 lines: Replace 4 lines → 1, and the diff's old side is the real text", () => {
      const current = new Map([['/w/notes.md', 'one\ntwo\nthree\nfour\n']]);
      const s = summarizeEffect(
        { toolCallId: 't', kind: 'edit', content: [{ type: 'diff', path: '/w/notes.md', oldText: null, newText: 'just one\n' }] },
        undefined,
        { current },
      );
      assert.match(s.detail, /Replace: \/w\/notes\.md \(4 lines → 1; it exists/);
      assert.doesNotMatch(s.detail, /Create/);
      assert.equal(s.files[0]?.oldText, 'one\ntwo\nthree\nfour\n', 'Show Diff compares against the disk');
    });

    test('an agent whose oldText is not what is on disk: the disk wins and the dialog says they differ', () => {
      const s = summarizeEffect(
        { toolCallId: 't', content: [{ type: 'diff', path: '/w/a', oldText: 'stale\n', newText: 'new\n' }] },
        undefined,
        { current: new Map([['/w/a', 'real\nreal\n']]) },
      );
      assert.match(s.detail, /Change: \/w\/a \(2 → 1 line\) \(the file on disk is not what the agent saw\)/);
      assert.equal(s.files[0]?.oldText, 'real\nreal\n');
    });

    test("claude-agent-acp's Edit (old_string → new_string as the diff): the whole file with the fragment replaced", () => {
      const s = summarizeEffect(
        { toolCallId: 't', kind: 'edit', content: [{ type: 'diff', path: '/w/hello.txt', oldText: 'two', newText: 'TWO' }] },
        undefined,
        { current: new Map([['/w/hello.txt', 'one\ntwo\nthree\n']]) },
      );
      assert.equal(s.detail, 'Change: /w/hello.txt (3 → 3 lines)');
      assert.deepEqual(s.files, [{ path: '/w/hello.txt', oldText: 'one\ntwo\nthree\n', newText: 'one\nTWO\nthree\n' }], 'Show Diff shows the file, not "TWO" alone');
    });

    test('a fragment found twice, or not at all, or empty, stays a claim that differs from the disk', () => {
      for (const [onDisk, fragment] of [['two\ntwo\n', 'two'], ['one\n', 'two'], ['one\n', '']] as const) {
        const s = summarizeEffect({ toolCallId: 't', content: [{ type: 'diff', path: '/w/a', oldText: fragment, newText: 'X' }] }, undefined, { current: new Map([['/w/a', onDisk]]) });
        assert.match(s.detail, /not what the agent saw/, `${JSON.stringify(onDisk)} / ${JSON.stringify(fragment)}`);
        assert.equal(s.files[0]?.newText, 'X');
      }
    });

    test('attack: replacement patterns in the agent\'s new text stay literal', () => {
      const s = summarizeEffect({ toolCallId: 't', content: [{ type: 'diff', path: '/w/a', oldText: 'b', newText: "$&$'$`$1" }] }, undefined, { current: new Map([['/w/a', 'abc']]) });
      assert.equal(s.files[0]?.newText, "a$&$'$`$1c");
    });

    test('an agent that says a file exists when it does not: Create', () => {
      const s = summarizeEffect({ toolCallId: 't', content: [{ type: 'diff', path: '/w/gone', oldText: 'x\n', newText: 'y\n' }] }, undefined, { current: new Map([['/w/gone', null]]) });
      assert.match(s.detail, /Create: \/w\/gone \(1 line\) \(the agent thought it existed/);
      assert.equal(s.files[0]?.oldText, null);
    });

    test('an unreadable file keeps the agent\'s claim', () => {
      const s = summarizeEffect({ toolCallId: 't', content: [{ type: 'diff', path: '/w/x', oldText: null, newText: 'y' }] }, undefined, { current: new Map() });
      assert.match(s.detail, /Create: \/w\/x/);
    });

    test('working folder: from the request, else from the call it refers to, else unknown', () => {
      const fromRequest = summarizeEffect({ toolCallId: 't', rawInput: { command: 'ls', cwd: '/req' } }, undefined, { announced: { toolCallId: 't', rawInput: { command: 'ls', cwd: '/ann' } } });
      assert.match(fromRequest.detail, /In: \/req/);
      const fromAnnounced = summarizeEffect({ toolCallId: 't', rawInput: { command: 'ls' } }, undefined, { announced: { toolCallId: 't', rawInput: { command: 'ls', workdir: '/ann' } } });
      assert.match(fromAnnounced.detail, /In: \/ann/);
      assert.equal(fromAnnounced.command?.cwd, '/ann');
      const unknown = summarizeEffect({ toolCallId: 't', rawInput: { command: 'ls' } });
      assert.match(unknown.detail, /In: unknown/);
    });

    test('text content is used when the agent gives no structured description', () => {
      const s = summarizeEffect({
        toolCallId: 't', kind: 'execute', title: 'Shell',
        content: [{ type: 'content', content: { type: 'text', text: 'rm -rf build (in /w/project)' } }],
      });
      assert.match(s.detail, /Agent says: rm -rf build \(in \/w\/project\)/);
      assert.doesNotMatch(s.detail, /did not describe/);
    });

    test('a change that could not be made reviewable says so first, with each path and why', () => {
      const s = summarizeEffect({ toolCallId: 't', kind: 'edit' }, undefined, { unreviewable: [{ path: '/w/link', why: 'it is a symbolic link' }] });
      assert.match(s.detail, /^This change could not be made reviewable; allow anyway\?\nNot kept: \/w\/link \(it is a symbolic link\)/);
    });
  });
});
