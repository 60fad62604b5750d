// The bundled agent's lazy bundles (esbuild.mjs, agent/bundle/lazy.ts): a
// plain start and session load none of them, a prompt loads only the model SDK
// and the provider in use, and each lazy bundle really works from the dist
// (the model SDK and a provider, the MCP client) with the modules it takes
// from the core. ACCORD_TRACE_BUNDLES=1 makes the agent name each bundle it
// loads on stderr, and each lazy module of the core it initialises (the ACP
// v2 router and facade, for a client that does not open with v1).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply } from '../../fakeModelServer/index';
import { agentBundle, childAgent, fakeModelFor, messageText, preparedMeta, updatesOf, type ChildHarness } from '../agent/harness';
import { childV2 } from '../agent/v2Harness';
import { gitProject } from '../agent/isolationFixtures';
import { ensureBuilt } from '../daemon/fixtures';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';

const fakeMcpServer = join(process.cwd(), 'test/unit/agent/fakeMcpServer.mjs');
const loadedBundles = (agent: Pick<ChildHarness, 'stderr'>) => [...agent.stderr.join('').matchAll(/^accord: loading bundle agent-([\w-]+)\.js$/gm)].map((m) => m[1]!).sort();
const loadedModules = (agent: Pick<ChildHarness, 'stderr'>) => [...agent.stderr.join('').matchAll(/^accord: loading module ([\w-]+)$/gm)].map((m) => m[1]!).sort();

describe('lazy bundles of the bundled agent', () => {
  const model = fakeModelFor('accord-lazy-bundles-');
  const projects: Array<() => void> = [];
  before(() => ensureBuilt());
  after(() => projects.forEach((remove) => remove()));

  function start(extra: Record<string, string> = {}) {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    projects.push(remove);
    const agent = childAgent({ ...model.env(), ACCORD_HOME: data, ACCORD_TRACE_BUNDLES: '1', ...extra });
    return { agent, project };
  }

  test('initialize and session/new load none of them (no sandbox, no warm-up)', { timeout: 120_000 }, async () => {
    const { agent, project } = start({ ACCORD_SANDBOX: 'off', ACCORD_WARM_MODEL: 'off' });
    try {
      const sessionId = await agent.newSession(project);
      // The session's workspace is prepared in the background: wait for it before looking.
      await preparedMeta(agent, sessionId);
    } finally {
      await agent.close();
    }
    assert.deepEqual(loadedBundles(agent), [], agent.stderr.join(''));
    assert.deepEqual(loadedModules(agent), [], 'a v1 client never initialises the ACP v2 router');
  });

  test('a client that leaves without a word: the agent exits, without loading the ACP v2 router', { timeout: 120_000 }, async () => {
    const { data, remove } = gitProject({ 'a.txt': 'a\n' });
    projects.push(remove);
    const child = spawn(process.execPath, [agentBundle, 'acp', '--no-daemon'], { env: { ...model.env(), ACCORD_HOME: data, ACCORD_TRACE_BUNDLES: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const stderr: string[] = [];
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const stdout: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.stdin!.end();
    assert.equal(await exited, 0, stderr.join(''));
    assert.equal(Buffer.concat(stdout).length, 0, 'nothing on stdout');
    assert.deepEqual(loadedModules({ stderr }), [], stderr.join(''));
  });

  test('a v2 client: initialize loads the ACP v2 router and facade, once, and nothing else', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    projects.push(remove);
    const agent = childV2({ ...model.env(), ACCORD_HOME: data, ACCORD_TRACE_BUNDLES: '1', ACCORD_SANDBOX: 'off', ACCORD_WARM_MODEL: 'off' });
    try {
      assert.equal((await agent.initialize(2)).protocolVersion, 2);
      await agent.connection.agent.request(v2.methods.agent.session.new, { cwd: project });
    } finally {
      await agent.close();
    }
    assert.deepEqual(loadedModules(agent), ['acp-v2'], agent.stderr.join(''));
    assert.deepEqual(loadedBundles(agent), [], agent.stderr.join(''));
  });

  // An OpenAI-compatible model is our own (agent/models/chat/, in the core), and the turn drives it itself: no lazy bundle at all.
  test('an OpenAI-compatible session and its prompt stream without any provider bundle or the ai SDK, no MCP client', { timeout: 120_000 }, async () => {
    const { agent, project } = start();
    try {
      const sessionId = await agent.newSession(project);
      model.server.script({ type: 'stream', parts: [{ text: 'Hello' }, { text: ', lazy' }, { text: ' world.' }] });
      assert.equal(await agent.prompt(sessionId, 'hi'), 'end_turn');
      assert.equal(messageText(agent, sessionId), 'Hello, lazy world.');
    } finally {
      await agent.close();
    }
    const loaded = loadedBundles(agent);
    for (const unneeded of ['openai-compatible', 'ai', 'openai', 'anthropic', 'mcp']) assert.ok(!loaded.includes(unneeded), `${unneeded} loaded: ${loaded.join(', ')}`);
    assert.equal(new Set(loaded).size, loaded.length, 'a bundle was loaded twice');
  });

  test("a policy's MCP server loads the MCP client bundle, and its tool works from the dist", { timeout: 120_000 }, async () => {
    const { agent, project } = start();
    mkdirSync(join(project, '.accord'));
    const policy = { version: 1, rules: [{ decision: 'allow', tool: 'mcp__fake__*' }], mcpServers: [{ name: 'fake', command: [process.execPath, fakeMcpServer] }] };
    writeFileSync(join(project, '.accord/policy.json'), JSON.stringify(policy));
    try {
      const sessionId = await agent.newSession(project);
      const meta = await preparedMeta(agent, sessionId);
      assert.equal(meta['accord/mcpErrors'], undefined, JSON.stringify(meta));
      model.server.script(reply.tool('m1', 'mcp__fake__echo', { text: 'hi' }), reply.text('It echoed.'));
      assert.equal(await agent.prompt(sessionId, 'echo hi'), 'end_turn');
      const done = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'm1' && u.status).at(-1);
      assert.equal(done?.status, 'completed', JSON.stringify(done));
    } finally {
      await agent.close();
    }
    assert.ok(loadedBundles(agent).includes('mcp'), agent.stderr.join(''));
  });
});
