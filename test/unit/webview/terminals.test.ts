// Terminals in tool cards (issue 18): agent-owned ones streamed in `_meta`
// (terminal_info / terminal_output / terminal_exit), client-owned ones from
// the extension's terminalOutput messages; bounded either way.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { HostMessage } from '../../../webview/protocol';
import { ChatStore } from '../../../webview/state/store';
import { TERMINAL_KEEP } from '../../../webview/state/content';
import type { TerminalContent } from '../../../webview/state/types';

const S = 's1';
const up = (update: Record<string, unknown>): HostMessage => ({ type: 'sessionUpdate', epoch: 1, sessionId: S, update: { sessionUpdate: String(update.sessionUpdate), ...update } });
const meta = (field: string, value: Record<string, unknown>) => up({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', _meta: { [field]: value } });

function store(...messages: HostMessage[]): ChatStore {
  const s = new ChatStore();
  for (const m of [{ type: 'sessionStarted', epoch: 1, sessionId: S, origin: 'new' } as HostMessage, ...messages]) s.apply(m);
  return s;
}
const terminalOf = (s: ChatStore, id = 'c1') => s.main.tools.get(id)?.content.find((c): c is TerminalContent => c.type === 'terminal');

describe('terminals in tool cards', () => {
  test('an agent-owned terminal: info opens it, output chunks append, exit ends it', () => {
    const s = store(
      up({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'ls', kind: 'execute', status: 'in_progress', _meta: { terminal_info: { terminal_id: 'T1', cwd: '/w' } } }),
      meta('terminal_output', { terminal_id: 'T1', data: 'a\r\n' }),
      meta('terminal_output', { terminal_id: 'T1', data: 'b\r\n' }),
      meta('terminal_exit', { terminal_id: 'T1', exit_code: 2, signal: null }),
    );
    assert.deepEqual(terminalOf(s), { type: 'terminal', terminalId: 'T1', output: 'a\r\nb\r\n', exit: { exitCode: 2, signal: null } });
  });

  test('a later content update naming the same terminal keeps the output streamed so far', () => {
    const s = store(
      up({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'ls', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'T1' }] }),
      meta('terminal_output', { terminal_id: 'T1', data: 'kept' }),
      up({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', content: [{ type: 'terminal', terminalId: 'T1' }] }),
    );
    assert.equal(terminalOf(s)?.output, 'kept');
    assert.equal(s.main.tools.get('c1')?.content.length, 1, 'not a second terminal');
  });

  test('a client-owned terminal: the extension\'s snapshot is kept by id, even before a card names it', () => {
    const s = store(
      { type: 'terminalOutput', epoch: 1, terminalId: 'X', output: 'early', dropped: false },
      up({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'make', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'X' }] }),
      { type: 'terminalOutput', epoch: 1, terminalId: 'X', output: 'early then done', dropped: false, exit: { exitCode: 0, signal: null } },
    );
    assert.deepEqual(s.terminals.get('X'), { output: 'early then done', dropped: false, exit: { exitCode: 0, signal: null } });
    // A stale epoch (another session's terminal) is dropped.
    s.apply({ type: 'terminalOutput', epoch: 0, terminalId: 'X', output: 'other session', dropped: false });
    assert.equal(s.terminals.get('X')?.output, 'early then done');
    // A new session forgets them.
    s.apply({ type: 'sessionStarted', epoch: 2, sessionId: 's2', origin: 'new' });
    assert.equal(s.terminals.size, 0);
  });

  test('attack: a flood of output stays bounded to the end, marked as dropped', () => {
    const chunk = 'x'.repeat(64_000);
    const s = store(up({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'yes', status: 'in_progress', _meta: { terminal_info: { terminal_id: 'T1' } } }));
    for (let i = 0; i < 10; i++) s.apply(meta('terminal_output', { terminal_id: 'T1', data: `${chunk}${i}` }));
    const t = terminalOf(s)!;
    assert.equal(t.output?.length, TERMINAL_KEEP);
    assert.ok(t.output?.endsWith('x9'));
    assert.equal(t.dropped, true);
  });

  test('attack: a flood of terminal ids keeps only the most recent client terminals', () => {
    const s = store();
    for (let i = 0; i < 500; i++) s.apply({ type: 'terminalOutput', epoch: 1, terminalId: `T${i}`, output: 'o', dropped: false });
    assert.ok(s.terminals.size <= 64);
    assert.ok(s.terminals.has('T499'));
  });

  test('attack: malformed _meta (wrong types, huge ids, missing ids) is ignored', () => {
    const s = store(
      up({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'x', status: 'in_progress' }),
      meta('terminal_output', { terminal_id: 7, data: 'no' }),
      meta('terminal_output', { terminal_id: 'y'.repeat(600), data: 'no' }),
      up({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', _meta: { terminal_output: 'not an object' } }),
    );
    assert.equal(terminalOf(s), undefined);
  });

  test('property: streamed output equals the concatenation of its chunks, up to the kept tail', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 50 }), { maxLength: 40 }), (chunks) => {
        const s = store(up({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'x', status: 'in_progress', _meta: { terminal_info: { terminal_id: 'T' } } }));
        for (const data of chunks) s.apply(meta('terminal_output', { terminal_id: 'T', data }));
        const joined = chunks.join('');
        assert.equal(terminalOf(s)?.output ?? '', joined.slice(Math.max(0, joined.length - TERMINAL_KEEP)));
      }),
    );
  });
});
