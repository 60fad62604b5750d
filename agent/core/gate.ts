// The permission gate: the single place that decides whether a tool call runs,
// asks the person, or is refused. The policy layer replaces the decision
// source by injecting another `PermissionGate`.
import type { Tool, ToolEffect } from '../tools/tool';

export type GateDecision = 'allow' | 'ask' | 'deny';

export interface PermissionGate {
  decide(tool: Tool<any>, input: unknown, effect: ToolEffect): GateDecision | Promise<GateDecision>;
  /** Why the decision was made (a policy rule, a built-in protection), for the person and the model. */
  why?(tool: Tool<any>, input: unknown, effect: ToolEffect): string | undefined;
  /**
   * Why `tool` must leave the file at `absolutePath` out of a listing or
   * search, or undefined (see ToolContext.hidden). `personApproved`: the
   * person was asked about this very call and allowed it, so files that
   * would only have needed asking are shown; denied ones never are.
   */
  hides?(tool: Pick<Tool<any>, 'name' | 'kind'>, absolutePath: string, personApproved?: boolean): string | undefined;
}

const withoutAsking = new Set<Tool['kind']>(['read', 'search', 'think']);

/** Reading, searching, thinking and planning run freely; anything else asks. */
export const askBeforeChanges: PermissionGate = {
  decide(tool, _input, effect) {
    if (effect.type === 'plan') return 'allow';
    return withoutAsking.has(tool.kind) && effect.type === 'none' ? 'allow' : 'ask';
  },
};

/** `deferred`: a durable request (--durable-requests) went out and the turn does not wait for it; `requestId` names it. */
export type PermissionAnswer = 'allow' | 'reject' | 'cancelled' | { deferred: string };

/**
 * Asks the person about one call. The adapter implements it with
 * `session/request_permission`; aborting `signal` withdraws the question.
 */
export interface PermissionAsker {
  ask(toolCall: import('./updates').ToolCallFields, signal: AbortSignal): Promise<PermissionAnswer>;
}
