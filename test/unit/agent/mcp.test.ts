// MCP servers declared in .accord/policy.json: started per session under the
// sandbox in the session workspace; their tools reach the model and run
// through the same policy gate (kind "other"); a server that cannot start is
// reported to the client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply } from '../../fakeModelServer/index';
import { updatesOf, fakeModelFor } from './harness';
import { gitProject, isolatedAgent } from './isolationFixtures';

const fakeMcpServer = join(import.meta.dirname, 'fakeMcpServer.mjs');
const hostileMcpServer = join(import.meta.dirname, 'hostileMcpServer.mjs');
const textOf = (update: any) => (update.content ?? []).map((c: any) => c.content?.text ?? '').join('');

describe('MCP servers from the project policy', () => {
  const model = fakeModelFor('accord-mcp-config-');
  const env = model.env;

  test("a declared server's tools reach the model, run in the workspace, and follow the policy", { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    mkdirSync(join(project, '.accord'));
    const policy = {
      version: 1,
      rules: [{ decision: 'allow', tool: 'mcp__fake__*' }],
      mcpServers: [
        { name: 'fake', command: [process.execPath, fakeMcpServer] },
        { name: 'broken', command: [join(project, 'no-such-server')] },
      ],
    };
    writeFileSync(join(project, '.accord/policy.json'), JSON.stringify(policy));
    const agent = isolatedAgent(env(), data);
    try {
      const { sessionId, meta } = await agent.newSession(project);
      assert.equal(meta['accord/mcpErrors']?.length, 1);
      assert.match(meta['accord/mcpErrors'][0], /"broken" from \.accord\/policy\.json could not be started/);
      model.server.script(reply.tool('m1', 'mcp__fake__echo', { text: 'hi' }), reply.text('It echoed.'));
      assert.equal(await agent.harness.prompt(sessionId, 'echo hi'), 'end_turn');
      const offered = JSON.stringify(model.server.requests.at(-2)!.body.tools);
      assert.match(offered, /mcp__fake__echo/);
      assert.match(offered, /"required":\["text"\]/, "the server's own input schema reaches the model");
      const [call] = updatesOf(agent.harness, sessionId, 'tool_call');
      assert.equal(call.kind, 'other');
      assert.equal(call.title, 'fake: echo');
      const done = updatesOf(agent.harness, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'm1' && u.status).at(-1);
      assert.equal(done.status, 'completed');
      const status = await agent.ext('_accord/workspace/status', { sessionId });
      assert.equal(textOf(done), `echo: hi (in ${status.root})`, 'the server runs in the session workspace');
      assert.equal(agent.harness.permissionRequests.length, 0, 'allowed by the policy rule');
    } finally {
      await agent.close();
      remove();
    }
  });

  test('without a rule naming it, an MCP tool call asks', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    mkdirSync(join(project, '.accord'));
    writeFileSync(join(project, '.accord/policy.json'), JSON.stringify({ version: 1, mcpServers: [{ name: 'fake', command: [process.execPath, fakeMcpServer] }] }));
    const agent = isolatedAgent(env(), data);
    try {
      const { sessionId } = await agent.newSession(project);
      model.server.script(reply.tool('m2', 'mcp__fake__echo', { text: 'ask first' }), reply.text('Done.'));
      await agent.harness.prompt(sessionId, 'echo');
      assert.equal(agent.harness.permissionRequests.length, 1);
      assert.deepEqual(agent.harness.permissionRequests[0]!.toolCall.rawInput, { text: 'ask first' });
    } finally {
      await agent.close();
      remove();
    }
  });

  test('attack: a server that answers 5 MiB, names two tools alike and describes one in 1 MiB: the model and the client get bounded text, and neither name is taken by the other', { timeout: 180_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    mkdirSync(join(project, '.accord'));
    const policy = { version: 1, rules: [{ decision: 'allow', tool: 'mcp__bad__*' }], mcpServers: [{ name: 'bad', command: [process.execPath, hostileMcpServer] }] };
    writeFileSync(join(project, '.accord/policy.json'), JSON.stringify(policy));
    const agent = isolatedAgent(env(), data);
    try {
      const { sessionId, meta } = await agent.newSession(project);
      assert.match(JSON.stringify(meta['accord/mcpErrors'] ?? []), /a\.b.*a_b|same name/, 'the clash is reported');
      model.server.script(reply.tool('f1', 'mcp__bad__flood', {}), reply.text('Flooded.'));
      assert.equal(await agent.harness.prompt(sessionId, 'flood'), 'end_turn');
      const tools = model.server.requests.at(-2)!.body.tools as unknown[];
      const names: string[] = JSON.stringify(tools).match(/mcp__bad__[A-Za-z0-9_-]+/g) ?? [];
      assert.ok(!names.includes('mcp__bad__a_b'), `a clashing name is offered: ${names.join(' ')}`);
      assert.ok(JSON.stringify(tools).length < 64 * 1024, 'the 1 MiB description reached the model whole');
      const done = updatesOf(agent.harness, sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'f1' && u.status).at(-1);
      assert.equal(done.status, 'completed', JSON.stringify(done).slice(0, 800));
      assert.ok(textOf(done).length <= 300 * 1024, `${textOf(done).length} characters of the answer reached the client`);
      assert.match(textOf(done), /cut/);
      assert.ok(JSON.stringify(model.server.requests.at(-1)!.body).length < 1024 * 1024, 'the 5 MiB answer went to the model');
      const longName = names.find((n) => n.startsWith('mcp__bad__long'))!;
      model.server.script(reply.tool('l1', longName, {}), reply.text('Called.'));
      assert.equal(await agent.harness.prompt(sessionId, 'call the long one'), 'end_turn');
      const [longCall] = updatesOf(agent.harness, sessionId, 'tool_call').filter((u) => u.toolCallId === 'l1');
      assert.ok(longCall.title.length <= 200, `a title of ${longCall.title.length} characters`);
    } finally {
      await agent.close();
      remove();
    }
  });
});
