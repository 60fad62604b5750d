// Which of an agent's permission options a person may pick, and what each
// answer sends back. Accord answers every approval once: standing options
// (`allow_always`, `reject_always`) are never shown and never chosen, whatever
// the agent offers. Pure: no vscode import, so it is unit-tested directly.
import type { PermissionOption, RequestPermissionResponse } from '@agentclientprotocol/sdk/unstable';
import { quotedForNotification } from '../text/agentText';
import { l10n } from '../text/l10n';

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

// Functions, not constants: the words are looked up in the display language when a prompt is built.
export const allowOnceLabel = (): string => l10n.t('Allow once');
/** The allow button when the change could not be made reviewable. */
export const allowAnywayLabel = (): string => l10n.t('Allow anyway');
export const rejectLabel = (): string => l10n.t('Reject');
export const rejectAndStopLabel = (): string => l10n.t('Reject and stop');

/**
 * A reject option that does more than decline this one call: it aborts or
 * ends the agent's turn (codex's "abort"). Told by its id or name, since ACP
 * has one kind for both.
 */
export function endsTurn(option: Pick<PermissionOption, 'optionId' | 'name'>): boolean {
  return /\b(abort|aborts|stop|stops|cancel|cancels|terminate|halt|quit|end (the )?turn)\b/i.test(`${option.optionId} ${option.name}`.replace(/[_-]/g, ' '));
}

/** A dialog (and the panel) shows at most this many allow buttons, and as many reject buttons: the agent's first. */
export const MAX_BUTTONS_PER_KIND = 3;

export interface OnceChoiceOptions {
  /** The allow button's label (default "Allow once"). */
  allowLabel?: string;
}

/**
 * Picks the once-only options from what the agent offered. Rejects are
 * ordered mildest first, and the mildest is what dismissal, a timeout and the
 * panel's dismiss answer: declining one call never ends the turn when the
 * agent offers a plain reject.
 */
export function onceChoices(options: readonly PermissionOption[], choiceOptions: OnceChoiceOptions = {}): OnceChoices {
  const allowLabel = choiceOptions.allowLabel ?? allowOnceLabel();
  // An id offered twice is ambiguous: a "Reject" button could send what the agent also calls allow.
  const seen = new Map<string, number>();
  for (const o of options) seen.set(o.optionId, (seen.get(o.optionId) ?? 0) + 1);
  const usable = options.filter((o) => seen.get(o.optionId) === 1);
  const allows = usable.filter((o) => o.kind === 'allow_once').slice(0, MAX_BUTTONS_PER_KIND);
  const rejects = usable.filter((o) => o.kind === 'reject_once');
  const mild = rejects.filter((o) => !endsTurn(o)).slice(0, MAX_BUTTONS_PER_KIND);
  const drastic = rejects.filter((o) => endsTurn(o)).slice(0, Math.max(0, MAX_BUTTONS_PER_KIND - mild.length));
  // The option's name is the agent's: quoted, one line, short (it becomes a button label).
  const label = (base: string, o: PermissionOption, many: boolean) => (many ? l10n.t('{0}: {1}', base, quotedForNotification(o.name, 40)) : base);
  // A drastic reject the agent offers alone is still just "Reject" (it is the only way to say no); next to a plain one it says what it does.
  const drasticBase = mild.length === 0 ? rejectLabel() : rejectAndStopLabel();
  const buttons: OnceButton[] = [
    ...allows.map((o) => ({ label: label(allowLabel, o, allows.length > 1), optionId: o.optionId, kind: 'allow_once' as const })),
    ...mild.map((o) => ({ label: label(rejectLabel(), o, mild.length > 1), optionId: o.optionId, kind: 'reject_once' as const })),
    ...drastic.map((o) => ({ label: label(drasticBase, o, drastic.length > 1), optionId: o.optionId, kind: 'reject_once' as const })),
  ];
  const fallbackReject = buttons.find((b) => b.kind === 'reject_once');
  if (allows.length > 0) return { buttons, fallbackReject };
  const standing = usable.some((o) => o.kind === 'allow_always');
  const explanation = standing
    ? l10n.t('The agent offered only a standing permission ("always allow"). Accord answers each request once, so this one can only be declined.')
    : l10n.t('The agent offered no way to allow this request once, so it can only be declined.');
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
