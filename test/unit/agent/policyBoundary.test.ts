// Issue 11, policy half, through real ACP connections and the fake model:
// path rules reach every tool that reads, lists or searches (MCP included);
// command rules see through spelling even under --always-approve; commands
// get an allowlisted environment; a broken policy asks and says why; edits
// to the session's own copy need no approval, everything else still asks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
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

  test('a variable the policy passes reaches commands; the rest of the agent environment still does not', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    writePolicy(project, { version: 1, rules: [], environment: { pass: ['ACCORD_TEST_PASSED'] } });
    const saved = { passed: process.env.ACCORD_TEST_PASSED, secret: process.env.ACCORD_TEST_SECRET };
    process.env.ACCORD_TEST_PASSED = 'passed-value-8c1f';
    process.env.ACCORD_TEST_SECRET = 'secret-value-5e2a';
    const agent = isolatedAgent(model.env(), data);
    try {
      const { sessionId } = await agent.newSession(project);
      model.server.script(reply.tool('e1', 'run_command', { argv: ['env'] }), reply.text('Printed.'));
      assert.equal(await agent.harness.prompt(sessionId, 'print the environment'), 'end_turn');
      const output = JSON.stringify(model.server.requests.at(-1)!.body);
      assert.match(output, /ACCORD_TEST_PASSED=passed-value-8c1f/, 'the policy named it');
      assert.ok(!output.includes('secret-value-5e2a'), 'an unnamed variable stays out');
    } finally {
      for (const [name, value] of [['ACCORD_TEST_PASSED', saved.passed], ['ACCORD_TEST_SECRET', saved.secret]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await agent.close();
      remove();
    }
  });
});

describe('command rules see through spelling over ACP', () => {
  const model = fakeModelFor('accord-boundary-commands-');

  test('with --always-approve, rm behind a path, a wrapper, git global options or a shell script is still refused', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    writePolicy(project, { version: 1, rules: [{ decision: 'deny', commands: [['rm', '**'], ['git', 'push', '**']], reason: 'people remove and push' }] });
    const agent = isolatedAgent(model.env(), data, true);
    try {
      const { sessionId } = await agent.newSession(project);
      const attempts: Record<string, string[]> = {
        c1: ['/bin/rm', 'a.txt'],
        c2: ['env', 'rm', 'a.txt'],
        c3: ['nice', '-n', '1', 'timeout', '5', 'rm', 'a.txt'],
        c4: ['bash', '-c', 'cd . && rm a.txt'],
        c5: ['git', '--no-pager', '-C', '.', 'push', 'origin', 'HEAD'],
        c6: ['find', '.', '-name', 'a.txt', '-exec', 'rm', '{}', ';'],
        c7: ['bash', '-c', '$(printf r)m b.txt'],
      };
      model.server.script(
        { type: 'stream', parts: Object.entries(attempts).map(([id, argv]) => ({ toolCall: { id, name: 'run_command', args: { argv } } })) },
        reply.text('Could not.'),
      );
      agent.harness.permissions.policy = async () => ({ outcome: { outcome: 'selected', optionId: 'reject_once' } });
      assert.equal(await agent.harness.prompt(sessionId, 'remove a.txt and push'), 'end_turn');
      const final = (id: string) => updatesOf(agent.harness, sessionId, 'tool_call_update').filter((u) => u.toolCallId === id && u.status).at(-1);
      for (const id of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']) {
        assert.equal(final(id).status, 'failed', id);
        assert.match(textOf(final(id)), /people remove and push/, id);
      }
      assert.equal(agent.harness.permissionRequests.length, 1, 'the script the policy cannot read asks even under --always-approve');
      assert.equal(agent.harness.permissionRequests[0]!.toolCall.toolCallId, 'c7');
      const status = await agent.ext('_accord/workspace/status', { sessionId });
      assert.ok(existsSync(join(status.root, 'a.txt')) && existsSync(join(status.root, 'b.txt')), 'nothing was removed');
    } finally {
      await agent.close();
      remove();
    }
  });
});

