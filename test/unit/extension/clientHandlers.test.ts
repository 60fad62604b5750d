// What the client answers an agent that names another agent's session: session
// ids are in the session logs (readable by any agent process of the person), so
// a hostile agent can name the bundled agent's session in an approval, a write,
// a terminal or an update, to have it shown as that session's.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { registerClientHandlers, type ClientServices } from '../../../extension/client/clientHandlers';
import { UpdateRouter } from '../../../extension/client/updateRouter';

type Handler = (call: { params: any; signal?: AbortSignal }) => unknown;

/** The handlers registerClientHandlers installs, by method, on a stand-in app. */
function handlersFor(agentName: string, services: ClientServices): Map<string, Handler> {
  const handlers = new Map<string, Handler>();
  const app: any = {
    onNotification(method: string, handler: Handler) {
      handlers.set(method, handler);
      return app;
    },
    onRequest(method: string, handler: Handler) {
      handlers.set(method, handler);
      return app;
    },
  };
  registerClientHandlers(app, agentName, services);
  return handlers;
}

describe('attack: a request naming a session another agent owns', () => {
  test('approval, read, write and terminal are refused; the owner is served; an untracked session is not judged', async () => {
    const router = new UpdateRouter();
    router.track('bundled-session', 'Accord');
    const served: string[] = [];
    const services = {
      router,
      approvals: { request: async () => (served.push('approval'), { outcome: { outcome: 'cancelled' } }) },
      fs: { read: async () => (served.push('read'), { content: '' }), write: async () => (served.push('write'), {}) },
      terminals: { create: () => (served.push('terminal'), { terminalId: 't' }) },
    } as unknown as ClientServices;
    const hostile = handlersFor('hostile', services);
    const calls: Array<[string, any]> = [
      [methods.client.session.requestPermission, { sessionId: 'bundled-session', toolCall: { toolCallId: 'x' }, options: [] }],
      [methods.client.fs.readTextFile, { sessionId: 'bundled-session', path: '/etc/hostname' }],
      [methods.client.fs.writeTextFile, { sessionId: 'bundled-session', path: '/w/a.txt', content: 'x' }],
      [methods.client.terminal.create, { sessionId: 'bundled-session', command: 'true' }],
    ];
    for (const [method, params] of calls) {
      await assert.rejects(async () => hostile.get(method)!({ params }), /not one of this agent's sessions/, method);
    }
    assert.deepEqual(served, []);
    const owner = handlersFor('Accord', services);
    for (const [method, params] of calls) await owner.get(method)!({ params });
    assert.deepEqual(served, ['approval', 'read', 'write', 'terminal']);
    // A session this window does not track (a background one) is the agent's own business.
    for (const [method, params] of calls) await hostile.get(method)!({ params: { ...params, sessionId: 'its-own' } });
    assert.equal(served.length, 8);
  });
});
