// The built agent as a new user meets it: `node dist/agent.js acp` driven by
// the SDK client over stdio edits a file in the session's own workspace
// (the person's file changes only when the change is applied), streams
// thoughts and text, reports usage and cost, cancels cleanly — and its stdout
// carries nothing but ndjson protocol messages.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { reply } from '../../fakeModelServer/index';
import { agentBundle, ensureAgentBundle, fakeModelFor, childAgent, isolatedEnv, messageText, updatesOf } from './harness';

describe('agent over stdio (dist/agent.js acp)', () => {
  ensureAgentBundle();
  const model = fakeModelFor('accord-stdio-');

  test('in auto mode (session/set_mode) edits its own copy without asking (the review is the approval), streams thoughts, text and usage, then cancels', { timeout: 60_000 }, async () => {
    const project = join(model.configDir, 'project');
    mkdirSync(project);
    const agent = childAgent(
      isolatedEnv({ ACCORD_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k', ACCORD_ANTHROPIC_BASE_URL: model.server.baseUrl, ACCORD_HOME: join(model.configDir, 'data') }, model.configDir),
    );
    try {
      writeFileSync(join(project, 'app.js'), 'console.log("hi");\n');
      const sessionId = await agent.newSession(project);
      assert.deepEqual(await agent.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'auto' }), {});
      await agent.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'current_mode_update' && n.update.currentModeId === 'auto');
      model.server.script(
        { type: 'stream', parts: [{ reasoning: 'I should read the file first.' }, { toolCall: { id: 'toolu_1', name: 'read_file', args: { path: 'app.js' } } }] },
        reply.tool('toolu_2', 'edit_file', { path: 'app.js', old_string: '"hi"', new_string: '"hello"' }),
        { type: 'stream', parts: [{ text: 'Done: it now says hello.' }], usage: { input: 2000, cachedInput: 1500, output: 20 } },
      );
      assert.equal(await agent.prompt(sessionId, 'make it say hello'), 'end_turn');
      assert.equal(readFileSync(join(project, 'app.js'), 'utf8'), 'console.log("hi");\n', "the person's file is untouched until the change is applied");
      const status = await agent.connection.agent.request<{ root: string }>('_accord/workspace/status', { sessionId });
      assert.equal(readFileSync(join(status.root, 'app.js'), 'utf8'), 'console.log("hello");\n', 'the edit landed in the session workspace');
      const edit = updatesOf(agent, sessionId, 'tool_call_update').find((u) => u.content?.some((c: any) => c.type === 'diff'));
      assert.equal(edit.content.find((c: any) => c.type === 'diff').path, join(project, 'app.js'), "the diff names the person's file");
      const listed = await agent.connection.agent.request<{ changes: Array<{ path: string }> }>('_accord/changes/list', { sessionId });
      assert.deepEqual(listed.changes.map((c) => c.path), ['app.js'], 'the change waits for review');
      assert.equal(messageText(agent, sessionId, 'agent_thought_chunk'), 'I should read the file first.');
      assert.equal(messageText(agent, sessionId), 'Done: it now says hello.');
      assert.equal(agent.permissionRequests.length, 0, "an edit of the session's own copy waits for review instead of asking");
      const usage = updatesOf(agent, sessionId, 'usage_update');
      assert.equal(usage.length, 3, 'one usage_update per model request');
      assert.equal(usage[2].used, 2020);
      assert.equal(usage[2].size, 200_000);
      assert.ok(usage[2].cost.amount > usage[0].cost.amount, 'cost is cumulative');

      model.server.script({ type: 'stream', parts: [{ text: 'thinking out loud' }, { text: 'never' }], stallAfterParts: 1 });
      const prompt = agent.prompt(sessionId, 'keep going');
      await agent.waitForUpdate((n) => n.update.sessionUpdate === 'agent_message_chunk' && (n.update as any).content.text === 'thinking out loud');
      await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal(await prompt, 'cancelled');
    } finally {
      await agent.close();
    }

    const raw = Buffer.concat(agent.stdout).toString('utf8');
    assert.ok(raw.endsWith('\n'));
    const lines = raw.split('\n').slice(0, -1);
    assert.ok(lines.length > 10);
    for (const line of lines) {
      const message = JSON.parse(line);
      assert.equal(message.jsonrpc, '2.0', line.slice(0, 120));
    }
    assert.doesNotMatch(agent.stderr.join(''), /\n\s+at .*\(/, 'no stack traces on stderr either');
  });

  test('the CLI without a subcommand prints usage to stderr, not stdout', () => {
    const result = spawnSync(process.execPath, [agentBundle, 'nope'], { encoding: 'utf8' });
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /unknown command "nope"/);
    assert.match(result.stderr, /accord acp \[agent options\]/);
  });
});
