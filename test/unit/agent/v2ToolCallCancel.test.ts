// ACP v2 `tool_call/cancel` (and `terminal/cancel` of a command's terminal)
// through the SDK's own v2 client: a tool call is
// advertised cancellable (`capabilities.cancel`) from its creation until its
// final status; cancelling a running command stops it alone (the model reads
// that the person cancelled it and the turn goes on to end_turn); cancelling
// one waiting for approval withdraws the question. Bad input (unknown call,
// a call that has ended, another session's call, an unknown session, bad
// params) is refused and stops nothing.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { SessionWorkspaces } from '../../../agent/session/workspaces';
import { builtinTools } from '../../../agent/tools/index';
import { checkResult } from '../../../protocol/accordMethods';
import { reply } from '../../fakeModelServer/index';
import { fakeModelFor } from './harness';
import { gitProject } from './isolationFixtures';
import { allowOnceV2, inMemoryV2, v2Updates, type V2Harness, type V2Policy } from './v2Harness';

const decode = (data: string) => Buffer.from(data, 'base64').toString('utf8');
const codeOf = (request: Promise<unknown>) => request.then(() => undefined, (error: { code?: number }) => error.code);

describe('ACP v2: tool_call/cancel stops one call, the turn goes on', () => {
  const model = fakeModelFor('accord-v2-callcancel-config-');
  const world = gitProject({ 'app.js': 'console.log("hi");\n' });
  // Outside the data directory, which sandboxed commands cannot read.
  const gates = mkdtempSync(join(tmpdir(), 'accord-v2-gates-'));
  after(() => {
    world.remove();
    rmSync(gates, { recursive: true, force: true });
  });

  async function withAgent(run: (h: V2Harness, sessionId: string) => Promise<void>) {
    const logs = new SessionStore(world.data);
    const isolation = new SessionWorkspaces({ dataDir: world.data, alwaysApprove: false });
    const { app, closeLogs } = createLoggedAgent({ env: { ...model.env(), ACCORD_SANDBOX: 'off' }, tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0, isolation }, logs);
    const h = inMemoryV2(app);
    try {
      await h.initialize(2);
      const { sessionId } = await h.connection.agent.request(v2.methods.agent.session.new, { cwd: world.project });
      await run(h, sessionId);
    } finally {
      await h.close();
      await closeLogs();
      await isolation.releaseAll();
    }
  }

  /** A command that prints, then runs until it is killed (or the gate file appears: a backstop so nothing outlives the test). */
  const endless = (gate: string) => [process.execPath, '-e', `console.log("waiting"); setInterval(() => { if (require("fs").existsSync(${JSON.stringify(gate)})) process.exit(0); }, 100);`];
  const cancel = (h: V2Harness, sessionId: string, toolCallId: string) => h.connection.agent.request(v2.methods.agent.toolCall.cancel, { sessionId, toolCallId });

  test('a running command cancelled alone: it ends failed, the model is told, the turn ends end_turn; the capability comes and goes', { timeout: 120_000 }, async () => {
    await withAgent(async (h, sessionId) => {
      const gate = join(gates, 'gate-1');
      model.server.script(reply.tool('c1', 'run_command', { argv: endless(gate) }), reply.text('Stopped as you asked.'));
      h.permissions.policy = allowOnceV2;
      const from = h.updates.length;
      const requestsBefore = model.server.requests.length;
      await h.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'run forever' }] });
      await h.waitForUpdate((n) => h.updates.indexOf(n) >= from && n.update.sessionUpdate === 'terminal_output_chunk' && decode((n.update as any).data).includes('waiting'));
      const answer = await cancel(h, sessionId, 'c1');
      assert.doesNotThrow(() => checkResult('_accord/tool_call/cancel', answer));
      assert.equal(await h.idleAfter(sessionId, from), 'end_turn', 'only the call stopped');
      writeFileSync(gate, '');

      const card = v2Updates(h, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'c1');
      assert.deepEqual(card[0].capabilities, { cancel: {} }, 'advertised when the call is created');
      assert.equal(card.at(-1).status, 'failed');
      assert.equal(card.at(-1).capabilities, null, 'withdrawn at its final status');
      const said = v2Updates(h, sessionId, 'agent_message_chunk').map((u) => u.content.text).join('');
      assert.match(said, /Stopped as you asked\./);
      const next = JSON.stringify(model.server.requests.slice(requestsBefore).at(-1)?.body ?? '');
      assert.ok(/"tool_call_id":"c1","content":"Cancelled[^"]*while running/.test(next), 'the model reads that the call was cancelled while it ran');

      assert.equal(await codeOf(cancel(h, sessionId, 'c1')), -32602, 'a call that has ended cannot be cancelled');
    });
  });

  test('terminal/cancel on a command\'s terminal stops that call alone; an unknown or ended terminal is refused', { timeout: 120_000 }, async () => {
    await withAgent(async (h, sessionId) => {
      const gate = join(gates, 'gate-t');
      model.server.script(reply.tool('t1', 'run_command', { argv: endless(gate) }), reply.text('Terminal closed.'));
      h.permissions.policy = allowOnceV2;
      const from = h.updates.length;
      await h.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'run it in a terminal' }] });
      await h.waitForUpdate((n) => h.updates.indexOf(n) >= from && n.update.sessionUpdate === 'terminal_output_chunk');
      const terminal = v2Updates(h, sessionId, 'terminal_update').filter((u) => u.terminalId === 'terminal-t1');
      assert.deepEqual(terminal[0].capabilities, { cancel: {} }, 'the terminal is advertised cancellable');
      assert.equal(await codeOf(h.connection.agent.request(v2.methods.agent.terminal.cancel, { sessionId, terminalId: 'no-such-terminal' })), -32602);
      assert.equal(await codeOf(h.connection.agent.request(v2.methods.agent.terminal.cancel, { sessionId, terminalId: 'terminal-' })), -32602);
      assert.deepEqual(await h.connection.agent.request(v2.methods.agent.terminal.cancel, { sessionId, terminalId: 'terminal-t1' }), {});
      assert.equal(await h.idleAfter(sessionId, from), 'end_turn');
      writeFileSync(gate, '');
      assert.equal(v2Updates(h, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 't1').at(-1).status, 'failed');
      assert.equal(await codeOf(h.connection.agent.request(v2.methods.agent.terminal.cancel, { sessionId, terminalId: 'terminal-t1' })), -32602, 'an ended terminal');
    });
  });

  test('a call waiting for its approval cancelled alone: the question is withdrawn, the call is not run, the turn goes on', { timeout: 120_000 }, async () => {
    await withAgent(async (h, sessionId) => {
      const marker = join(gates, 'never-ran');
      model.server.script(reply.tool('c2', 'run_command', { argv: [process.execPath, '-e', `require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`] }), reply.text('Fine, not running it.'));
      let withdrawn = false;
      const waitForever: V2Policy = (_request, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            withdrawn = true;
            resolve({ outcome: { outcome: 'cancelled' } });
          }, { once: true }),
        );
      h.permissions.policy = waitForever;
      const from = h.updates.length;
      await h.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'write the marker' }] });
      await h.waitForUpdate(() => h.permissionRequests.length > 0);
      await cancel(h, sessionId, 'c2');
      assert.equal(await h.idleAfter(sessionId, from), 'end_turn');
      assert.ok(withdrawn, "the client's question was withdrawn ($/cancel_request)");
      const card = v2Updates(h, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'c2');
      assert.equal(card.at(-1).status, 'failed');
      assert.equal(existsSync(marker), false, 'the command never ran');
    });
  });

  test('bad input: an unknown call, another session\'s call, an unknown session, bad params are refused and stop nothing', { timeout: 120_000 }, async () => {
    await withAgent(async (h, sessionId) => {
      const other = (await h.connection.agent.request(v2.methods.agent.session.new, { cwd: world.project })).sessionId;
      const gate = join(gates, 'gate-3');
      model.server.script(reply.tool('c3', 'run_command', { argv: endless(gate) }), reply.text('It finished by itself.'));
      h.permissions.policy = allowOnceV2;
      const from = h.updates.length;
      await h.connection.agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'run it' }] });
      await h.waitForUpdate((n) => h.updates.indexOf(n) >= from && n.update.sessionUpdate === 'terminal_output_chunk');

      assert.equal(await codeOf(cancel(h, sessionId, 'no-such-call')), -32602);
      assert.equal(await codeOf(cancel(h, other, 'c3')), -32602, "another session's call is not this session's to cancel");
      assert.equal(await codeOf(cancel(h, 'no-such-session', 'c3')), -32002);
      assert.equal(await codeOf(h.connection.agent.request(v2.methods.agent.toolCall.cancel, { sessionId, toolCallId: '' } as never)), -32602);
      assert.equal(await codeOf(h.connection.agent.request('_accord/tool_call/cancel', { sessionId, toolCallId: 'x'.repeat(300) })), -32602, 'the v1 method checks its params too');

      // The call still runs: it ends by itself, completed.
      writeFileSync(gate, '');
      assert.equal(await h.idleAfter(sessionId, from), 'end_turn');
      assert.equal(v2Updates(h, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'c3').at(-1).status, 'completed');
    });
  });
});
