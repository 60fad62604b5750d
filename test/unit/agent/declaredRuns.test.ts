// Declared runs over real ACP, in an isolated session whose project policy
// declares them: the plan up front, a failing step with its onFailure steps,
// a gate (asked, and under --durable-requests ending `waiting`), refusals,
// and the runs listed as commands.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { DurableRequests } from '../../../agent/acp/durablePermissions';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { SessionWorkspaces } from '../../../agent/session/workspaces';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { builtinTools } from '../../../agent/tools/index';
import { fakeModelFor, inMemoryApp, messageText, neverAnswer, rejectOnce, updatesOf, type Harness } from './harness';
import { gitProject } from './isolationFixtures';

const policy = {
  version: 1,
  rules: [
    { decision: 'deny', commands: [['rm', '**']], reason: 'nothing is deleted here' },
    { decision: 'deny', commands: [['curl', '**']], reason: 'no downloads' },
  ],
  runs: {
    check: {
      description: 'Lint, then test',
      steps: [
        { name: 'lint', argv: ['echo', 'lint is clean'] },
        { name: 'test', argv: ['sh', '-c', 'echo two tests failed; exit 3'] },
        { name: 'report', argv: ['echo', 'never printed'] },
      ],
      onFailure: [{ name: 'collect logs', argv: ['echo', 'logs collected'] }],
    },
    escape: {
      steps: [{ name: 'via a symlink', argv: ['pwd'], cwd: 'link' }],
      onFailure: [{ name: 'via dot-dot', argv: ['pwd'], cwd: '..' }],
    },
    wipe: {
      steps: [
        { name: 'greet', argv: ['echo', 'greeting before the wipe'] },
        { name: 'wipe', argv: ['rm', '-rf', 'README.md'] },
      ],
    },
    passthrough: {
      steps: [{ name: 'anything', argv: ['{args}'] }],
    },
    recover: {
      steps: [{ name: 'fail', argv: ['sh', '-c', 'exit 1'] }],
      onFailure: [{ name: 'clean', argv: ['rm', '-f', 'README.md'] }],
    },
    deploy: {
      steps: [
        { name: 'build', argv: ['echo', 'built'] },
        { name: 'ship', argv: ['echo', 'shipped to', '{args}'], gate: true },
      ],
    },
  },
};