describe('a broken policy asks for everything and the client is told why', () => {
  const model = fakeModelFor('accord-boundary-invalid-');

  test('a wrong-case tool name: session/new carries accord/policyError naming it, and even a read asks', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ '.env': `KEY=${SECRET}\n` });
    writePolicy(project, { version: 1, rules: [{ decision: 'deny', tool: 'Read_File', paths: ['.env'] }] });
    const agent = isolatedAgent(model.env(), data);
    try {
      const { sessionId, meta } = await agent.newSession(project);
      assert.match(meta['accord/policyError'] ?? '', /rules\[0\]\.tool: "Read_File" names no tool.*did you mean "read_file"/);
      model.server.script(reply.tool('r1', 'read_file', { path: '.env' }), reply.text('Done.'));
      agent.harness.permissions.policy = async () => ({ outcome: { outcome: 'selected', optionId: 'reject_once' } });
      await agent.harness.prompt(sessionId, 'read .env');
      assert.equal(agent.harness.permissionRequests.length, 1, 'the read asked');
      assert.ok(!seenByModel(model).includes(SECRET));
    } finally {
      await agent.close();
      remove();
    }
  });
});

describe("a tool call's output is capped in the log and on the wire", () => {
  const model = fakeModelFor('accord-boundary-output-');

  test('64 MiB of command output: the log and the client get a few snapshots, the model the start and the end', { timeout: 300_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    const agent = isolatedAgent(model.env(), data);
    try {
      const { sessionId } = await agent.newSession(project);
      const logFile = join(data, 'sessions', `${sessionId}.jsonl`);
      const before = statSync(logFile).size;
      const bytes = 64 * 1024 * 1024;
      model.server.script(reply.tool('y1', 'run_command', { argv: ['sh', '-c', `printf 'FIRST\\n'; yes | head -c ${bytes}; printf 'LAST\\n'`], timeout_ms: 280_000 }), reply.text('Printed.'));
      assert.equal(await agent.harness.prompt(sessionId, 'print a lot'), 'end_turn');
      await agent.close();
      const grown = statSync(logFile).size - before;
      assert.ok(grown < 2 * 1024 * 1024, `the log grew ${grown} bytes for ${bytes} bytes of output`);
      const wire = JSON.stringify(updatesOf(agent.harness, sessionId, 'tool_call_update'));
      assert.ok(wire.length < 2 * 1024 * 1024, `${wire.length} characters of tool call updates reached the client`);
      const forModel = JSON.stringify(model.server.requests.at(-1)!.body);
      assert.match(forModel, /FIRST/);
      assert.match(forModel, /LAST/);
      assert.match(forModel, /bytes of output omitted \([\d,]+ in all\)/);
    } finally {
      await agent.close().catch(() => undefined);
      remove();
    }
  });
});

