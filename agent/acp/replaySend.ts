// session/load's replay onto the connection: the updates of a loaded log, in
// log order, without a round trip per update.
import { methods, type AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { ReplayedUpdate } from '../log';
import { forClient, type ClientFeatures } from './clientView';

/** How many replayed updates may be queued on the connection before the replay waits for them to be written. */
const REPLAY_WINDOW = 1024;

/**
 * Sends a loaded session's updates in log order. The connection writes its
 * messages one after another in the order they were given, so the replay
 * does not wait for each write before queueing the next (a round trip per
 * update was most of session/load's time); it waits every REPLAY_WINDOW
 * updates, which bounds what is queued and lets other sessions' work run, and
 * at the end. A write that fails closes the connection: every later
 * notification fails with it, and the last one's failure fails the load.
 */
export async function sendReplayed(client: AgentContext, sessionId: string, updates: readonly ReplayedUpdate[], features: ClientFeatures): Promise<void> {
  let last: Promise<void> = Promise.resolve();
  let queued = 0;
  for (const { update, offset } of updates) {
    for (const shaped of forClient(sessionId, update as never, features, offset)) {
      last = client.notify(methods.client.session.update, shaped);
      // Handled here; the failure is seen through the last one awaited.
      last.catch(() => undefined);
      if (++queued % REPLAY_WINDOW === 0) {
        await last;
        // Writes settle in microtasks: without a turn of the event loop, other sessions would wait for the whole replay.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
  await last;
}