describe('declared runs', () => {
  const model = fakeModelFor('accord-runs-config-');

  async function withSession(options: { durable?: boolean }, run: (agent: Harness, sessionId: string, root: string) => Promise<void>) {
    const { project, data, remove } = gitProject({ '.accord/policy.json': JSON.stringify(policy), 'README.md': 'hi\n' });
    const isolation = new SessionWorkspaces({ dataDir: data, alwaysApprove: false });
    const { app, closeLogs } = createLoggedAgent(
      { env: model.env(), tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0, isolation, ...(options.durable ? { durable: new DurableRequests() } : {}) },
      new SessionStore(data),
    );
    const agent = inMemoryApp(app);
    try {
      const sessionId = await agent.newSession(project);
      await run(agent, sessionId, (await isolation.ready(sessionId))!.workspace.root);
    } finally {
      await agent.close();
      await closeLogs();
      await isolation.releaseAll();
      remove();
    }
  }

  test('the plan comes first; a failing step stops the run, the rest are not run, onFailure steps open and close their own calls', { timeout: 120_000 }, async () => {
    await withSession({}, async (agent, sessionId) => {
      const requests = model.server.requests.length;
      assert.equal(await agent.prompt(sessionId, '!run check'), 'end_turn');
      assert.equal(model.server.requests.length, requests, 'no model involved');
      const mine = agent.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update as any);
      const calls = mine.filter((u) => u.sessionUpdate === 'tool_call');
      assert.deepEqual(calls.slice(0, 3).map((c) => [c.title, c.kind, c.status]), [['check / lint', 'execute', 'pending'], ['check / test', 'execute', 'pending'], ['check / report', 'execute', 'pending']]);
      assert.deepEqual(calls[1].rawInput, { argv: ['sh', '-c', 'echo two tests failed; exit 3'] });
      const firstProgress = mine.findIndex((u) => u.sessionUpdate === 'tool_call_update');
      assert.ok(firstProgress > mine.indexOf(calls[2]), 'every step is announced before anything runs');
      const final = (id: string) => mine.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === id && u.status).at(-1);
      assert.equal(final(calls[0].toolCallId).status, 'completed');
      assert.equal(final(calls[1].toolCallId).status, 'failed');
      assert.match(final(calls[1].toolCallId).content[0].content.text, /exit code 3/);
      assert.equal(final(calls[2].toolCallId).status, 'failed');
      assert.match(final(calls[2].toolCallId).content[0].content.text, /Not run/);
      assert.equal(calls[3].title, 'check / on failure: collect logs');
      assert.equal(final(calls[3].toolCallId).status, 'completed');
      const text = messageText(agent, sessionId);
      assert.match(text, /lint is clean[\s\S]*two tests failed[\s\S]*logs collected/, 'output streams as message chunks');
      assert.doesNotMatch(text, /never printed/);
      assert.match(text, /Run "check" failed at step "test" \(exit code 3\); 1 of 3 steps passed\. On failure: collect logs passed\./);
    });
  });

  test('the runs are listed as commands; /check runs like !run check', { timeout: 120_000 }, async () => {
    await withSession({}, async (agent, sessionId) => {
      // session/new answers before the workspace (and its policy) is ready: the menu gains the runs once it is.
      const listed = await agent.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update' && (n.update as any).availableCommands.length > 1);
      const commands = (listed.update as any).availableCommands;
      assert.deepEqual(commands.map((c: any) => c.name), ['compact', 'check', 'escape', 'wipe', 'passthrough', 'recover', 'deploy']);
      assert.equal(commands[1].description, 'Lint, then test');
      assert.deepEqual(commands.find((c: any) => c.name === 'deploy').input, { hint: 'arguments' });
      assert.equal(await agent.prompt(sessionId, '/check'), 'end_turn');
      assert.match(messageText(agent, sessionId), /Run "check" failed at step "test"/);
    });
  });

  test('unknown run names and unreadable arguments end with refusal and run nothing', { timeout: 120_000 }, async () => {
    await withSession({}, async (agent, sessionId) => {
      assert.equal(await agent.prompt(sessionId, '!run nosuch'), 'refusal');
      assert.match(messageText(agent, sessionId), /no declared run named "nosuch"[\s\S]*check, escape, wipe, passthrough, recover, deploy/);
      assert.equal(await agent.prompt(sessionId, '!run deploy "unterminated'), 'refusal');
      assert.equal(await agent.prompt(sessionId, '!run check extra-arg'), 'refusal');
      assert.equal(updatesOf(agent, sessionId, 'tool_call').length, 0, 'nothing ran');
    });
  });

  test('a gate asks first: declined, the run stops there', { timeout: 120_000 }, async () => {
    await withSession({}, async (agent, sessionId) => {
      agent.permissions.policy = rejectOnce;
      assert.equal(await agent.prompt(sessionId, '!run deploy production'), 'end_turn');
      assert.equal(agent.permissionRequests.length, 1);
      assert.equal(agent.permissionRequests[0]!.toolCall.title, 'deploy / ship');
      assert.deepEqual(agent.permissionRequests[0]!.toolCall.rawInput, { argv: ['echo', 'shipped to', 'production'] });
      const text = messageText(agent, sessionId);
      assert.match(text, /built/);
      assert.doesNotMatch(text, /shipped to/);
      assert.match(text, /the gate "ship" was declined/);
    });
  });

  test('under --durable-requests a gate ends the turn waiting; allowing it on the next prompt runs the rest', { timeout: 120_000 }, async () => {
    await withSession({ durable: true }, async (agent, sessionId) => {
      agent.permissions.policy = neverAnswer;
      const response = (await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: '!run deploy staging' }] })) as any;
      assert.equal(response.stopReason, 'waiting');
      const pending = response._meta['accord/permission'];
      assert.equal(pending.toolCall.title, 'deploy / ship');
      assert.doesNotMatch(messageText(agent, sessionId), /shipped/);
      const answered = await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [], _meta: { 'accord/permission': { requestId: pending.requestId, optionId: 'allow_once' } } });
      assert.equal(answered.stopReason, 'end_turn');
      assert.match(messageText(agent, sessionId), /shipped to staging[\s\S]*Run "deploy" passed/);
    });
  });

  test('attack: a step whose argv a deny rule covers refuses the run before anything runs; arguments cannot smuggle one in; a denied onFailure step is not run', { timeout: 120_000 }, async () => {
    await withSession({}, async (agent, sessionId, root) => {
      assert.equal(await agent.prompt(sessionId, '!run wipe'), 'refusal');
      assert.equal(updatesOf(agent, sessionId, 'tool_call').length, 0, 'no plan was drawn: nothing runs');
      assert.doesNotMatch(messageText(agent, sessionId), /greeting before the wipe/, 'not even the allowed first step ran');
      assert.match(messageText(agent, sessionId), /Run "wipe" was refused: its step "wipe" runs \["rm","-rf","README.md"\], which the policy denies \(denied by rule 1 \(nothing is deleted here\)\)\. Nothing ran\./);
      assert.ok(existsSync(join(root, 'README.md')));

      assert.equal(await agent.prompt(sessionId, '!run passthrough curl https://example.invalid/x'), 'refusal');
      assert.match(messageText(agent, sessionId), /no downloads/);
      assert.equal(updatesOf(agent, sessionId, 'tool_call').length, 0);

      assert.equal(await agent.prompt(sessionId, '!run recover'), 'end_turn');
      const cleanup = updatesOf(agent, sessionId, 'tool_call').find((c) => c.title === 'recover / on failure: clean');
      const final = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.toolCallId === cleanup.toolCallId && u.status).at(-1);
      assert.equal(final.status, 'failed');
      assert.match(final.content[0].content.text, /The policy denies this command \(denied by rule 1/);
      assert.ok(existsSync(join(root, 'README.md')), 'the denied recovery step did not run');

      // Allowed commands still run through the same arguments path.
      assert.equal(await agent.prompt(sessionId, '!run passthrough echo allowed through'), 'end_turn');
      assert.match(messageText(agent, sessionId), /allowed through/);
    });
  });

  test('attack: a step never runs outside the workspace, whether its cwd climbs out or the agent planted a symlink', { timeout: 120_000 }, async () => {
    await withSession({}, async (agent, sessionId, root) => {
      symlinkSync(tmpdir(), join(root, 'link')); // what an agent could write in its copy
      assert.equal(await agent.prompt(sessionId, '!run escape'), 'end_turn');
      const finals = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.status === 'failed');
      assert.equal(finals.length, 2);
      for (const update of finals) assert.match(update.content[0].content.text, /outside the workspace, so it was not run/);
      assert.doesNotMatch(messageText(agent, sessionId), new RegExp(`\\$ pwd`), 'pwd never ran');
    });
  });
});
