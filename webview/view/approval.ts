// Pending approvals, pinned above the composer: only the once-only choices
// the extension passed through.
import { html, type TemplateResult } from 'lit';
import type { PendingApproval } from '../state/store';
import type { ViewContext } from './context';
import { breakable, clip } from '../render/longText';

function renderApproval(ctx: ViewContext, approval: PendingApproval): TemplateResult {
  return html`<div class="approval" data-request-id=${approval.requestId}>
    <span class="codicon codicon-shield"></span>
    <span class="approval-text">Allow this once?</span>
    <span class="spacer"></span>
    ${approval.options.map(
      (option) => html`<vscode-button ?secondary=${option.kind !== 'allow_once'} data-option-id=${option.optionId}
        @click=${() => ctx.post({ type: 'answerApproval', epoch: ctx.store.epoch, requestId: approval.requestId, optionId: option.optionId })}
        >${clip(option.name, 60)}</vscode-button>`,
    )}
  </div>`;
}

export function renderApprovalBanner(ctx: ViewContext): TemplateResult[] {
  return [...ctx.store.approvals.values()].map((approval) => {
    const tool = ctx.store.main.tools.get(approval.toolCallId);
    return html`<div class="approval-banner">
      <div class="approval-title"><span class="codicon codicon-warning"></span>${breakable(clip(tool?.title ?? 'A tool call', 1000))} needs your approval</div>
      ${renderApproval(ctx, approval)}
    </div>`;
  });
}
