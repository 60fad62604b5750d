// Every message the agent sends is one JSON-RPC line, and the ACP SDK's reader
// (the extension's) ends the whole connection on a line over 32 MiB
// (MAX_LINE_BYTES, the SDK's default). A tool call's diff carries the file's
// text before and after: the agent can make that file whatever it likes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply } from '../../fakeModelServer/index';
import { allowOnce, fakeModelFor, inMemoryAgent, updatesOf } from './harness';
import { MAX_LINE_BYTES } from '../../../agent/acp/lineGuard';
import { MAX_EDIT_BYTES } from '../../../agent/tools/textFiles';

const lineBytes = (method: string, params: unknown) => Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));

describe('attack: tool call diffs bigger than one JSON-RPC line', () => {
  const model = fakeModelFor('accord-wire-');

  test('an edit of a file of control characters under the edit limit (6 bytes each as JSON) is shown as a note, never as a diff no client can read', async () => {
    const agent = inMemoryAgent({ env: model.env() });
    agent.permissions.policy = allowOnce;
    try {
      const sessionId = await agent.newSession(model.configDir);
      // 9 MiB of \x01 (no NUL: text to the tools) is 54 MiB as a JSON string, twice over in a diff.
      const body = '\u0001'.repeat(9 * 1024 * 1024);
      assert.ok(body.length + 16 < MAX_EDIT_BYTES);
      writeFileSync(join(model.configDir, 'ctl.txt'), `start\n${body}\n`);
      model.server.script(reply.tool('call_edit', 'edit_file', { path: 'ctl.txt', old_string: 'start', new_string: 'begin' }), reply.text('done'));
      assert.equal(await agent.prompt(sessionId, 'edit it'), 'end_turn');
      for (const request of agent.permissionRequests) assert.ok(lineBytes('session/request_permission', request) <= MAX_LINE_BYTES, `a permission request of ${lineBytes('session/request_permission', request)} bytes`);
      for (const update of agent.updates) assert.ok(lineBytes('session/update', update) <= MAX_LINE_BYTES, `a ${update.update.sessionUpdate} of ${lineBytes('session/update', update)} bytes`);
      const shown = updatesOf(agent, sessionId, 'tool_call_update').flatMap((u) => u.content ?? []);
      assert.ok(shown.some((c: any) => c.type === 'content' && /too large to show/.test(c.content.text) && /ctl\.txt/.test(c.content.text)), JSON.stringify(shown).slice(0, 500));
    } finally {
      model.server.clearScript();
      await agent.close();
    }
  });

  test('an ordinary edit still carries its diff', async () => {
    const agent = inMemoryAgent({ env: model.env() });
    agent.permissions.policy = allowOnce;
    try {
      const sessionId = await agent.newSession(model.configDir);
      writeFileSync(join(model.configDir, 'small.txt'), 'before\n');
      model.server.script(reply.tool('call_small', 'edit_file', { path: 'small.txt', old_string: 'before', new_string: 'after' }), reply.text('done'));
      assert.equal(await agent.prompt(sessionId, 'edit it'), 'end_turn');
      const diffs = updatesOf(agent, sessionId, 'tool_call_update').flatMap((u) => u.content ?? []).filter((c: any) => c.type === 'diff');
      assert.ok(diffs.some((d: any) => d.newText === 'after\n' && d.oldText === 'before\n'), JSON.stringify(diffs));
    } finally {
      model.server.clearScript();
      await agent.close();
    }
  });
});
