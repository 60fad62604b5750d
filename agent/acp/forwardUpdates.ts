// A session's updates, as this connection's client can read them, until the connection is gone.
import { methods, type AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { Session } from '../core/session';
import { logOffsetOf } from '../log/offsets';
import { forClient, type ClientFeatures } from './clientView';

/** Forwards a session's updates to `client` until sending fails (the connection is gone). Returns the unsubscribe. */
export function forwardUpdates(session: Session, client: AgentContext, features: ClientFeatures): () => void {
  const unsubscribe = session.updates.subscribe(async (update) => {
    try {
      for (const notification of forClient(session.id, update, features, logOffsetOf(update))) await client.notify(methods.client.session.update, notification);
    } catch (error) {
      unsubscribe();
      console.error(`accord: stopped sending updates for session ${session.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  return unsubscribe;
}
