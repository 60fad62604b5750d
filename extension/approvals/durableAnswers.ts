// Approvals that outlive a turn (the bundled agent runs with
// --durable-requests). Such a request carries the agent's own request id in
// `_meta["accord/permission"]`; the turn has already ended `waiting` when the
// dialog shows. The person's answer goes back on the next `session/prompt`
// (its `_meta["accord/permission"]` is `{requestId, optionId}`), so the
// continuation is an ordinary turn with a response and a stop reason. The
// dialog's JSON-RPC request itself is answered `cancelled`, which the agent
// reads as "no answer here" (it never approves).
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk/unstable';

export const DURABLE_META_KEY = 'accord/permission';

/** Longest request id taken from an agent; anything else is not treated as durable (it then lapses like any request). */
const MAX_ID_LENGTH = 200;

/** The agent's request id when `params` is a durable request, else undefined. The id is only ever sent back to the same agent. */
export function durableRequestId(params: Pick<RequestPermissionRequest, '_meta'>): string | undefined {
  const meta = params._meta;
  const value = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>)[DURABLE_META_KEY] : undefined;
  const requestId = value !== null && typeof value === 'object' ? (value as Record<string, unknown>).requestId : undefined;
  return typeof requestId === 'string' && requestId.length > 0 && requestId.length <= MAX_ID_LENGTH ? requestId : undefined;
}

/** The `session/prompt` `_meta` that answers a durable approval. */
export function durableAnswerMeta(requestId: string, optionId: string): Record<string, unknown> {
  return { [DURABLE_META_KEY]: { requestId, optionId } };
}

