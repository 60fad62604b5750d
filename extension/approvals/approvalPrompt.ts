// What an approval says, in each surface, built from the pending request.
// Accord's own words (who asks, labels, explanations) are never quoted; the
// agent's words always are, one line each, capped, with invisible and bidi
// characters shown as escapes and link syntax broken. The agent's name comes
// first, outside anything the agent wrote, so no title can push it out of view.
// Pure: no vscode import.
import { agentBlock, clipAgentText, quoted } from '../text/agentText';
import { l10n } from '../text/l10n';

/** How much of the agent's title the dialog shows; "Show Full Request" shows the rest. */
export const TITLE_MAX = 120;
const DETAIL_LINE_MAX = 400;
const DETAIL_LINES = 16;
export const agentWordsNote = (): string => l10n.t('Text in “quotes” is the agent’s own description; Accord has not checked it.');

export interface ApprovalPromptInput {
  agentName: string;
  title: string;
  /** The effect summary's lines (Accord's labels, agent values). */
  detail: string;
  /** Accord's explanation when the agent offered no allow-once option. */
  explanation?: string;
}

export interface ApprovalPrompt {
  /** The modal's first, bold line: who asks, then the agent's title quoted. */
  message: string;
  /** The modal's body. */
  detail: string;
  /** The whole prompt as one notification line. */
  notification: string;
  /** Something was cut: offer the full request. */
  truncated: boolean;
}

export function approvalPrompt(input: ApprovalPromptInput): ApprovalPrompt {
  const name = clipAgentText(input.agentName, 60).text || l10n.t('An agent');
  const title = clipAgentText(input.title, TITLE_MAX);
  const effect = agentBlock(input.detail, { maxLineLength: DETAIL_LINE_MAX, maxLines: DETAIL_LINES });
  const message = l10n.t('{0} asks for approval: {1}', name, quoted(input.title, TITLE_MAX));
  const detail = [effect.text, input.explanation, agentWordsNote()].filter(Boolean).join('\n\n');
  // One line, and agentBlock already broke any link syntax in the effect lines.
  const notification = `${message} — ${[effect.text.split('\n').join(' · '), input.explanation].filter(Boolean).join(' — ')}`.replace(/\]\s*\(/g, '] (');
  return { message: message.replace(/\]\s*\(/g, '] ('), detail, notification, truncated: title.truncated || effect.truncated || /…/.test(input.detail) };
}
