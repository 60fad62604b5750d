// From the real agent to the panel's state, without VS Code: what the agent
// sends for two parallel children (client advertising what the extension
// advertises) goes through the extension's UpdateRouter and the relay's rule
// into the webview's ChatStore, which nests each child under its own task card.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLIENT_CAPABILITIES } from '../../../extension/client/clientHandlers';
import { UpdateRouter } from '../../../extension/client/updateRouter';
import { ChatStore } from '../../../webview/state/store';
import { reply, type StreamReply } from '../../fakeModelServer/index';
import { fakeModelFor, inMemoryAgent, tempDir } from '../agent/harness';

describe('child sessions from the agent to the panel', () => {
  const model = fakeModelFor('accord-children-panel-config-');

  test('two parallel children nest under their own task cards, each with its own transcript and state', async () => {
    const root = tempDir('accord-children-panel-');
    const agent = inMemoryAgent({ env: model.env() });
    try {
      const sessionId = await agent.newSession(root.path, CLIENT_CAPABILITIES as Record<string, unknown>);
      const tasks: StreamReply = {
        type: 'stream',
        parts: [
          { toolCall: { id: 't1', name: 'task', args: { description: 'Survey apples', prompt: 'apples' } } },
          { toolCall: { id: 't2', name: 'task', args: { description: 'Survey pears', prompt: 'pears' } } },
        ],
      };
      model.server.script(tasks, reply.text('A child report.'), reply.text('A child report.'), reply.text('Both done.'));
      assert.equal(await agent.prompt(sessionId, 'research fruit'), 'end_turn');

      const router = new UpdateRouter();
      const store = new ChatStore();
      store.apply({ type: 'sessionStarted', epoch: 1, sessionId, origin: 'new' });
      // The relay's rule (extension/chat/chatRelay.ts): the panel's session, or a child of it.
      router.onUpdate((routed) => {
        if (routed.sessionId === sessionId || routed.parentSessionId === sessionId) {
          store.apply({ type: 'sessionUpdate', epoch: 1, sessionId: routed.sessionId, update: routed.update as never });
        }
      });
      router.track(sessionId);
      for (const notification of agent.updates) router.route(notification);

      const children = [...store.subagents.values()];
      assert.equal(children.length, 2);
      const byTitle = new Map(children.map((c) => [c.title, c]));
      assert.equal(byTitle.get('Survey apples')?.parentToolCallId, 't1');
      assert.equal(byTitle.get('Survey pears')?.parentToolCallId, 't2');
      assert.deepEqual(store.main.tools.get('t1')?.children, [byTitle.get('Survey apples')!.sessionId]);
      assert.deepEqual(store.main.tools.get('t2')?.children, [byTitle.get('Survey pears')!.sessionId]);
      for (const child of children) {
        assert.equal(child.state, 'idle');
        const transcript = store.transcript(child.sessionId);
        assert.ok(transcript?.items.some((i) => i.kind === 'agent' && i.text === 'A child report.'), 'the child\'s own messages are in its transcript');
      }
      assert.ok(!store.main.items.some((i) => i.kind === 'agent' && i.text.includes('A child report.')), 'not in the parent\'s transcript');
    } finally {
      await agent.close();
      root.remove();
    }
  });
});
