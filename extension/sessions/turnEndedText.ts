// The words of the notification shown when a turn ends. Pure (no vscode), so
// the escaping is unit-tested: the stop reason is agent text too. A
// third-party agent's `_accord/turn_ended` may carry any string, and VS Code
// makes `[label](command:…)` in a notification a live link.
import { l10n } from '../text/l10n';
import { quotedForNotification } from '../text/agentText';

/** The ACP stop reasons, plus Accord's own `waiting`: only these are shown as Accord's words. */
const KNOWN_STOP_REASONS = new Set(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled', 'error', 'waiting']);

export function turnEndedText(agentName: string, stopReason: string, error?: string): string {
  const agent = quotedForNotification(agentName, 80);
  // The error is the agent's text (often its JSON-RPC message): quoted, one line, no live link.
  if (error) return l10n.t('Accord: the turn with {0} failed: {1}', agent, quotedForNotification(error, 400));
  if (stopReason === 'waiting') return l10n.t('Accord: {0} is waiting for your approval.', agent);
  const reason = KNOWN_STOP_REASONS.has(stopReason) ? stopReason.replace(/_/g, ' ') : quotedForNotification(stopReason, 60);
  return l10n.t('Accord: {0} finished ({1}).', agent, reason);
}
