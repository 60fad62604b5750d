// The panel journal rebuilds what a new panel must show: a fast-check property
// against the reference (the panel's own store fed every message), plus the
// cases that matter by name.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PanelJournal } from '../../../extension/chat/panelJournal';
import { ChatStore } from '../../../webview/state/store';
import type { HostMessage } from '../../../webview/protocol';

const chunk = (epoch: number, text: string): HostMessage => ({ type: 'sessionUpdate', epoch, sessionId: `s${epoch}`, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });

/** What a panel shows: transcript items, header, failure, approvals. */
function view(messages: HostMessage[]) {
  const store = new ChatStore();
  const started = messages.filter((m): m is Extract<HostMessage, { type: 'sessionStarted' }> => m.type === 'sessionStarted');
  store.apply({ type: 'hello', version: 1, epoch: started.at(-1)?.epoch ?? 0 });
  for (const m of messages) store.apply(m);
  return {
    session: store.sessionId,
    agent: store.agent,
    failure: store.failure,
    approvals: [...store.approvals.keys()],
    items: JSON.stringify(store.main.items.map((i) => ({ ...i, rev: 0, key: 0 }))), // keys are the store's own counters
    running: store.turn.running,
  };
}

/** One step of what the extension tells a panel; sessions start with rising epochs, like SessionController does. */
type Step =
  | { kind: 'start' } | { kind: 'status'; connected: boolean; name: number } | { kind: 'turnStarted' } | { kind: 'turnEnded' }
  | { kind: 'failure'; set: boolean; text: string } | { kind: 'approval'; id: number } | { kind: 'resolved'; id: number }
  | { kind: 'completions' } | { kind: 'chunk'; text: string } | { kind: 'tool'; id: number; status: 'pending' | 'completed' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: 'start' }),
  fc.record({ kind: fc.constant('status' as const), connected: fc.boolean(), name: fc.nat(3) }),
  fc.constant<Step>({ kind: 'turnStarted' }),
  fc.constant<Step>({ kind: 'turnEnded' }),
  fc.record({ kind: fc.constant('failure' as const), set: fc.boolean(), text: fc.string({ maxLength: 8 }) }),
  fc.record({ kind: fc.constant('approval' as const), id: fc.nat(5) }),
  fc.record({ kind: fc.constant('resolved' as const), id: fc.nat(5) }),
  fc.constant<Step>({ kind: 'completions' }),
  fc.record({ kind: fc.constant('chunk' as const), text: fc.string({ maxLength: 6 }) }),
  fc.record({ kind: fc.constant('tool' as const), id: fc.nat(5), status: fc.constantFrom('pending' as const, 'completed' as const) }),
);

function messagesOf(steps: Step[]): HostMessage[] {
  let epoch = 0;
  return steps.map((s): HostMessage => {
    switch (s.kind) {
      case 'start': epoch++; return { type: 'sessionStarted', epoch, sessionId: `s${epoch}`, origin: 'new' };
      case 'status': return { type: 'agentStatus', status: { state: s.connected ? 'connected' : 'error', agentName: `A${s.name}` } };
      case 'turnStarted': return { type: 'turnStarted', epoch };
      case 'turnEnded': return { type: 'turnEnded', epoch, stopReason: 'end_turn' };
      case 'failure': return { type: 'agentFailure', failure: s.set ? { agentName: 'F', stage: 'session/new', message: s.text || 'x' } : null };
      case 'approval': return { type: 'approvalPending', epoch, requestId: `r${s.id}`, toolCall: { toolCallId: `t${s.id}` }, options: [] };
      case 'resolved': return { type: 'approvalResolved', epoch, requestId: `r${s.id}`, outcome: 'cancelled' };
      case 'completions': return { type: 'fileCompletions', query: 'q', items: [] };
      case 'chunk': return chunk(epoch, s.text);
      case 'tool': return { type: 'sessionUpdate', epoch, sessionId: `s${epoch}`, update: { sessionUpdate: 'tool_call', toolCallId: `t${s.id}`, title: `T${s.id}`, status: s.status } };
    }
  });
}

describe('panel journal', () => {
  test('a new panel fed the replay shows what the old one showed (property: against the store fed everything)', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const messages = messagesOf(steps);
        const journal = new PanelJournal();
        for (const m of messages) journal.record(m);
        assert.deepEqual(view(journal.replay()), view(messages));
      }),
      { numRuns: 300 },
    );
  });

  test('a session start forgets the previous transcript', () => {
    const journal = new PanelJournal();
    journal.record({ type: 'sessionStarted', epoch: 1, sessionId: 's1', origin: 'new' });
    journal.record(chunk(1, 'old'));
    journal.record({ type: 'sessionStarted', epoch: 2, sessionId: 's2', origin: 'new' });
    journal.record(chunk(2, 'new'));
    assert.equal(journal.size, 2);
  });

  test('a very long session keeps its opening and its most recent part', () => {
    const journal = new PanelJournal(100);
    journal.record({ type: 'sessionStarted', epoch: 1, sessionId: 's1', origin: 'new' });
    for (let i = 0; i < 1000; i++) journal.record(chunk(1, `c${i}`));
    const replay = journal.replay();
    assert.ok(replay.length <= 101);
    assert.equal(replay[0]!.type, 'sessionStarted');
    assert.deepEqual((replay.at(-1) as unknown as { update: { content: { text: string } } }).update.content.text, 'c999');
    assert.ok(journal.dropped > 0);
  });
});

describe('panel journal: terminal snapshots', () => {
  test('only the last snapshot per terminal is kept, and a rebuilt panel shows it', () => {
    const journal = new PanelJournal();
    const start: HostMessage = { type: 'sessionStarted', epoch: 1, sessionId: 's1', origin: 'new' };
    const tool: HostMessage = { type: 'sessionUpdate', epoch: 1, sessionId: 's1', update: { sessionUpdate: 'tool_call', toolCallId: 'c', title: 'make', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'T' }] } };
    journal.record(start);
    journal.record(tool);
    for (let i = 1; i <= 500; i++) journal.record({ type: 'terminalOutput', epoch: 1, terminalId: 'T', output: 'x'.repeat(i), dropped: false });
    const replay = journal.replay();
    assert.equal(replay.filter((m) => m.type === 'terminalOutput').length, 1, 'a flood of snapshots is one message');
    const store = new ChatStore();
    store.apply({ type: 'hello', version: 1, epoch: 1 });
    for (const m of replay) store.apply(m);
    assert.equal(store.terminals.get('T')?.output?.length, 500);
    // A new session forgets the old one's terminals.
    journal.record({ type: 'sessionStarted', epoch: 2, sessionId: 's2', origin: 'new' });
    assert.equal(journal.replay().filter((m) => m.type === 'terminalOutput').length, 0);
  });
});
