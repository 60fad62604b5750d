// One session's permission requests, asked of every attached client at once.
// The first answer wins; the others are withdrawn ($/cancel_request) and told
// the request is settled. With no client attached a request waits, up to the
// approval timeout (none for --durable-requests), and is asked of the next
// client that attaches. A client that goes away or answers "cancelled" only
// stops being asked: only session/cancel (the turn's signal) withdraws it.
import { methods, type AgentContext, type RequestPermissionRequest } from '@agentclientprotocol/sdk/unstable';
import type { PermissionAnswer, PermissionAsker } from '../core/gate';
import type { ToolCallFields } from '../core/updates';
import type { AccordNotificationMethod } from '../../protocol/accordMethods';

const options = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' as const },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' as const },
];

/** Sent to the clients that did not answer: `_accord/permission_settled`. */
export const SETTLED_METHOD: AccordNotificationMethod = '_accord/permission_settled';

export interface Asked {
  client: AgentContext;
  /** False once the client's connection is gone. */
  isOpen(): boolean;
}

interface Pending {
  toolCall: ToolCallFields;
  settle(answer: PermissionAnswer, by?: Asked): void;
  asked: Map<Asked, AbortController>;
  timer: NodeJS.Timeout | undefined;
}

export class PermissionBroker implements PermissionAsker {
  private readonly pending = new Set<Pending>();

  constructor(
    private readonly sessionId: string,
    /** The clients attached right now. */
    private readonly attached: () => Asked[],
    /** How long a request waits while no client is attached; null: without limit. */
    private readonly waitWithoutClientMs: () => number | null,
  ) {}

  get waiting(): number {
    return this.pending.size;
  }

  ask(toolCall: ToolCallFields, signal: AbortSignal): Promise<PermissionAnswer> {
    if (signal.aborted) return Promise.resolve('cancelled');
    return new Promise<PermissionAnswer>((resolve) => {
      const pending: Pending = {
        toolCall,
        asked: new Map(),
        timer: undefined,
        settle: (answer, by) => {
          if (!this.pending.delete(pending)) return;
          clearTimeout(pending.timer);
          signal.removeEventListener('abort', onAbort);
          for (const [other, controller] of pending.asked) {
            if (other === by) continue;
            controller.abort();
            if (other.isOpen()) {
              void other.client
                .notify(SETTLED_METHOD, { sessionId: this.sessionId, toolCallId: toolCall.toolCallId, outcome: answer })
                .catch(() => undefined);
            }
          }
          resolve(answer);
        },
      };
      const onAbort = () => pending.settle('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.add(pending);
      for (const client of this.attached()) this.askOne(pending, client);
      this.armTimer(pending);
    });
  }

  /** A client attached (new, load, resume): it is asked everything still waiting. */
  attachedClient(client: Asked): void {
    for (const pending of this.pending) this.askOne(pending, client);
  }

  /** A client detached or disconnected: its questions are dropped; with nobody left, the wait timer runs. */
  detachedClient(client: Asked): void {
    for (const pending of this.pending) {
      pending.asked.get(client)?.abort();
      pending.asked.delete(client);
      this.armTimer(pending);
    }
  }

  private askOne(pending: Pending, target: Asked): void {
    if (pending.asked.has(target) || !target.isOpen()) return;
    const controller = new AbortController();
    pending.asked.set(target, controller);
    clearTimeout(pending.timer);
    pending.timer = undefined;
    const params: RequestPermissionRequest = { sessionId: this.sessionId, toolCall: pending.toolCall, options };
    target.client
      .request(methods.client.session.requestPermission, params, { cancellationSignal: controller.signal })
      .then((response) => {
        if (response.outcome.outcome === 'cancelled') return this.stopAsking(pending, target);
        pending.settle(response.outcome.optionId === 'allow_once' ? 'allow' : 'reject', target);
      })
      .catch(() => {
        if (controller.signal.aborted) return;
        // A client that cannot answer (gone, or an error reply) stops being asked; if it was the only
        // live one and is still connected, its error is a refusal, as with a single editor.
        const others = [...pending.asked.keys()].some((c) => c !== target && c.isOpen());
        if (target.isOpen() && !others) pending.settle('reject', target);
        else this.stopAsking(pending, target);
      });
  }

  private stopAsking(pending: Pending, target: Asked): void {
    pending.asked.delete(target);
    this.armTimer(pending);
  }

  /** While no client holds the question, it expires after the wait (declined, never allowed). */
  private armTimer(pending: Pending): void {
    if (!this.pending.has(pending) || pending.timer || [...pending.asked.keys()].some((c) => c.isOpen())) return;
    const wait = this.waitWithoutClientMs();
    if (wait === null) return;
    pending.timer = setTimeout(() => {
      console.error(`accord: an approval in session ${this.sessionId} waited ${Math.round(wait / 1000)} s with no client attached; declined.`);
      pending.settle('reject');
    }, wait);
    pending.timer.unref();
  }
}
