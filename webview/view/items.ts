// One transcript item: user message, agent message, thought, tool card,
// compaction, stop reason, or a child session without a known parent call.
import { html, nothing, type TemplateResult } from 'lit';
import { breakable, clip } from '../render/longText';
import type { Item, Transcript } from '../state/types';
import { toggle, type ViewContext } from './context';
import { renderToolCard } from './toolCard';
import { renderChild } from './child';
import { forgetMarkdownBodies, markdownBody } from './markdownView';

export function forgetRenderCache(): void {
  forgetMarkdownBodies();
}

const STOP_REASON: Record<string, string> = {
  max_tokens: 'The model hit its output limit.',
  max_turn_requests: 'The turn hit its request limit.',
  refusal: 'The agent refused. This prompt and what follows are left out of its context.',
  cancelled: 'Cancelled.',
  error: 'The turn failed.',
  waiting: 'Waiting for your approval. Answer it in the dialog, on its card or from the status bar; it stays pending across reloads.',
};

export function renderItem(ctx: ViewContext, t: Transcript, item: Item): TemplateResult | typeof nothing {
  switch (item.kind) {
    case 'user':
      return html`<div class="msg msg-user">
        ${item.text ? html`<div class="msg-body user-text">${breakable(item.text)}</div>` : nothing}
        ${item.attachments.length
          ? html`<div class="attachments">${item.attachments.map((a) =>
              a.dataUrl
                ? html`<img class="attachment-image" src=${a.dataUrl} alt=${a.name}>`
                : html`<span class="chip" title=${a.uri ?? a.name}><span class="codicon codicon-${a.kind === 'image' ? 'file-media' : 'file'}"></span>${clip(a.name, 80)}</span>`,
            )}</div>`
          : nothing}
      </div>`;
    case 'agent':
      return html`${markdownBody(item.key, item.text, 'msg msg-agent markdown')}`;
    case 'thought': {
      if (ctx.store.hideThoughts) return nothing;
      const open = ctx.ui.openThoughts.has(item.key) || (item.streaming && !ctx.ui.closedThoughts.has(item.key));
      const onToggle = () => {
        toggle(ctx.ui.openThoughts, item.key, !open);
        toggle(ctx.ui.closedThoughts, item.key, open);
        ctx.update();
      };
      return html`<div class="thought ${open ? 'open' : ''}">
        <div class="thought-header" role="button" tabindex="0" aria-expanded=${open} @click=${onToggle}>
          <span class="codicon codicon-${open ? 'chevron-down' : 'chevron-right'}"></span>
          <span class="codicon codicon-lightbulb"></span>
          <span>${item.streaming ? 'Thinking…' : 'Thought'}</span>
        </div>
        ${open ? markdownBody(item.key, item.text, 'thought-body markdown') : nothing}
      </div>`;
    }
    case 'tool': {
      const tool = t.tools.get(item.toolCallId);
      return tool ? renderToolCard(ctx, tool, t !== ctx.store.main) : nothing;
    }
    case 'compaction': {
      const c = t.compactions.get(item.compactionId);
      if (!c) return nothing;
      const running = c.status === 'in_progress';
      return html`<div class="compaction status-${c.status}">
        <div class="compaction-header">
          <span class="codicon codicon-${running ? 'loading codicon-modifier-spin' : c.status === 'failed' ? 'error' : 'fold'}"></span>
          ${running ? 'Compacting context…' : c.status === 'completed' ? 'Context compacted' : `Compaction ${c.status}`}
        </div>
        ${c.summary ? html`<div class="compaction-summary">${breakable(c.summary)}</div>` : nothing}
        ${c.error ? html`<div class="error-text">${breakable(c.error)}</div>` : nothing}
      </div>`;
    }
    case 'turnEnd':
      return html`<div class="turn-end stop-${item.stopReason}">
        <span class="codicon codicon-${item.stopReason === 'cancelled' ? 'debug-stop' : item.stopReason === 'waiting' ? 'shield' : 'warning'}"></span>
        <span>${STOP_REASON[item.stopReason] ?? `Stopped: ${item.stopReason}`}${item.error ? html` <span class="error-text">${breakable(item.error)}</span>` : nothing}</span>
      </div>`;
    case 'child':
      return renderChild(ctx, item.sessionId);
  }
}
