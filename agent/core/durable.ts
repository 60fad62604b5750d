// Approvals that outlive a turn (--durable-requests). A call that needs an
// approval sends the question and the turn ends `waiting`; the call is kept
// here (and in the log, so a restart or a load keeps it) until the first
// answer. Allow runs it, if it would still do exactly what was shown; reject
// tells the model. Either way the turn then goes on.
import type { ToolCallFields } from './updates';

export interface PendingPermission {
  requestId: string;
  toolCallId: string;
  toolName: string;
  /** The call's input as the model sent it. */
  input: unknown;
  /** The question as it was asked (what the person approves). */
  toolCall: ToolCallFields;
  /** Set for a `!cmd` line the person ran: once answered, the result goes into the history and no model request follows. */
  personRan?: string;
}

export type DurableAnswer = 'allow_once' | 'reject_once';

export const durableOptions = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' as const },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' as const },
];

export function isDurableAnswer(optionId: unknown): optionId is DurableAnswer {
  return optionId === 'allow_once' || optionId === 'reject_once';
}
