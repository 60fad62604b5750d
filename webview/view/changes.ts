// The session's changed files, per turn, with line counts and review state;
// clicking a file opens its review in VS Code's diff editor.
import { html, nothing, type TemplateResult } from 'lit';
import { baseName } from '../state/content';
import { clip } from '../render/longText';
import type { ViewContext } from './context';
import { UNKNOWN_BASE } from './diff';

const KIND_LETTER: Record<string, string> = { added: 'A', modified: 'M', deleted: 'D', moved: 'R' };
const STATE_LABEL: Record<string, string> = { pending: 'pending', accepted: 'accepted', rejected: 'rejected', partial: 'partly accepted' };

export function renderChanges(ctx: ViewContext): TemplateResult | typeof nothing {
  const { turns, pending } = ctx.store.changes;
  const count = turns.reduce((n, t) => n + t.files.length, 0);
  if (count === 0) return nothing;
  const open = ctx.ui.changesOpen;
  return html`<section class="plan changes ${open ? 'open' : ''}">
    <div class="plan-header" role="button" tabindex="0" aria-expanded=${open} data-action="changes"
      @click=${() => { ctx.ui.changesOpen = !open; ctx.update(); }}>
      <span class="codicon codicon-${open ? 'chevron-down' : 'chevron-right'}"></span>
      <span class="codicon codicon-diff-multiple"></span>
      <span>Changes</span><span class="muted">${count} file${count === 1 ? '' : 's'}</span>
      ${pending > 0 ? html`<span class="badge">${pending} to review</span>` : nothing}
    </div>
    ${open
      ? html`<ol class="plan-entries">${turns.map(
          (turn) => html`<li class="changes-turn muted">Turn ${clip(turn.turnId, 40)}${turn.undone ? ' · undone' : ''}</li>
            ${turn.files.map(
              (f) => html`<li class="plan-entry changes-file review-${f.state}" role="button" tabindex="0" data-file=${baseName(f.path)} title=${f.conflict ?? (f.unknownBase ? `${f.path}\n${UNKNOWN_BASE}` : f.path)}
                @click=${() => ctx.post({ type: 'reviewFile', epoch: ctx.store.epoch, fileId: f.fileId })}>
                <span class="changes-kind">${f.unknownBase ? '?' : (KIND_LETTER[f.kind] ?? '?')}</span>
                <span class="plan-text">${clip(baseName(f.path), 200)}</span>
                <span class="diff-stat">${f.binary ? 'binary' : html`<span class="diff-stat-add">+${f.added}</span> <span class="diff-stat-del">−${f.removed}</span>`}</span>
                <span class="review-state review-${f.state}">${f.conflict ? 'conflict' : f.unknownBase && f.state === 'rejected' ? 'rejected, left as written' : STATE_LABEL[f.state]}</span>
                ${f.state === 'pending' && !f.binary && f.kind === 'modified' && !f.unknownBase
                  ? html`<span class="codicon codicon-edit changes-in-file" role="button" tabindex="0" title="Review in the file (Keep / Undo per change)" data-action="review-in-file"
                      @click=${(event: Event) => {
                        event.stopPropagation();
                        ctx.post({ type: 'reviewFile', epoch: ctx.store.epoch, fileId: f.fileId, inFile: true });
                      }}></span>`
                  : nothing}
              </li>`,
            )}`,
        )}</ol>`
      : nothing}
  </section>`;
}
