import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainDetail, sessionNotices, setupMetaOf } from '../../../extension/sessions/sessionNotices';

test('a policy error and failed MCP servers become notices with fixed headlines and the agent text as plain detail', () => {
  const notices = sessionNotices({
    'accord/policyError': '/p/.accord/policy.json is not valid:\n  rules[0].tool: "Read_File" names no tool',
    'accord/mcpErrors': ['The MCP server "docs" could not be started', 42],
    'accord/sandbox': { state: 'sandboxed' },
  });
  assert.equal(notices.length, 2);
  assert.match(notices[0]!.headline, /policy \(\.accord\/policy\.json\) is not valid/);
  assert.match(notices[0]!.detail, /Read_File/);
  assert.match(notices[1]!.headline, /an MCP server from the project policy could not be started/);
  assert.deepEqual(sessionNotices({}), []);
  assert.deepEqual(sessionNotices(undefined), []);
});

test("the agent's text never reaches the headline; in the detail invisible and bidi characters show as escapes, and it is capped", () => {
  const hostile = '[click](command:workbench.action.terminal.sendSequence)\u202e\u200b' + 'x'.repeat(5000) + '\nline'.repeat(100);
  const [notice] = sessionNotices({ 'accord/policyError': hostile });
  assert.ok(!notice!.headline.includes('command:'));
  assert.ok(!/[\u202e\u200b]/.test(notice!.detail));
  assert.match(notice!.detail, /\\u202e/i);
  assert.ok(notice!.detail.length < 20 * 310 + 40);
  assert.match(notice!.detail, /… 81 more lines$/);
  assert.equal(plainDetail('a\nb'), 'a\nb');
});

test('the notices of a session whose copy became ready later come from the session_info_update that names its workspace, and from nothing else', () => {
  const meta = { 'accord/workspace': { mode: 'git-clone', root: '/d/ws' }, 'accord/policyError': 'bad policy' };
  assert.deepEqual(setupMetaOf({ sessionUpdate: 'session_info_update', _meta: meta }), meta);
  assert.equal(sessionNotices(setupMetaOf({ sessionUpdate: 'session_info_update', _meta: meta })).length, 1);
  assert.equal(setupMetaOf({ sessionUpdate: 'session_info_update', title: 'x' }), undefined);
  assert.equal(setupMetaOf({ sessionUpdate: 'session_info_update', _meta: { 'accord/policyError': 'no workspace named' } }), undefined);
  assert.equal(setupMetaOf({ sessionUpdate: 'agent_message_chunk', _meta: meta }), undefined);
  assert.equal(setupMetaOf({ sessionUpdate: 'session_info_update', _meta: 'text' }), undefined);
  assert.equal(setupMetaOf(null), undefined);
});
