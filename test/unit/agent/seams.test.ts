// The seams other parts plug into: an injected permission gate decides, the
// session store and its history/update streams can be observed, prompts
// carry images and embedded resources to the model.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import type { ModelMessage } from 'ai';
import type { PermissionGate } from '../../../agent/core/gate';
import { MemorySessionStore } from '../../../agent/core/sessionStore';
import type { SessionUpdate } from '../../../agent/core/updates';
import { reply } from '../../fakeModelServer/index';
import { inMemoryAgent, updatesOf, fakeModelFor } from './harness';

describe('seams', () => {
  const model = fakeModelFor('accord-seams-');
  const env = model.env;

  test('an injected gate that denies: the tool never runs and nobody is asked', async () => {
    const seen: string[] = [];
    const gate: PermissionGate = { decide: (tool) => (seen.push(tool.name), 'deny') };
    const agent = inMemoryAgent({ env: env(), gate });
    try {
      writeFileSync(join(model.configDir, 'locked.txt'), 'same\n');
      const sessionId = await agent.newSession(model.configDir);
      model.server.script(reply.tool('d1', 'write_file', { path: 'locked.txt', content: 'changed\n' }), reply.text('ok'));
      assert.equal(await agent.prompt(sessionId, 'write'), 'end_turn');
      assert.deepEqual(seen, ['write_file']);
      assert.equal(agent.permissionRequests.length, 0);
      assert.equal(readFileSync(join(model.configDir, 'locked.txt'), 'utf8'), 'same\n');
      assert.ok(updatesOf(agent, sessionId, 'tool_call_update').some((u) => u.toolCallId === 'd1' && u.status === 'failed'));
    } finally {
      await agent.close();
    }
  });

  test('an injected gate that allows: the change runs without asking', async () => {
    const agent = inMemoryAgent({ env: env(), gate: { decide: () => 'allow' } });
    try {
      const sessionId = await agent.newSession(model.configDir);
      model.server.script(reply.tool('w1', 'write_file', { path: 'new.txt', content: 'fresh\n' }), reply.text('ok'));
      assert.equal(await agent.prompt(sessionId, 'write'), 'end_turn');
      assert.equal(agent.permissionRequests.length, 0);
      assert.equal(readFileSync(join(model.configDir, 'new.txt'), 'utf8'), 'fresh\n');
    } finally {
      await agent.close();
    }
  });

  test('the store exposes each session: its update stream and history can be observed', async () => {
    const store = new MemorySessionStore();
    const agent = inMemoryAgent({ env: env(), store });
    try {
      const sessionId = await agent.newSession(model.configDir);
      const session = store.get(sessionId)!;
      const recorded: SessionUpdate[] = [];
      const appended: ModelMessage[] = [];
      session.updates.subscribe((update) => void recorded.push(update));
      session.onHistoryAppend((messages) => appended.push(...messages));
      model.server.script(reply.text('recorded reply'));
      await agent.prompt(sessionId, 'record me');
      // available_commands_update may land before or after subscribing; compare the turn's updates.
      const turnOnly = (u: { sessionUpdate: string }) => u.sessionUpdate !== 'available_commands_update';
      const sent = agent.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update).filter(turnOnly);
      assert.deepEqual(recorded.filter(turnOnly), sent, 'every update the client got went through the emitter');
      assert.deepEqual(appended.map((m) => m.role), ['user', 'assistant']);
      assert.deepEqual(session.history, appended);
    } finally {
      await agent.close();
    }
  });

  test('images and embedded resources reach the model', async () => {
    const agent = inMemoryAgent({ env: env() });
    try {
      const sessionId = await agent.newSession(model.configDir);
      const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
      model.server.script(reply.text('seen'));
      await agent.connection.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: 'text', text: 'look' },
          { type: 'image', data: pixel, mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///tmp/a.ts', text: 'export const a = 1;', mimeType: 'text/x-typescript' } },
        ],
      });
      const sent = JSON.stringify(model.server.requests.at(-1)!.body.messages);
      assert.match(sent, /data:image\/png;base64,iVBORw0KGgo/);
      assert.match(sent, /export const a = 1;/);
      assert.match(sent, /file:\/\/\/tmp\/a\.ts/);
    } finally {
      await agent.close();
    }
  });
});