describe("modes: in auto, edits of the session's own copy need no approval; in ask (the default) they ask; commands ask and deny rules deny in both", () => {
  const model = fakeModelFor('accord-boundary-edits-');
  const script = () =>
    model.server.script(
      {
        type: 'stream',
        parts: [
          { toolCall: { id: 'w1', name: 'write_file', args: { path: 'src/new.ts', content: 'export {};\n' } } },
          { toolCall: { id: 'e1', name: 'edit_file', args: { path: 'a.txt', old_string: 'a', new_string: 'A' } } },
          { toolCall: { id: 'd1', name: 'delete_file', args: { path: 'b.txt' } } },
          { toolCall: { id: 'p1', name: 'edit_file', args: { path: 'package.json', old_string: '{}', new_string: '{"x":1}' } } },
          { toolCall: { id: 'g1', name: 'write_file', args: { path: '.git/hooks/pre-commit', content: 'evil' } } },
          { toolCall: { id: 's1', name: 'write_file', args: { path: 'secrets/key.txt', content: 'leak' } } },
          { toolCall: { id: 'c1', name: 'run_command', args: { argv: ['ls'] } } },
        ],
      },
      reply.text('Done.'),
    );
  const files = { 'a.txt': 'a\n', 'b.txt': 'b\n', 'package.json': '{}\n' };
  const policy = {
    version: 1,
    rules: [
      { decision: 'deny', paths: ['secrets/**'], reason: 'secrets stay out' },
      { decision: 'ask', paths: ['package.json'], reason: 'dependencies are for people' },
    ],
  };
  const order = ['w1', 'e1', 'd1', 'p1', 'g1', 's1', 'c1'];

  for (const { mode, asked } of [
    { mode: 'auto', asked: ['p1', 'c1'] },
    { mode: 'ask', asked: ['w1', 'e1', 'd1', 'p1', 'c1'] },
  ]) {
    test(`isolated, ${mode} mode: ${mode === 'auto' ? 'writes, edits and deletes in the copy run without asking' : 'every edit asks'}; the ask path and the command ask; .git and the denied path are refused`, { timeout: 120_000 }, async () => {
      const { project, data, remove } = gitProject(files);
      writePolicy(project, policy);
      const agent = isolatedAgent(model.env(), data);
      try {
        const { sessionId } = await agent.newSession(project);
        if (mode === 'auto') await agent.harness.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'auto' });
        script();
        assert.equal(await agent.harness.prompt(sessionId, 'change things'), 'end_turn');
        // Calls may be asked about in any order (independent calls run side by side): which ones asked is the point.
        assert.deepEqual(agent.harness.permissionRequests.map((r) => r.toolCall.toolCallId).sort(), [...asked].sort());
        const final = (id: string) => updatesOf(agent.harness, sessionId, 'tool_call_update').filter((u) => u.toolCallId === id && u.status).at(-1)?.status;
        assert.deepEqual(order.map(final), ['completed', 'completed', 'completed', 'completed', 'failed', 'failed', 'completed']);
        const denied = JSON.stringify(updatesOf(agent.harness, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 's1'));
        assert.match(denied, /secrets stay out/, 'the deny rule decided it');
        const { changes } = await agent.ext('_accord/changes/list', { sessionId });
        assert.deepEqual(changes.map((c: any) => c.path).sort(), ['a.txt', 'b.txt', 'package.json', 'src/new.ts'], 'every change waits in the review');
        assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), 'a\n', "the person's tree is unchanged");
      } finally {
        await agent.close();
        remove();
      }
    });
  }

  test("in place the person's files change directly, so every edit asks, in auto mode too", { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject(files);
    writePolicy(project, policy);
    const agent = isolatedAgent(model.env(), data);
    try {
      const { sessionId } = await agent.newSession(project, { 'accord/workspace': 'in-place' });
      await agent.harness.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: 'mode', value: 'auto' });
      script();
      assert.equal(await agent.harness.prompt(sessionId, 'change things'), 'end_turn');
      assert.deepEqual(agent.harness.permissionRequests.map((r) => r.toolCall.toolCallId).sort(), ['c1', 'd1', 'e1', 'p1', 'w1']);
    } finally {
      await agent.close();
      remove();
    }
  });
});

describe('files an ask rule covers', () => {
  const model = fakeModelFor('accord-boundary-askpaths-');

  test('are left out of an unasked search, and shown in one the person was asked about and allowed; denied files never', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'private/notes.md': 'needle in private\n', 'private/secrets/k': `${SECRET} needle\n`, 'src/a.ts': 'needle in src\n' });
    writePolicy(project, { version: 1, rules: [{ decision: 'ask', paths: ['private/**'] }, { decision: 'deny', paths: ['private/secrets/**'] }] });
    const agent = isolatedAgent(model.env(), data);
    try {
      const { sessionId } = await agent.newSession(project);
      model.server.script(reply.tool('s1', 'search', { pattern: 'needle' }), reply.tool('s2', 'search', { pattern: 'needle', path: 'private' }), reply.text('Done.'));
      assert.equal(await agent.harness.prompt(sessionId, 'find needles'), 'end_turn');
      const [, afterFirst, afterSecond] = model.server.requests.slice(-3).map((r) => JSON.stringify(r.body.messages.at(-1)));
      assert.match(afterFirst!, /src\/a\.ts:1/);
      assert.doesNotMatch(afterFirst!, /needle in private/);
      assert.match(afterSecond!, /needle in private/);
      assert.deepEqual(agent.harness.permissionRequests.map((r) => r.toolCall.toolCallId), ['s2']);
      assert.ok(!seenByModel(model).includes(SECRET));
    } finally {
      await agent.close();
      remove();
    }
  });
});
