// A v2 client answers a durable approval (--durable-requests) the way a v1
// client does, on the next prompt's `_meta["accord/permission"]`: the facade
// passes the prompt's `_meta` to the v1 app. The turn that asks ends idle
// with `_accord_waiting` and the request; a bad id or option is the prompt
// request's -32602 and approves nothing; the right answer runs the call.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { DurableRequests } from '../../../agent/acp/durablePermissions';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { builtinTools } from '../../../agent/tools/index';
import { reply } from '../../fakeModelServer/index';
import { tempDataDir } from '../log/fixtures';
import { fakeModelFor, tempDir } from './harness';
import { inMemoryV2, v2Updates, type V2Policy } from './v2Harness';

const KEY = 'accord/permission';

/** A person who never answers the dialog (the request is durable: it outlives the turn). */
const neverAnswerV2: V2Policy = (_request, signal) =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve({ outcome: { outcome: 'cancelled' } }), { once: true }));

describe('ACP v2: durable approvals answered on the next prompt', () => {
  const model = fakeModelFor('accord-v2-durable-config-');

  test('the turn ends idle _accord_waiting with the request; a bad answer is refused and approves nothing; allow runs the call and continues', { timeout: 120_000 }, async () => {
    const root = tempDir('accord-v2-durable-');
    const { dir, cleanup } = await tempDataDir();
    const h = inMemoryV2(createLoggedAgent({ env: model.env(), tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0, durable: new DurableRequests() }, new SessionStore(dir)).app);
    h.permissions.policy = neverAnswerV2;
    try {
      await h.initialize(2);
      const { sessionId } = await h.connection.agent.request(v2.methods.agent.session.new, { cwd: root.path });
      writeFileSync(join(root.path, 'notes.txt'), 'draft\n');
      model.server.script(reply.tool('e1', 'edit_file', { path: 'notes.txt', old_string: 'draft', new_string: 'final' }));
      const prompt = (text: string, answer?: unknown) =>
        h.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }], ...(answer ? { _meta: { [KEY]: answer } } : {}) });

      let from = h.updates.length;
      await prompt('finish the notes');
      assert.equal(await h.idleAfter(sessionId, from), '_accord_waiting');
      const idle = h.updates.slice(from).map((n) => n.update as any).find((u) => u.sessionUpdate === 'state_update' && u.state === 'idle');
      const pending = idle._meta[KEY] as { requestId: string };
      assert.match(pending.requestId, /^perm_/);

      for (const bad of [{ requestId: 'perm_nope', optionId: 'allow_once' }, { requestId: pending.requestId, optionId: 'allow_always' }, { optionId: 'allow_once' }]) {
        const before = h.updates.length;
        const code = await prompt('yes', bad).then(() => undefined, (e: { code?: number }) => e.code);
        assert.equal(code, -32602, JSON.stringify(bad));
        assert.deepEqual(h.updates.slice(before).filter((n) => n.update.sessionUpdate === 'user_message'), [], 'a refused prompt is not inserted');
      }
      assert.equal(readFileSync(join(root.path, 'notes.txt'), 'utf8'), 'draft\n', 'nothing was approved');

      model.server.script(reply.text('The notes are final.'));
      from = h.updates.length;
      await prompt('yes, go ahead', { requestId: pending.requestId, optionId: 'allow_once' });
      assert.equal(await h.idleAfter(sessionId, from), 'end_turn');
      assert.equal(readFileSync(join(root.path, 'notes.txt'), 'utf8'), 'final\n');
      assert.equal(v2Updates(h, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'e1').at(-1).status, 'completed');
    } finally {
      await h.close();
      await cleanup();
      root.remove();
    }
  });
});
