// Issue 11, policy half, through real ACP connections and the fake model:
// path rules reach every tool that reads, lists or searches (MCP included);
// command rules see through spelling even under --always-approve; commands
// get an allowlisted environment; a broken policy asks and says why; edits
// to the session's own copy need no approval, everything else still asks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply } from '../../fakeModelServer/index';
import { updatesOf, fakeModelFor } from './harness';
import { gitProject, isolatedAgent } from './isolationFixtures';

const fakeMcpServer = join(import.meta.dirname, 'fakeMcpServer.mjs');
const textOf = (update: any) => (update.content ?? []).map((c: any) => c.content?.text ?? '').join('');
const SECRET = 'TOPSECRET-4f9a';

function writePolicy(project: string, policy: unknown): void {
  mkdirSync(join(project, '.accord'), { recursive: true });
  writeFileSync(join(project, '.accord/policy.json'), JSON.stringify(policy));
}

/** Everything the model was sent, as one string: what it may have learnt. */
function seenByModel(model: ReturnType<typeof fakeModelFor>): string {
  return model.server.requests.map((r) => JSON.stringify(r.body)).join('\n');
}

describe('path rules reach every tool that reads, lists or searches', () => {
  const model = fakeModelFor('accord-boundary-paths-');

  for (const engine of ['ripgrep', 'javascript'] as const) {
    test(`denied files never reach the model through search (${engine}), list_files or an MCP tool`, { timeout: 120_000 }, async () => {
      const { project, data, remove } = gitProject({
        'src/app.ts': 'export const app = 1; // needle\n',
        'secrets/key.txt': `${SECRET} needle\n`,
        'config/.env': `PASSWORD=${SECRET} needle\n`,
        'private/notes.md': `${SECRET} needle\n`,
      });
      writePolicy(project, {
        version: 1,
        rules: [
          { decision: 'deny', paths: ['secrets/**', '**/.env'], reason: 'secrets stay secret' },
          { decision: 'ask', paths: ['private/**'] },
          { decision: 'allow', tool: 'mcp__fake__*' },
        ],
        mcpServers: [{ name: 'fake', command: [process.execPath, fakeMcpServer] }],
      });
      const env = { ...model.env(), ...(engine === 'javascript' ? { ACCORD_SEARCH_NO_RIPGREP: '1' } : {}) };
      const previous = process.env.ACCORD_SEARCH_NO_RIPGREP;
      if (engine === 'javascript') process.env.ACCORD_SEARCH_NO_RIPGREP = '1';
      const agent = isolatedAgent(env, data);
      try {
        const { sessionId } = await agent.newSession(project);
        const status = await agent.ext('_accord/workspace/status', { sessionId });
        model.server.script(
          {
            type: 'stream',
            parts: [
              { toolCall: { id: 's1', name: 'search', args: { pattern: 'needle' } } },
              { toolCall: { id: 's2', name: 'search', args: { pattern: 'TOPSECRET', path: 'config' } } },
              { toolCall: { id: 'l1', name: 'list_files', args: {} } },
              { toolCall: { id: 'm1', name: 'mcp__fake__cat', args: { path: 'secrets/key.txt' } } },
              { toolCall: { id: 'm2', name: 'mcp__fake__cat', args: { path: join(status.root, 'config/.env') } } },
              { toolCall: { id: 'm3', name: 'mcp__fake__cat', args: { options: { file: 'secrets/../secrets/key.txt' } } } },
              { toolCall: { id: 'r1', name: 'read_file', args: { path: 'secrets/key.txt' } } },
            ],
          },
          reply.text('Done.'),
        );
        assert.equal(await agent.harness.prompt(sessionId, 'look around'), 'end_turn');
        assert.ok(!seenByModel(model).includes(SECRET), 'no denied or ask-only content reached the model');
        const final = (id: string) => updatesOf(agent.harness, sessionId, 'tool_call_update').filter((u) => u.toolCallId === id && u.status).at(-1);
        assert.equal(final('s1').status, 'completed');
        const lastRequest = JSON.stringify(model.server.requests.at(-1)!.body);
        assert.match(lastRequest, /src\/app\.ts:1/, 'allowed files are still found');
        assert.match(lastRequest, /3 files left out: the project policy keeps them from searches/);
        assert.match(lastRequest, /left out: the project policy keeps them from listings/);
        assert.doesNotMatch(lastRequest, /secrets\/key\.txt:1|private\/notes\.md\\n/);
        for (const id of ['m1', 'm2', 'm3', 'r1']) {
          assert.equal(final(id).status, 'failed', id);
          assert.match(textOf(final(id)), /secrets stay secret/, id);
        }
        assert.equal(agent.harness.permissionRequests.length, 0, 'nothing asked: the hidden files are just left out');
      } finally {
        if (previous === undefined) delete process.env.ACCORD_SEARCH_NO_RIPGREP;
        else process.env.ACCORD_SEARCH_NO_RIPGREP = previous;
        await agent.close();
        remove();
      }
    });
  }
});

describe('commands get an allowlisted environment', () => {
  const model = fakeModelFor('accord-boundary-env-');
  const planted: Record<string, string> = {
    PGPASSWORD: 'pg-secret-1', MYSQL_PWD: 'mysql-secret-2', CI_JOB_JWT: 'jwt-secret-3', SLACK_WEBHOOK_URL: 'https://hooks.slack.example/slack-secret-4',
    DB_PASSWORD2: 'db-secret-5', SECRETKEY: 'key-secret-6', STRIPE_SK: 'stripe-secret-7', PRIVATEKEY: 'private-secret-8',
  };

  test('secrets in the agent environment under unforeseen names never reach the model through `env`', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const saved = Object.fromEntries(Object.keys(planted).map((name) => [name, process.env[name]]));
    Object.assign(process.env, planted);
    const agent = isolatedAgent(model.env(), data);
    try {
      const { sessionId } = await agent.newSession(project);
      model.server.script(reply.tool('e1', 'run_command', { argv: ['env'] }), reply.text('Printed.'));
      assert.equal(await agent.harness.prompt(sessionId, 'print the environment'), 'end_turn');
      const done = updatesOf(agent.harness, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'e1' && u.status).at(-1);
      assert.equal(done.status, 'completed', textOf(done));
      const output = JSON.stringify(model.server.requests.at(-1)!.body);
      assert.match(output, /PATH=/, 'the command ran and its output reached the model');
      for (const [name, value] of Object.entries(planted)) {
        assert.ok(!output.includes(value), `${name} reached the model`);
        assert.ok(!textOf(done).includes(value), `${name} reached the client`);
      }
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await agent.close();
      remove();
    }
  });
});
