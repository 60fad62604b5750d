// A child (subagent) session nested under the call that started it,
// collapsed by default; expanded, its transcript renders like the main one.
import { html, nothing, type TemplateResult } from 'lit';
import { toggle, type ViewContext } from './context';
import { renderItem } from './items';
import { clip } from '../render/longText';

export function renderChild(ctx: ViewContext, sessionId: string): TemplateResult {
  const t = ctx.store.transcript(sessionId);
  const info = ctx.store.subagents.get(sessionId);
  const open = ctx.ui.openChildren.has(sessionId);
  const onToggle = (event: Event) => {
    event.stopPropagation();
    toggle(ctx.ui.openChildren, sessionId, !open);
    ctx.update();
  };
  const count = t?.items.length ?? 0;
  return html`<div class="child-session ${open ? 'open' : ''}" data-session-id=${sessionId}>
    <div class="child-header" role="button" tabindex="0" aria-expanded=${open} @click=${onToggle}>
      <span class="codicon codicon-${open ? 'chevron-down' : 'chevron-right'}"></span>
      <span class="codicon codicon-hubot"></span>
      <span class="child-title">${clip(info?.title ?? 'Subagent', 200)}</span>
      ${info?.state ? html`<span class="badge">${info.state}</span>` : nothing}
      <span class="muted">${count} item${count === 1 ? '' : 's'}</span>
    </div>
    ${open && t ? html`<div class="child-body">${t.items.map((item) => renderItem(ctx, t, item))}</div>` : nothing}
  </div>`;
}
