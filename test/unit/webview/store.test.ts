import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseHostMessage, type HostMessage } from '../../../webview/protocol';
import { ChatStore } from '../../../webview/state/store';
import type { Transcript } from '../../../webview/state/types';

const S = 's1';
const start: HostMessage = { type: 'sessionStarted', epoch: 1, sessionId: S, origin: 'new' };
const up = (update: Record<string, unknown>, sessionId = S): HostMessage => ({ type: 'sessionUpdate', epoch: 1, sessionId, update: { sessionUpdate: String(update.sessionUpdate), ...update } });
const text = (t: string) => ({ type: 'text', text: t });

function storeWith(...messages: HostMessage[]): { store: ChatStore; logs: string[] } {
  const logs: string[] = [];
  const store = new ChatStore((_level, message) => logs.push(message));
  for (const m of [start, ...messages]) store.apply(m);
  return { store, logs };
}

/** The rendered-relevant shape of a transcript, without render keys and revisions. */
function shape(t: Transcript): unknown {
  return {
    items: t.items.map((item) => {
      const { key: _key, rev: _rev, ...rest } = item;
      return rest;
    }),
    tools: [...t.tools.values()],
    compactions: [...t.compactions.values()],
  };
}

describe('chat store: messages', () => {
  test('agent chunks aggregate by messageId; a new id starts a new message', () => {
    const { store } = storeWith(
      up({ sessionUpdate: 'agent_message_chunk', messageId: 'a', content: text('Hel') }),
      up({ sessionUpdate: 'agent_message_chunk', messageId: 'a', content: text('lo') }),
      up({ sessionUpdate: 'agent_message_chunk', messageId: 'b', content: text('Next') }),
    );
    assert.deepEqual(store.main.items.map((i) => i.kind === 'agent' && i.text), ['Hello', 'Next']);
  });

  test('chunks without messageId append to the previous message of the same kind only', () => {
    const { store } = storeWith(
      up({ sessionUpdate: 'agent_message_chunk', content: text('a') }),
      up({ sessionUpdate: 'agent_message_chunk', content: text('b') }),
      up({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Read' }),
      up({ sessionUpdate: 'agent_message_chunk', content: text('c') }),
    );
    assert.deepEqual(store.main.items.map((i) => i.kind), ['agent', 'tool', 'agent']);
    assert.equal(store.main.items[0]?.kind === 'agent' && store.main.items[0].text, 'ab');
  });

  test('a message id seen again after other items still appends to its message', () => {
    const { store } = storeWith(
      up({ sessionUpdate: 'agent_message_chunk', messageId: 'a', content: text('one ') }),
      up({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Read' }),
      up({ sessionUpdate: 'agent_message_chunk', messageId: 'a', content: text('two') }),
    );
    assert.equal(store.main.items.length, 2);
    assert.equal(store.main.items[0]?.kind === 'agent' && store.main.items[0].text, 'one two');
  });

  test('thoughts stream open and close when the answer starts', () => {
    const { store } = storeWith(up({ sessionUpdate: 'agent_thought_chunk', messageId: 't', content: text('hmm') }));
    const thought = store.main.items[0];
    assert.ok(thought?.kind === 'thought' && thought.streaming);
    store.apply(up({ sessionUpdate: 'agent_message_chunk', messageId: 'a', content: text('Answer') }));
    assert.ok(thought?.kind === 'thought' && !thought.streaming);
  });

  test('user chunks carry attachments; images only as data: URLs of safe types', () => {
    const { store } = storeWith(
      up({ sessionUpdate: 'user_message_chunk', messageId: 'u', content: text('see') }),
      up({ sessionUpdate: 'user_message_chunk', messageId: 'u', content: { type: 'resource_link', uri: 'file:///a/b.ts', name: 'b.ts' } }),
      up({ sessionUpdate: 'user_message_chunk', messageId: 'u', content: { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' } }),
      up({ sessionUpdate: 'user_message_chunk', messageId: 'u', content: { type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zz4=' } }),
    );
    const user = store.main.items[0];
    assert.ok(user?.kind === 'user');
    assert.equal(user.text, 'see');
    assert.deepEqual(user.attachments.map((a) => [a.kind, a.name, a.dataUrl?.slice(0, 22)]), [
      ['resource_link', 'b.ts', undefined],
      ['image', 'image', 'data:image/png;base64,'],
      ['image', 'image', undefined],
    ]);
  });

  test("the person's own prompt shows at once and the agent's live echo is not duplicated", () => {
    const { store } = storeWith();
    store.addLocalPrompt('fix it', [{ path: '/w/a.ts', name: 'a.ts', kind: 'file' }]);
    store.apply({ type: 'turnStarted', epoch: 1 });
    store.apply(up({ sessionUpdate: 'user_message_chunk', content: text('fix it') }));
    store.apply({ type: 'turnEnded', epoch: 1, stopReason: 'end_turn' });
    assert.equal(store.main.items.filter((i) => i.kind === 'user').length, 1);
    const user = store.main.items[0];
    assert.ok(user?.kind === 'user' && user.attachments[0]?.uri === 'file:///w/a.ts');
  });
});

describe('chat store: tool calls', () => {
  test('tool_call_update patches only the fields it carries; content and locations replace', () => {
    const { store } = storeWith(
      up({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Edit a.ts', kind: 'edit', status: 'pending', locations: [{ path: '/a.ts', line: 3 }], content: [{ type: 'content', content: text('one') }] }),
      up({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'in_progress' }),
    );
    const tool = store.main.tools.get('t');
    assert.deepEqual([tool?.title, tool?.kind, tool?.status, tool?.locations, tool?.content], ['Edit a.ts', 'edit', 'in_progress', [{ path: '/a.ts', line: 3 }], [{ type: 'text', text: 'one' }]]);
    store.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'completed', content: [{ type: 'diff', path: '/a.ts', oldText: 'x', newText: 'y' }], locations: [] }));
    assert.deepEqual([tool?.status, tool?.locations, tool?.content], ['completed', [], [{ type: 'diff', path: '/a.ts', oldText: 'x', newText: 'y' }]]);
  });

  test('an update for an unknown call creates it; malformed fields are dropped, not fatal', () => {
    const { store } = storeWith(up({ sessionUpdate: 'tool_call_update', toolCallId: 'late', status: 'bogus', locations: [{ path: 5 }, { path: '/ok', line: -1 }], content: [{ type: 'diff' }, 7] }));
    const tool = store.main.tools.get('late');
    assert.deepEqual([tool?.status, tool?.locations, tool?.content], ['pending', [{ path: '/ok' }], []]);
    assert.equal(store.main.items.length, 1);
  });

  test('a cancelled turn marks unfinished calls cancelled and records the stop reason', () => {
    const { store } = storeWith(
      { type: 'turnStarted', epoch: 1 },
      up({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'x', status: 'in_progress' }),
      up({ sessionUpdate: 'tool_call', toolCallId: 'b', title: 'y', status: 'completed' }),
      { type: 'turnEnded', epoch: 1, stopReason: 'cancelled' },
    );
    assert.deepEqual([store.main.tools.get('a')?.status, store.main.tools.get('b')?.status], ['cancelled', 'completed']);
    assert.deepEqual(store.main.items.at(-1)?.kind, 'turnEnd');
    assert.equal(store.turn.running, false);
  });

  test('approvals patch their call and clear on resolution', () => {
    const { store } = storeWith(up({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'rm' }));
    store.apply({ type: 'approvalPending', epoch: 1, requestId: 'r', toolCall: { toolCallId: 't', title: 'rm -rf build' }, options: [{ optionId: 'a', name: 'Allow once', kind: 'allow_once' }] });
    assert.equal(store.approvalFor('t')?.requestId, 'r');
    assert.equal(store.main.tools.get('t')?.title, 'rm -rf build');
    store.apply({ type: 'approvalResolved', epoch: 1, requestId: 'r', outcome: 'cancelled' });
    assert.equal(store.approvalFor('t'), undefined);
  });

  test('a declined approval marks its card rejected; an allowed one does not (issue 20: the agent may never update the call)', () => {
    const { store } = storeWith();
    const options = [{ optionId: 'yes', name: 'Allow once', kind: 'allow_once' as const }, { optionId: 'no', name: 'Reject', kind: 'reject_once' as const }];
    store.apply({ type: 'approvalPending', epoch: 1, requestId: 'r1', toolCall: { toolCallId: 't1', title: 'Shell' }, options });
    store.apply({ type: 'approvalResolved', epoch: 1, requestId: 'r1', outcome: 'selected', optionId: 'no' });
    assert.equal(store.declined.has('t1'), true);
    store.apply({ type: 'approvalPending', epoch: 1, requestId: 'r2', toolCall: { toolCallId: 't2', title: 'Edit' }, options });
    store.apply({ type: 'approvalResolved', epoch: 1, requestId: 'r2', outcome: 'selected', optionId: 'yes' });
    assert.equal(store.declined.has('t2'), false);
  });

  test("a card's diff takes the review's kind and counts once the host sends them", () => {
    const { store } = storeWith();
    store.apply({ type: 'diffReview', epoch: 1, toolCallId: 't', path: '/w/notes.md', state: 'pending', kind: 'modified', added: 1, removed: 4 });
    assert.deepEqual(store.reviewedChange('t', '/w/notes.md'), { kind: 'modified', added: 1, removed: 4 });
    assert.equal(store.review('t', '/w/notes.md'), 'pending');
    store.apply({ type: 'diffReview', epoch: 1, toolCallId: 'u', path: '/w/a', state: 'accepted' });
    assert.equal(store.reviewedChange('u', '/w/a'), undefined, 'an older host sends the state alone');
  });

  test("a card whose review never saw the file's earlier content says so (issue: never delete what the diff did not show)", () => {
    const { store } = storeWith();
    store.apply({ type: 'diffReview', epoch: 1, toolCallId: 't', path: '/w/notes.md', state: 'rejected', kind: 'modified', added: 1, removed: 0, unknownBase: true });
    assert.equal(store.unknownBase('t', '/w/notes.md'), true);
    assert.equal(store.unknownBase('u', '/w/notes.md'), false);
  });
});

describe('chat store: session-wide updates', () => {
  test('plan replaces the whole list; commands, config, mode, title, notices', () => {
    const { store } = storeWith(
      up({ sessionUpdate: 'plan', entries: [{ content: 'a', priority: 'high', status: 'pending' }, { content: 'b', priority: 'low', status: 'pending' }] }),
      up({ sessionUpdate: 'plan', entries: [{ content: 'c', priority: 'medium', status: 'completed' }] }),
      up({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'web', description: 'search' }, { bad: true }] }),
      up({ sessionUpdate: 'config_option_update', configOptions: [{ id: 'model', name: 'Model', type: 'select', currentValue: 'x', options: [] }] }),
      up({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' }),
      up({ sessionUpdate: 'session_info_update', title: 'Fix the bug' }),
      up({ sessionUpdate: 'notice', severity: 'warning', title: 'Rate limited' }),
    );
    assert.deepEqual(store.plan, [{ content: 'c', priority: 'medium', status: 'completed' }]);
    assert.deepEqual(store.commands.map((c) => c.name), ['web']);
    assert.equal(store.configOptions[0]?.id, 'model');
    assert.equal(store.modeId, 'plan');
    assert.equal(store.title, 'Fix the bug');
    assert.equal(store.notices[0]?.title, 'Rate limited');
    assert.equal(store.main.items.length, 0, 'none of these enter the transcript');
  });

  test('usage: fullness and cost per session and per turn', () => {
    const { store } = storeWith(
      up({ sessionUpdate: 'usage_update', used: 1000, size: 10000, cost: { amount: 0.5, currency: 'USD' } }),
      { type: 'turnStarted', epoch: 1 },
      up({ sessionUpdate: 'usage_update', used: 4000, size: 10000, cost: { amount: 0.75, currency: 'USD' } }),
      up({ sessionUpdate: 'usage_update', used: 'many', size: 10000 }),
      { type: 'turnEnded', epoch: 1, stopReason: 'end_turn' },
    );
    assert.deepEqual(store.usage, { used: 4000, size: 10000, cost: { amount: 0.75, currency: 'USD' } });
    assert.equal(store.turn.cost, 0.25);
  });

  test('compaction upserts keep their timeline position; summary chunks append; null clears', () => {
    const { store } = storeWith(
      up({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c', content: text('Did ') }),
      up({ sessionUpdate: 'agent_message_chunk', content: text('later') }),
      up({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c', content: text('things') }),
      up({ sessionUpdate: 'compaction_update', compactionId: 'c', status: 'completed', error: 'oops' }),
    );
    assert.deepEqual(store.main.items.map((i) => i.kind), ['compaction', 'agent']);
    assert.deepEqual(store.main.compactions.get('c'), { compactionId: 'c', status: 'completed', summary: 'Did things', error: 'oops' });
    store.apply(up({ sessionUpdate: 'compaction_update', compactionId: 'c', summary: null, error: null }));
    assert.deepEqual(store.main.compactions.get('c'), { compactionId: 'c', status: 'completed', summary: '' });
  });

  test('child sessions nest under the call that started them', () => {
    const { store } = storeWith(
      up({ sessionUpdate: 'tool_call', toolCallId: 'task', title: 'Task', status: 'in_progress' }),
      up({ sessionUpdate: 'subagent_update', sessionId: 'kid', title: 'Helper' }),
      up({ sessionUpdate: 'agent_message_chunk', content: text('child says') }, 'kid'),
      up({ sessionUpdate: 'agent_message_chunk', content: text('orphan child') }, 'kid2'),
    );
    assert.deepEqual(store.main.tools.get('task')?.children, ['kid', 'kid2']);
    assert.equal(store.subagents.get('kid')?.title, 'Helper');
    const kid = store.transcript('kid');
    assert.ok(kid?.items[0]?.kind === 'agent' && kid.items[0].text === 'child says');
    assert.deepEqual(store.main.items.map((i) => i.kind), ['tool']);
  });

  test('unknown update kinds are ignored and logged', () => {
    const { store, logs } = storeWith(up({ sessionUpdate: 'hologram_update', beams: 3 }));
    assert.equal(store.main.items.length, 0);
    assert.deepEqual(logs, ['Ignored a session/update of unknown kind "hologram_update".']);
  });

  test('messages of an older epoch are dropped; a new session clears the panel', () => {
    const { store } = storeWith(up({ sessionUpdate: 'agent_message_chunk', content: text('a') }));
    store.apply({ type: 'sessionStarted', epoch: 2, sessionId: 's2', origin: 'new' });
    assert.equal(store.apply(up({ sessionUpdate: 'agent_message_chunk', content: text('stale') })), false);
    assert.equal(store.main.items.length, 0);
    assert.equal(store.dropped, 1);
  });

  test('the first prompt, sent before any session exists, stays shown when the session it creates starts', () => {
    const store = new ChatStore();
    store.apply({ type: 'hello', version: 1, epoch: 1 });
    store.addLocalPrompt('hi, what can you do?', []);
    store.apply({ type: 'sessionStarted', epoch: 2, sessionId: 's2', origin: 'new' });
    assert.deepEqual(store.main.items.map((i) => i.kind === 'user' && i.text), ['hi, what can you do?']);
    // The agent's live echo of that prompt is still skipped.
    store.apply({ type: 'sessionUpdate', epoch: 2, sessionId: 's2', update: { sessionUpdate: 'user_message_chunk', content: text('hi, what can you do?') } });
    assert.equal(store.main.items.length, 1);
    // A later new session (the + button) starts empty.
    store.apply({ type: 'sessionStarted', epoch: 3, sessionId: 's3', origin: 'new' });
    assert.equal(store.main.items.length, 0);
  });
});

describe('replay equals live', () => {
  test('every fixture: replaying its updates (session/load) renders the same transcript as live streaming', () => {
    const dir = 'test/fixtures/updates';
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const messages = (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { messages: unknown[] }).messages.map((raw) => {
        const parsed = parseHostMessage(raw);
        assert.ok(parsed.ok, `${name}: ${parsed.ok ? '' : parsed.error}`);
        return parsed.message;
      });
      const updates = messages.filter((m) => m.type === 'sessionUpdate');
      const sessionId = updates[0]?.type === 'sessionUpdate' ? updates[0].sessionId : S;
      const live = new ChatStore();
      live.apply({ type: 'sessionStarted', epoch: 1, sessionId, origin: 'new' });
      for (const m of updates) live.apply(m);
      const replay = new ChatStore();
      replay.apply({ type: 'sessionStarted', epoch: 1, sessionId, origin: 'load' });
      replay.apply({ type: 'replayBegin', epoch: 1 });
      for (const m of updates) replay.apply(m);
      replay.apply({ type: 'replayEnd', epoch: 1 });
      assert.deepEqual(shape(replay.main), shape(live.main), name);
      assert.deepEqual(replay.plan, live.plan, name);
      assert.deepEqual(replay.usage, live.usage, name);
    }
  });

  test('a live turn with a local prompt equals its replay from the log', () => {
    const live = new ChatStore();
    live.apply(start);
    live.addLocalPrompt('hello', []);
    live.apply({ type: 'turnStarted', epoch: 1 });
    live.apply(up({ sessionUpdate: 'agent_message_chunk', messageId: 'a', content: text('hi') }));
    live.apply({ type: 'turnEnded', epoch: 1, stopReason: 'end_turn' });
    const replay = new ChatStore();
    replay.apply({ ...start, origin: 'load' });
    replay.apply({ type: 'replayBegin', epoch: 1 });
    replay.apply(up({ sessionUpdate: 'user_message_chunk', content: text('hello') }));
    replay.apply(up({ sessionUpdate: 'agent_message_chunk', messageId: 'a', content: text('hi') }));
    replay.apply({ type: 'replayEnd', epoch: 1 });
    assert.deepEqual(shape(replay.main), shape(live.main));
  });
});
