// The v2 view of one session, update by update: message ids, tool-call
// upserts, a command's output as an agent-owned terminal (including a tail
// window that moved), structured diffs at the workspace path (a hostile path
// cannot forge a patch section), plans, commands and config options; and
// (property) folding a prefix leaves the view exactly where taking it did.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { gitPatchSection } from '../../../agent/acp/v2/gitPatch';
import { configOptionsV2, SessionV2View, type V1Update } from '../../../agent/acp/v2/view';

const at = (offset: number, update: Record<string, unknown> & { sessionUpdate: string }): V1Update => ({ ...update, _meta: { 'accord/logOffset': offset } });
const text = (t: string) => ({ type: 'text', text: t });
const decode = (data: string) => Buffer.from(data, 'base64').toString('utf8');

describe('SessionV2View', () => {
  test('chunks of one message share an id derived from its first offset; a tool call or another kind starts a new one', () => {
    const view = new SessionV2View('/p');
    const ids = [
      view.take(at(10, { sessionUpdate: 'agent_thought_chunk', content: text('a') })),
      view.take(at(20, { sessionUpdate: 'agent_message_chunk', content: text('b') })),
      view.take(at(30, { sessionUpdate: 'usage_update', used: 1, size: 2 })),
      view.take(at(40, { sessionUpdate: 'agent_message_chunk', content: text('c') })),
      view.take(at(50, { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', kind: 'read' })),
      view.take(at(60, { sessionUpdate: 'agent_message_chunk', content: text('d') })),
    ].map((out) => out[0]!.messageId);
    assert.deepEqual(ids, ['thought-10', 'agent-20', undefined, 'agent-20', undefined, 'agent-60']);
  });

  test('tool_call becomes the creating tool_call_update (pending unless said, cancellable until its final status); updates are upserts', () => {
    const view = new SessionV2View('/p');
    assert.deepEqual(view.take({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read a', kind: 'read' } as V1Update), [
      { sessionUpdate: 'tool_call_update', toolCallId: 't1', title: 'Read a', kind: 'read', status: 'pending', capabilities: { cancel: {} } },
    ]);
    assert.deepEqual(view.take({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' } as V1Update), [
      { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed', capabilities: null },
    ]);
  });

  test('content that only grows is appended with tool_call_content_chunk; other changes replace it', () => {
    const view = new SessionV2View('/p');
    const one = { type: 'content', content: text('step 1') };
    const two = { type: 'content', content: text('step 2') };
    view.take({ sessionUpdate: 'tool_call', toolCallId: 'k', title: 'task', kind: 'think', content: [one] } as V1Update);
    assert.deepEqual(view.take({ sessionUpdate: 'tool_call_update', toolCallId: 'k', content: [one, two] } as V1Update), [{ sessionUpdate: 'tool_call_content_chunk', toolCallId: 'k', content: two }]);
    assert.deepEqual(view.take({ sessionUpdate: 'tool_call_update', toolCallId: 'k', status: 'completed', content: [two] } as V1Update), [
      { sessionUpdate: 'tool_call_update', toolCallId: 'k', status: 'completed', content: [two], capabilities: null },
    ]);
  });

  test("a command's output is a terminal: chunks while it grows, the whole text when the tail window moved, the exit status at the end", () => {
    const view = new SessionV2View('/p', '/ws');
    view.take({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'npm test', kind: 'execute', locations: [{ path: '/p/sub' }] } as V1Update);
    view.take({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'in_progress' } as V1Update);
    const first = view.take({ sessionUpdate: 'tool_call_update', toolCallId: 'c', content: [{ type: 'content', content: text('one\n') }] } as V1Update);
    assert.deepEqual(first.map((u) => u.sessionUpdate), ['terminal_update', 'terminal_output_chunk', 'tool_call_update']);
    assert.deepEqual(first[0], { sessionUpdate: 'terminal_update', terminalId: 'terminal-c', command: 'npm test', cwd: '/ws/sub', capabilities: { cancel: {} } }, 'cancellable until it exits');
    assert.deepEqual(first[2], { sessionUpdate: 'tool_call_update', toolCallId: 'c', content: [{ type: 'terminal', terminalId: 'terminal-c' }] });
    const grown = view.take({ sessionUpdate: 'tool_call_update', toolCallId: 'c', content: [{ type: 'content', content: text('one\ntwo\n') }] } as V1Update);
    assert.deepEqual(grown.map((u) => [u.sessionUpdate, decode(String(u.data))]), [['terminal_output_chunk', 'two\n']]);
    const moved = view.take({ sessionUpdate: 'tool_call_update', toolCallId: 'c', content: [{ type: 'content', content: text('two\nthree\n') }] } as V1Update);
    assert.deepEqual(moved.map((u) => [u.sessionUpdate, decode(String((u.output as { data: string }).data))]), [['terminal_update', 'two\nthree\n']]);
    const done = view.take({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'failed', content: [{ type: 'content', content: text('Exit code 2.\ntwo\nthree\n') }] } as V1Update);
    assert.deepEqual(done, [
      { sessionUpdate: 'terminal_update', terminalId: 'terminal-c', exitStatus: { exitCode: 2 }, capabilities: null },
      { sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'failed', capabilities: null },
    ]);
  });

  test('a command that was refused before it ran keeps its text (no terminal)', () => {
    const view = new SessionV2View('/p');
    view.take({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'rm -rf /', kind: 'execute' } as V1Update);
    const out = view.take({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'failed', content: [{ type: 'content', content: text('The person declined this call.') }] } as V1Update);
    assert.deepEqual(out, [{ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'failed', content: [{ type: 'content', content: text('The person declined this call.') }], capabilities: null }]);
  });

  test('diffs: add or modify at the absolute workspace path, with a git patch; a hostile file name cannot forge a section', () => {
    const view = new SessionV2View('/p', '/ws');
    const [added] = view.take({ sessionUpdate: 'tool_call_update', toolCallId: 'e', content: [{ type: 'diff', path: '/p/new.txt', oldText: null, newText: 'x\n' }] } as V1Update);
    assert.deepEqual((added!.content as any[])[0], {
      type: 'diff',
      changes: [{ operation: 'add', path: '/ws/new.txt', fileType: 'text' }],
      patch: { format: 'git_patch', text: 'diff --git /ws/new.txt /ws/new.txt\nnew file mode 100644\n--- /dev/null\n+++ /ws/new.txt\n@@ -0,0 +1 @@\n+x\n' },
    });
    const evil = '/p/a\ndiff --git /etc/passwd /etc/passwd\n+++ /etc/passwd';
    const [forged] = view.take({ sessionUpdate: 'tool_call_update', toolCallId: 'e', content: [{ type: 'diff', path: evil, oldText: 'a', newText: 'b' }] } as V1Update);
    const patch = (forged!.content as any[])[0].patch.text as string;
    assert.equal(patch.split('\n').filter((line) => line.startsWith('diff --git')).length, 1, 'one section, whatever the name says');
    assert.ok(!patch.includes('\n+++ /etc/passwd'), patch);
    assert.equal((forged!.content as any[])[0].changes[0].path, '/ws/a\ndiff --git /etc/passwd /etc/passwd\n+++ /etc/passwd', 'the structured path is the name, as data');
    // Outside the project: left as it is (never mapped into the workspace).
    assert.equal(view.workspacePath('/elsewhere/x'), '/elsewhere/x');
    assert.equal(view.workspacePath('/p/../etc/x'), '/p/../etc/x');
  });

  test('a diff repeated in later updates gets the patch a fresh diff would, never a neighbour\'s (property)', () => {
    // The view keeps recent patches: repeats, near-repeats (same path or same texts) and more
    // distinct diffs than it keeps must each still get exactly their own patch.
    const texts = fc.constantFrom('', 'a\n', 'a\nb\n', 'a\nB\n', 'x');
    const diff = fc.record({ path: fc.constantFrom('/p/a.ts', '/p/b.ts', '/elsewhere/c'), oldText: fc.option(texts, { nil: null }), newText: texts });
    fc.assert(
      fc.property(fc.array(diff, { maxLength: 40 }), (diffs) => {
        const view = new SessionV2View('/p', '/ws');
        diffs.forEach((d, i) => {
          const [update] = view.take({ sessionUpdate: 'tool_call_update', toolCallId: `c${i % 3}`, content: [{ type: 'diff', ...d }] } as V1Update);
          const patch = (update!.content as any[])[0].patch.text as string;
          assert.equal(patch, gitPatchSection(view.workspacePath(d.path), d.oldText, d.newText));
        });
      }),
    );
  });

  test('plans, commands, config options and modes take their v2 shapes', () => {
    const view = new SessionV2View('/p');
    assert.deepEqual(view.take({ sessionUpdate: 'plan', entries: [{ content: 'x', priority: 'high', status: 'pending' }] } as V1Update), [
      { sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'plan', entries: [{ content: 'x', priority: 'high', status: 'pending' }] } },
    ]);
    assert.deepEqual(view.take({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'd', input: { hint: 'h' } }, { name: 'x', description: 'y' }] } as V1Update), [
      { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'd', type: 'command', input: { type: 'text', hint: 'h' } }, { name: 'x', description: 'y', type: 'command' }] },
    ]);
    assert.deepEqual(view.take({ sessionUpdate: 'current_mode_update', currentModeId: 'auto' } as V1Update), [], 'v2 has no modes: the config option says it');
    assert.deepEqual(configOptionsV2([{ id: 'mode', name: 'Mode', category: 'mode', type: 'select', currentValue: 'ask', options: [{ group: 'g', name: 'G', options: [{ value: 'ask', name: 'Ask' }] }] }]), [
      { configId: 'mode', name: 'Mode', category: 'mode', type: 'select', currentValue: 'ask', options: [{ groupId: 'g', name: 'G', options: [{ value: 'ask', name: 'Ask' }] }] },
    ]);
  });

  test('folding any prefix leaves the view where taking it did (property)', () => {
    const kinds = ['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk', 'tool_call', 'tool_call_update', 'usage_update'] as const;
    const updateArb = fc.tuple(fc.constantFrom(...kinds), fc.constantFrom('t1', 't2'), fc.string({ maxLength: 5 }));
    fc.assert(
      fc.property(fc.array(updateArb, { minLength: 1, maxLength: 30 }), fc.nat(), (specs, cutAt) => {
        const updates = specs.map(([kind, id, t], i): V1Update => {
          const offset = (i + 1) * 100;
          if (kind === 'tool_call') return at(offset, { sessionUpdate: kind, toolCallId: id, title: t, kind: 'execute' });
          if (kind === 'tool_call_update') return at(offset, { sessionUpdate: kind, toolCallId: id, status: 'in_progress', content: [{ type: 'content', content: text(t) }] });
          if (kind === 'usage_update') return at(offset, { sessionUpdate: kind, used: 1, size: 2 });
          return at(offset, { sessionUpdate: kind, content: text(t) });
        });
        const cut = cutAt % (updates.length + 1);
        const whole = new SessionV2View('/p');
        const all = updates.map((u) => whole.take(u));
        const resumed = new SessionV2View('/p');
        updates.slice(0, cut).forEach((u) => resumed.take(u)); // folded: results dropped
        const rest = updates.slice(cut).map((u) => resumed.take(u));
        assert.deepEqual(rest, all.slice(cut));
      }),
    );
  });
});
