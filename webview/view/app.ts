// The whole panel. Rendered with lit-html into the light DOM at most once per
// animation frame; the transcript renders only the items near the viewport.
import { html, nothing, render, type TemplateResult } from 'lit';
import { guard } from 'lit/directives/guard.js';
import { repeat } from 'lit/directives/repeat.js';
import { cssProps } from './cssom';
import { renderApprovalBanner } from './approval';
import { renderChanges } from './changes';
import { renderComposer } from './composer';
import type { ViewContext } from './context';
import type { Item } from '../state/types';
import { renderItem } from './items';
import { renderFailure, renderGauge, renderHeader, renderHistory, renderNotices, renderPlan } from './panels';
import { VirtualList } from './virtualList';
import { renderSetupCard } from './setup';

function renderEmpty(ctx: ViewContext): TemplateResult {
  const connected = ctx.store.agent.state === 'connected';
  return html`<div class="empty">
    <span class="codicon codicon-comment-discussion empty-icon"></span>
    <div class="empty-title">${connected ? 'Ask the agent to change, explain or run something' : 'Waiting for the agent'}</div>
    <div class="muted">${ctx.store.commands.length > 0
      ? html`Type <kbd>/</kbd> for the agent's commands and <kbd>@</kbd> to mention files.`
      : html`Type <kbd>@</kbd> to mention files.`} Every change comes back for your review.</div>
  </div>`;
}

export class App {
  private list: VirtualList | undefined;
  private sessionKey = '';

  constructor(
    private readonly root: HTMLElement,
    private readonly ctx: ViewContext,
    /** Re-render without invalidating items (scrolling, measuring). */
    private readonly schedule: () => void,
  ) {}

  followBottom(): void {
    this.list?.follow();
  }

  render(): void {
    const { store } = this.ctx;
    // A child session's row re-renders when the child's transcript changed.
    const childRev = (item: Item) => (item.kind === 'child' ? (store.transcript(item.sessionId)?.rev ?? 0) : 0);
    if (store.main.sessionId !== this.sessionKey) {
      this.sessionKey = store.main.sessionId;
      this.list?.reset();
    }
    const items = store.main.items;
    const win = this.list?.window(items) ?? { start: Math.max(0, items.length - 30), end: items.length, top: 0, bottom: 0 };
    const visible = items.slice(win.start, win.end);
    const hide = store.hideThoughts;
    const template = html`<div class="app ${store.turn.running ? 'running' : ''}">
      ${renderHeader(this.ctx)}
      ${renderHistory(this.ctx)}
      ${renderFailure(this.ctx)}
      ${renderNotices(this.ctx)}
      <main class="transcript" aria-live="polite">
        ${items.length === 0 ? (store.setup?.needsModel ? renderSetupCard(this.ctx, store.setup) : renderEmpty(this.ctx)) : nothing}
        <div class="spacer-top" ${cssProps({ height: `${win.top}px` })}></div>
        ${repeat(
          visible,
          (item) => item.key,
          (item) => html`<div class="vitem" data-key=${item.key}>${guard([item.rev, hide, this.ctx.uiRev(), childRev(item)], () => renderItem(this.ctx, store.main, item))}</div>`,
        )}
        <div class="spacer-bottom" ${cssProps({ height: `${win.bottom}px` })}></div>
        ${store.turn.running ? html`<div class="working"><span class="codicon codicon-loading codicon-modifier-spin"></span> Working…</div>` : nothing}
      </main>
      <footer class="footer">
        ${renderPlan(this.ctx)}
        ${renderChanges(this.ctx)}
        ${renderApprovalBanner(this.ctx)}
        ${renderGauge(this.ctx)}
        ${renderComposer(this.ctx)}
      </footer>
    </div>`;
    render(template, this.root);
    if (!this.list) {
      const scroller = this.root.querySelector<HTMLElement>('.transcript');
      if (scroller) this.list = new VirtualList(scroller, this.schedule);
    }
    this.list?.afterRender();
  }
}
