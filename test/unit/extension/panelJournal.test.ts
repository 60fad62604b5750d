// The panel journal rebuilds what a new panel must show: checked against a
// small reference model (a reducer over the same messages) with random
// message sequences, plus the cases that matter by name.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
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

function randomMessages(seed: number, n: number): HostMessage[] {
  let x = seed;
  const rnd = (k: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % k);
  const out: HostMessage[] = [];
  let epoch = 0;
  for (let i = 0; i < n; i++) {
    switch (rnd(9)) {
      case 0: epoch++; out.push({ type: 'sessionStarted', epoch, sessionId: `s${epoch}`, origin: 'new' }); break;
      case 1: out.push({ type: 'agentStatus', status: { state: rnd(2) ? 'connected' : 'error', agentName: `A${rnd(3)}` } }); break;
      case 2: out.push({ type: 'turnStarted', epoch }); break;
      case 3: out.push({ type: 'turnEnded', epoch, stopReason: 'end_turn' }); break;
      case 4: out.push({ type: 'agentFailure', failure: rnd(2) ? { agentName: 'F', stage: 'session/new', message: `m${i}` } : null }); break;
      case 5: out.push({ type: 'approvalPending', epoch, requestId: `r${i}`, toolCall: { toolCallId: `t${i}` }, options: [] }); break;
      case 6: out.push({ type: 'fileCompletions', query: 'q', items: [] }); break;
      default: out.push(chunk(epoch, `c${i} `));
    }
  }
  return out;
}

describe('panel journal', () => {
  test('a new panel fed the replay shows what the old one showed (random sequences against the store itself)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const messages = randomMessages(seed, 60);
      const journal = new PanelJournal();
      for (const m of messages) journal.record(m);
      assert.deepEqual(view(journal.replay()), view(messages), `seed ${seed}`);
    }
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
