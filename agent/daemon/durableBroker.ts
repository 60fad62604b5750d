// Durable approvals (--durable-requests) of one shared session in the
// daemon. A question does not block the turn: it is asked of every attached
// client at once (with its request id in _meta), the turn ends `waiting`,
// and the approval stays in session.pendingPermissions (and the log) until
// the first answer, from any client's dialog or from any client's next
// prompt. The others are then withdrawn ($/cancel_request) and told it is
// settled. A client that attaches later (a reload, another window, a load
// in a new daemon) is asked everything still pending. Nothing expires.
import { methods } from '@agentclientprotocol/sdk/unstable';
import { isDurableAnswer, type DurableAnswer, type PendingPermission } from '../core/durable';
import type { PermissionAsker } from '../core/gate';
import type { Session } from '../core/session';
import type { ToolCallFields } from '../core/updates';
import { durableRequestParams } from '../acp/durablePermissions';
import { randomUUID } from 'node:crypto';
import { SETTLED_METHOD, type Asked } from './permissionBroker';

/** Who answered a question from its dialog; the broker hands the answer to that client's connection. */
export type DurableAnswered = (by: Asked, requestId: string, optionId: DurableAnswer) => void;

export class DurableBroker {
  /** Open dialogs per request id. */
  private readonly asked = new Map<string, Map<Asked, AbortController>>();

  constructor(
    private readonly session: Session,
    /** The clients attached right now. */
    private readonly attached: () => Asked[],
    private readonly answered: DurableAnswered,
  ) {}

  /** The turn's asker: sends the question to everyone and returns at once. */
  readonly asker: PermissionAsker = {
    ask: async (toolCall) => {
      const requestId = `perm_${randomUUID()}`;
      for (const client of this.attached()) this.askOne(requestId, toolCall, client);
      return { deferred: requestId };
    },
  };

  /** Dialogs open right now (for status and tests). */
  get open(): number {
    let count = 0;
    for (const clients of this.asked.values()) count += clients.size;
    return count;
  }

  /** A client attached (new, load, resume, another window): it is asked every approval still pending. */
  attachedClient(client: Asked): void {
    for (const pending of this.session.pendingPermissions.values()) this.askOne(pending.requestId, pending.toolCall, client);
  }

  /** A client left: its dialogs are withdrawn; the approvals stay pending for the others and for later. */
  detachedClient(client: Asked): void {
    for (const clients of this.asked.values()) {
      clients.get(client)?.abort();
      clients.delete(client);
    }
  }

  /**
   * The approval was answered (by `by`'s dialog, or by a prompt when `by` is
   * undefined): every other dialog is withdrawn and its client told.
   */
  settle(requestId: string, optionId: DurableAnswer, by?: Asked): void {
    const clients = this.asked.get(requestId);
    this.asked.delete(requestId);
    const pending = this.session.pendingPermissions.get(requestId);
    for (const [client, controller] of clients ?? []) {
      if (client === by) continue;
      controller.abort();
      if (client.isOpen()) {
        void client.client
          .notify(SETTLED_METHOD, { sessionId: this.session.id, toolCallId: pending?.toolCall.toolCallId, requestId, outcome: optionId === 'allow_once' ? 'allow' : 'reject' })
          .catch(() => undefined);
      }
    }
  }

  private askOne(requestId: string, toolCall: ToolCallFields | PendingPermission['toolCall'], target: Asked): void {
    let clients = this.asked.get(requestId);
    if (!clients) this.asked.set(requestId, (clients = new Map()));
    if (clients.has(target) || !target.isOpen()) return;
    const controller = new AbortController();
    clients.set(target, controller);
    target.client
      .request(methods.client.session.requestPermission, durableRequestParams(this.session.id, requestId, toolCall), { cancellationSignal: controller.signal })
      .then((response) => {
        // A dismissed dialog (or an error) is no answer: the approval stays pending for another client or a later prompt.
        if (controller.signal.aborted || response.outcome.outcome !== 'selected' || !isDurableAnswer(response.outcome.optionId)) return;
        if (!this.session.pendingPermissions.has(requestId)) return; // answered already (a prompt won)
        this.settle(requestId, response.outcome.optionId, target);
        this.answered(target, requestId, response.outcome.optionId);
      })
      .catch(() => undefined)
      .finally(() => {
        if (this.asked.get(requestId)?.get(target) === controller) this.asked.get(requestId)!.delete(target);
      });
  }
}
