// For each provider format, one turn that produces every update type a turn
// can: thoughts, text, tool calls with permission (command and edit), plan,
// usage. The command's approval carries argv, cwd and env changes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply, startFakeModelServer, type FakeModelServer } from '../../fakeModelServer/index';
import { inMemoryAgent, isolatedEnv, tempDir, updatesOf } from './harness';

const providers = [
  { name: 'anthropic', env: (url: string) => ({ ACCORD_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k', ACCORD_ANTHROPIC_BASE_URL: url }) },
  { name: 'openai Responses', env: (url: string) => ({ ACCORD_MODEL: 'openai:gpt-5', OPENAI_API_KEY: 'k', ACCORD_OPENAI_BASE_URL: url }) },
  { name: 'openai-compatible', env: (url: string) => ({ ACCORD_MODEL: `openai-compatible:${url}#qwen2.5-coder` }) },
];

describe('every update type, per provider', () => {
  let server: FakeModelServer;
  const config = tempDir('accord-every-config-');
  before(async () => {
    server = await startFakeModelServer();
  });
  after(async () => {
    await server.close();
    config.remove();
  });

  for (const provider of providers) {
    test(provider.name, async () => {
      const root = tempDir('accord-every-');
      const agent = inMemoryAgent({ env: isolatedEnv(provider.env(server.baseUrl), config.path) });
      try {
        writeFileSync(join(root.path, 'notes.txt'), 'draft\n');
        const sessionId = await agent.newSession(root.path);
        const plan = [
          { content: 'Check node', priority: 'high', status: 'in_progress' },
          { content: 'Edit notes', priority: 'medium', status: 'pending' },
        ];
        server.script(
          { type: 'stream', parts: [{ reasoning: 'Plan first.' }, { text: 'Planning.' }, { toolCall: { id: 'p1', name: 'plan', args: { entries: plan } } }] },
          reply.tool('c1', 'run_command', { argv: [process.execPath, '-e', 'console.log(process.env.GREETING)'], env: { GREETING: 'hi-from-env' } }),
          reply.tool('e1', 'edit_file', { path: 'notes.txt', old_string: 'draft', new_string: 'final' }),
          reply.text('All done.'),
        );
        assert.equal(await agent.prompt(sessionId, 'do it'), 'end_turn');

        const kinds = new Set(agent.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update.sessionUpdate));
        for (const kind of ['agent_thought_chunk', 'agent_message_chunk', 'tool_call', 'tool_call_update', 'plan', 'usage_update', 'available_commands_update']) {
          assert.ok(kinds.has(kind as any), `missing ${kind}`);
        }
        assert.deepEqual(updatesOf(agent, sessionId, 'plan')[0].entries, plan);
        assert.equal(updatesOf(agent, sessionId, 'usage_update').length, 4);

        const [command, edit] = agent.permissionRequests;
        assert.equal(agent.permissionRequests.length, 2, 'plan runs without asking; the command and the edit ask');
        const raw = command!.toolCall.rawInput as any;
        assert.deepEqual(raw.argv, [process.execPath, '-e', 'console.log(process.env.GREETING)']);
        assert.equal(raw.cwd, root.path);
        assert.deepEqual(raw.envChanges, { GREETING: 'hi-from-env' });
        assert.match((command!.toolCall.content![0] as any).content.text, /GREETING=hi-from-env/);
        assert.equal(edit!.toolCall.content![0]!.type, 'diff');

        const commandDone = updatesOf(agent, sessionId, 'tool_call_update').find((u) => u.toolCallId === 'c1' && u.status === 'completed');
        assert.match(JSON.stringify(commandDone.content), /hi-from-env/);
        assert.equal(readFileSync(join(root.path, 'notes.txt'), 'utf8'), 'final\n');
      } finally {
        await agent.close();
        root.remove();
      }
    });
  }
});
