// `--durable-requests` on the wire. The question still goes out as
// session/request_permission, but the turn does not wait: it ends `waiting`
// and the prompt response's _meta["accord/permission"] carries
// {requestId, toolCall, options}. The client answers either by answering
// that JSON-RPC request or on a later session/prompt whose
// _meta["accord/permission"] is {requestId, optionId}; the first answer wins
// (the other path's request is withdrawn). An unknown request id or option is
// refused with an error and never approves.
import { randomUUID } from 'node:crypto';
import { methods, RequestError, type AgentContext, type RequestPermissionRequest } from '@agentclientprotocol/sdk/unstable';
import { durableOptions, isDurableAnswer, type DurableAnswer } from '../core/durable';
import type { PermissionAsker } from '../core/gate';
import type { Session } from '../core/session';

export const PERMISSION_META_KEY = 'accord/permission';

/** Questions still out with the client, by request id, so an answer on a prompt can withdraw them. */
export class OutstandingRequests {
  private readonly byId = new Map<string, AbortController>();

  add(requestId: string): AbortSignal {
    const controller = new AbortController();
    this.byId.set(requestId, controller);
    return controller.signal;
  }

  settle(requestId: string): void {
    this.byId.get(requestId)?.abort();
    this.byId.delete(requestId);
  }
}

/** `--durable-requests` for one connection: the outstanding questions, and how a loaded session's pending ones are asked again. */
export class DurableRequests {
  readonly outstanding = new OutstandingRequests();
  /** Set by the agent app; the session log calls it after a load so the client can answer from its dialog. */
  reask: (session: Session, client: AgentContext) => void = () => undefined;
}

/**
 * Asks without waiting. `onAnswer` runs when the client answers the request
 * itself (the caller checks it is still pending: a prompt may have won).
 */
export function durableAsker(client: AgentContext, session: Session, outstanding: OutstandingRequests, onAnswer: (requestId: string, optionId: DurableAnswer) => void): PermissionAsker {
  return {
    async ask(toolCall) {
      const requestId = `perm_${randomUUID()}`;
      askClient(client, session.id, requestId, toolCall, outstanding, onAnswer);
      return { deferred: requestId };
    },
  };
}

/** Sends (or, after a load, sends again) the question for a pending approval. */
export function askClient(
  client: AgentContext,
  sessionId: string,
  requestId: string,
  toolCall: RequestPermissionRequest['toolCall'] | object,
  outstanding: OutstandingRequests,
  onAnswer: (requestId: string, optionId: DurableAnswer) => void,
): void {
  const params = durableRequestParams(sessionId, requestId, toolCall);
  const signal = outstanding.add(requestId);
  client
    .request(methods.client.session.requestPermission, params, { cancellationSignal: signal })
    .then((response) => {
      // A dismissed dialog is no answer: the approval stays pending for a later one.
      if (response.outcome.outcome === 'selected' && isDurableAnswer(response.outcome.optionId)) onAnswer(requestId, response.outcome.optionId);
    })
    .catch(() => undefined)
    .finally(() => outstanding.settle(requestId));
}

/** The session/request_permission params of a durable question: the two once-options and the request id to answer on a prompt. */
export function durableRequestParams(sessionId: string, requestId: string, toolCall: RequestPermissionRequest['toolCall'] | object): RequestPermissionRequest {
  return { sessionId, toolCall, options: durableOptions, _meta: { [PERMISSION_META_KEY]: { requestId } } } as RequestPermissionRequest;
}

/** A prompt's _meta answer, validated against the session's pending approvals; throws -32602 for anything else. */
export function promptAnswer(session: Session, meta: unknown): { requestId: string; optionId: DurableAnswer } | undefined {
  const value = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>)[PERMISSION_META_KEY] : undefined;
  if (value === undefined) return undefined;
  const { requestId, optionId } = (value ?? {}) as { requestId?: unknown; optionId?: unknown };
  if (typeof requestId !== 'string' || !session.pendingPermissions.has(requestId)) {
    throw RequestError.invalidParams({ requestId }, `There is no pending approval ${JSON.stringify(requestId)} in this session (it may have been answered already); nothing was approved.`);
  }
  if (!isDurableAnswer(optionId)) {
    throw RequestError.invalidParams({ requestId, optionId }, `${JSON.stringify(optionId)} is not an option of approval ${requestId}; answer "allow_once" or "reject_once". Nothing was approved.`);
  }
  return { requestId, optionId };
}

/** The prompt response's _meta for a turn that ended `waiting`. */
export function waitingMeta(session: Session): Record<string, unknown> | undefined {
  const [first] = session.pendingPermissions.values();
  if (!first) return undefined;
  return { [PERMISSION_META_KEY]: { requestId: first.requestId, toolCall: first.toolCall, options: durableOptions } };
}
