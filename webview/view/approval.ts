// Pending approvals, pinned above the composer: only the once-only choices
// the extension passed through. Accord's words (who asks, the question) are in
// the panel's own style; the agent's title sits apart, quoted, in its own
// muted block, so nothing an agent writes can pass for Accord speaking.
import { html, type TemplateResult } from 'lit';
import type { PendingApproval } from '../state/store';
import type { ViewContext } from './context';
import { breakable } from '../render/longText';
import { agentLine, quoted } from '../../extension/text/agentText';

function renderApproval(ctx: ViewContext, approval: PendingApproval): TemplateResult {
  return html`<div class="approval" data-request-id=${approval.requestId}>
    <span class="codicon codicon-shield"></span>
    <span class="approval-text">Allow this once?</span>
    <span class="spacer"></span>
    ${approval.options.map(
      (option) => html`<vscode-button ?secondary=${option.kind !== 'allow_once'} data-option-id=${option.optionId}
        @click=${() => ctx.post({ type: 'answerApproval', epoch: ctx.store.epoch, requestId: approval.requestId, optionId: option.optionId })}
        >${agentLine(option.name, 80)}</vscode-button>`,
    )}
  </div>`;
}

export function renderApprovalBanner(ctx: ViewContext): TemplateResult[] {
  return [...ctx.store.approvals.values()].map((approval) => {
    const tool = ctx.store.main.tools.get(approval.toolCallId);
    const who = approval.agentName ? agentLine(approval.agentName, 60) : 'The agent';
    return html`<div class="approval-banner">
      <div class="approval-title"><span class="codicon codicon-warning"></span><span class="accord-voice">${who} asks for approval</span></div>
      <div class="agent-words" title="The agent's own description of this tool call; Accord has not checked it.">
        <span class="agent-words-label">Agent's words</span>
        <span class="agent-words-text">${breakable(quoted(tool?.title ?? '', 300))}</span>
      </div>
      ${renderApproval(ctx, approval)}
    </div>`;
  });
}
