// Which of an agent's permission options a person may pick, and what each
// answer sends back. Accord answers every approval once: standing options
// (`allow_always`, `reject_always`) are never shown and never chosen, whatever
// the agent offers. Pure: no vscode import, so it is unit-tested directly.
import type { PermissionOption, RequestPermissionResponse } from '@agentclientprotocol/sdk/unstable';
import { quotedForNotification } from '../text/agentText';

export interface OnceButton {
  /** The label the person sees on the button. */
  label: string;
  optionId: string;
  kind: 'allow_once' | 'reject_once';
}

export interface OnceChoices {
  /** Allow buttons first, then reject buttons, in the agent's order. */
  buttons: OnceButton[];
  /** The option that dismissal, timeout or closing answers with; undefined → `cancelled`. */
  fallbackReject?: OnceButton;
  /** Set when the agent offered no allow-once option; says why the person cannot allow. */
  explanation?: string;
}

export const ALLOW_ONCE_LABEL = 'Allow once';
export const REJECT_LABEL = 'Reject';

/** Picks the once-only options from what the agent offered. */
export function onceChoices(options: readonly PermissionOption[]): OnceChoices {
  const allows = options.filter((o) => o.kind === 'allow_once');
  const rejects = options.filter((o) => o.kind === 'reject_once');
  // The option's name is the agent's: quoted, one line, short (it becomes a button label).
  const label = (base: string, o: PermissionOption, many: boolean) => (many ? `${base}: ${quotedForNotification(o.name, 40)}` : base);
  const buttons: OnceButton[] = [
    ...allows.map((o) => ({ label: label(ALLOW_ONCE_LABEL, o, allows.length > 1), optionId: o.optionId, kind: 'allow_once' as const })),
    ...rejects.map((o) => ({ label: label(REJECT_LABEL, o, rejects.length > 1), optionId: o.optionId, kind: 'reject_once' as const })),
  ];
  const fallbackReject = buttons.find((b) => b.kind === 'reject_once');
  if (allows.length > 0) return { buttons, fallbackReject };
  const standing = options.some((o) => o.kind === 'allow_always');
  const explanation = standing
    ? 'The agent offered only a standing permission ("always allow"). Accord answers each request once, so this one can only be declined.'
    : 'The agent offered no way to allow this request once, so it can only be declined.';
  return { buttons, fallbackReject, explanation };
}

/** The answer for a clicked button. */
export function answerSelected(button: OnceButton): RequestPermissionResponse {
  return { outcome: { outcome: 'selected', optionId: button.optionId } };
}

/**
 * The answer for dismissal, closing or a timeout: the reject-once option, or
 * `cancelled` when the agent offered none. Never an allow.
 */
export function answerDeclined(choices: OnceChoices): RequestPermissionResponse {
  return choices.fallbackReject ? answerSelected(choices.fallbackReject) : answerCancelled();
}

/** The answer for a request still pending when the turn is cancelled (required by the spec). */
export function answerCancelled(): RequestPermissionResponse {
  return { outcome: { outcome: 'cancelled' } };
}

/** True when `optionId` names an option this module would have let the person pick. */
export function isOnceOption(choices: OnceChoices, optionId: string): OnceButton | undefined {
  return choices.buttons.find((b) => b.optionId === optionId);
}
