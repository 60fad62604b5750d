import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHostMessage, parseWebviewMessage, PROTOCOL_VERSION } from '../../../webview/protocol';

describe('webview protocol', () => {
  test('accepts a relayed ACP update verbatim, including fields it does not know', () => {
    const update = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' }, future: { x: 1 } };
    const parsed = parseHostMessage({ type: 'sessionUpdate', epoch: 3, sessionId: 's1', update });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.message.type === 'sessionUpdate' && parsed.message.update, update);
  });

  test('accepts an unknown update kind (the reducer ignores it, the envelope is fine)', () => {
    const parsed = parseHostMessage({ type: 'sessionUpdate', epoch: 0, sessionId: 's', update: { sessionUpdate: 'x_new' } });
    assert.ok(parsed.ok);
  });

  test('rejects malformed envelopes with a readable reason', () => {
    for (const bad of [
      null,
      'hello',
      { type: 'nope' },
      { type: 'sessionUpdate', epoch: -1, sessionId: 's', update: { sessionUpdate: 'plan' } },
      { type: 'sessionUpdate', epoch: 1, sessionId: '', update: { sessionUpdate: 'plan' } },
      { type: 'sessionUpdate', epoch: 1, sessionId: 's', update: { kind: 'plan' } },
      { type: 'approvalPending', epoch: 1, requestId: 'r', toolCall: { toolCallId: 't' }, options: [{ optionId: 'a', name: 'Always', kind: 'allow_always' }] },
    ]) {
      const parsed = parseHostMessage(bad);
      assert.equal(parsed.ok, false, JSON.stringify(bad));
      if (!parsed.ok) assert.match(parsed.error, /^Dropped an invalid extension message/);
    }
  });

  test("the review's Changes list: files with kind, counts and state; a file id may be as long as a path", () => {
    const fileId = `s\u00001\u0000/${'deep/'.repeat(150)}a.ts`;
    const file = { fileId, path: '/p/a.ts', kind: 'modified', added: 2, removed: 1, binary: false, state: 'partial' };
    assert.ok(parseHostMessage({ type: 'reviewChanges', epoch: 1, pending: 0, turns: [{ turnId: '1', undone: false, files: [file] }] }).ok);
    assert.equal(parseHostMessage({ type: 'reviewChanges', epoch: 1, pending: 0, turns: [{ turnId: '1', undone: false, files: [{ ...file, state: 'maybe' }] }] }).ok, false);
    assert.equal(parseHostMessage({ type: 'reviewChanges', epoch: 1, pending: -1, turns: [] }).ok, false);
    assert.ok(parseWebviewMessage({ type: 'reviewFile', epoch: 1, fileId }).ok);
    assert.ok(parseWebviewMessage({ type: 'reviewFile', epoch: 1, fileId, inFile: true }).ok);
    assert.equal(parseWebviewMessage({ type: 'reviewFile', epoch: 1, fileId, inFile: 'yes' }).ok, false);
  });

  test('webview messages: ready, prompts, approvals; rejects forged shapes', () => {
    assert.ok(parseWebviewMessage({ type: 'ready', version: PROTOCOL_VERSION }).ok);
    assert.ok(parseWebviewMessage({ type: 'ready', version: PROTOCOL_VERSION, boot: { requested: 12, loaded: 80, ran: 95, ready: 140 } }).ok);
    assert.ok(!parseWebviewMessage({ type: 'ready', version: PROTOCOL_VERSION, boot: { requested: 12, loaded: 80, ran: 95, ready: 1e12 } }).ok, 'boot times stay within a minute');
    assert.ok(!parseWebviewMessage({ type: 'ready', version: PROTOCOL_VERSION, boot: { requested: 'soon', loaded: 80, ran: 95, ready: 140 } }).ok);
    assert.ok(parseWebviewMessage({ type: 'sendPrompt', epoch: 1, text: 'x', mentions: [{ path: '/a', name: 'a', kind: 'file' }], images: [] }).ok);
    assert.ok(parseWebviewMessage({ type: 'answerApproval', epoch: 1, requestId: 'r', optionId: 'o' }).ok);
    assert.equal(parseWebviewMessage({ type: 'answerApproval', epoch: 1, requestId: 'r' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'openLocation', path: '/a', line: 0 }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'runCommand', command: 'rm' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'copyText', text: 'x'.repeat(5_000_000) }).ok, false);
  });
});
