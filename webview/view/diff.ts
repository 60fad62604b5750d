// A compact inline diff for a tool card: hunks with 2 lines of context, capped
// so a huge rewrite stays cheap; the full review happens in VS Code's editor.
import { structuredPatch } from 'diff';
import { html, nothing, type TemplateResult } from 'lit';
import type { DiffReviewState } from '../protocol';
import type { ToolContent } from '../state/types';
import { baseName } from '../state/content';
import { clip } from '../render/longText';
import type { ViewContext } from './context';

const MAX_LINES = 80;
export const UNKNOWN_BASE = 'The agent did not show what was there before, so Reject leaves the file as it is (the review offers restoring it from git or from the agent\'s claimed old text).';
const MAX_INPUT = 400_000;

type Diff = Extract<ToolContent, { type: 'diff' }>;

const REVIEW_LABEL: Record<DiffReviewState, string> = {
  pending: 'Not reviewed',
  accepted: 'Accepted',
  rejected: 'Rejected',
  partial: 'Partly accepted',
};

function diffLines(diff: Diff): { lines: TemplateResult[]; added: number; removed: number; more: number } {
  const oldText = diff.oldText ?? '';
  if (oldText.length + diff.newText.length > MAX_INPUT) {
    return { lines: [html`<div class="diff-line diff-note">Too large to show inline — use Review.</div>`], added: 0, removed: 0, more: 0 };
  }
  const patch = structuredPatch(diff.path, diff.path, oldText, diff.newText, '', '', { context: 2 });
  const lines: TemplateResult[] = [];
  let added = 0;
  let removed = 0;
  let shown = 0;
  for (const hunk of patch.hunks) {
    if (shown < MAX_LINES) lines.push(html`<div class="diff-line diff-hunk">@@ -${hunk.oldStart} +${hunk.newStart} @@</div>`);
    for (const line of hunk.lines) {
      const sign = line[0];
      if (sign === '+') added += 1;
      else if (sign === '-') removed += 1;
      else if (sign === '\\') continue;
      shown += 1;
      if (shown > MAX_LINES) continue;
      const cls = sign === '+' ? 'diff-add' : sign === '-' ? 'diff-del' : 'diff-ctx';
      lines.push(html`<div class="diff-line ${cls}"><span class="diff-sign">${sign === ' ' ? '' : sign}</span>${line.slice(1)}</div>`);
    }
  }
  return { lines, added, removed, more: Math.max(0, shown - MAX_LINES) };
}

export function renderDiff(ctx: ViewContext, toolCallId: string, diff: Diff): TemplateResult {
  const shown = diffLines(diff);
  const { lines, more } = shown;
  const state = ctx.store.review(toolCallId, diff.path);
  // Once the file is under review, its numbers are the review's (what the disk held), like the Changes list's.
  const reviewed = ctx.store.reviewedChange(toolCallId, diff.path);
  const added = reviewed?.added ?? shown.added;
  const removed = reviewed?.removed ?? shown.removed;
  // Never "new" when the agent did not show what was there: whether the file existed is what is not known.
  const unknownBase = ctx.store.unknownBase(toolCallId, diff.path);
  const isNew = reviewed ? reviewed.kind === 'added' : diff.oldText === null && !unknownBase;
  // A declined call changed nothing: there is nothing to review.
  const reviewable = state !== undefined || !ctx.store.declined.has(toolCallId);
  return html`<div class="diff">
    <div class="diff-header">
      <span class="codicon codicon-diff"></span>
      <a class="path-link" role="link" tabindex="0" title=${diff.path}
        @click=${() => ctx.post({ type: 'openLocation', path: diff.path })}>${clip(baseName(diff.path), 120)}</a>
      ${isNew ? html`<span class="badge">new</span>` : nothing}
      ${unknownBase ? html`<span class="badge" title=${UNKNOWN_BASE}>before not shown</span>` : nothing}
      <span class="diff-stat"><span class="diff-stat-add">+${added}</span> <span class="diff-stat-del">−${removed}</span></span>
      <span class="spacer"></span>
      ${state ? html`<span class="review-state review-${state}">${unknownBase && state === 'rejected' ? 'Rejected, file left as the agent wrote it' : REVIEW_LABEL[state]}</span>` : nothing}
      ${reviewable
        ? html`<vscode-button secondary data-action="review"
            @click=${() => ctx.post({ type: 'reviewDiff', epoch: ctx.store.epoch, toolCallId, path: diff.path })}>Review</vscode-button>`
        : nothing}
    </div>
    <div class="diff-body">${lines}${more ? html`<div class="diff-line diff-note">… ${more} more lines</div>` : nothing}</div>
  </div>`;
}
