// A tool call card: kind icon, title, status, locations, expandable content,
// a badge while an approval is pending (the question itself is pinned above
// the composer, so it stays visible however far the card scrolled), and
// nested child sessions.
import { html, nothing, type TemplateResult } from 'lit';
import type { TerminalContent, ToolCall, ToolContent } from '../state/types';
import { ansiSegments } from '../render/ansi';
import { baseName } from '../state/content';
import { breakable, clip } from '../render/longText';
import { toggle, type ViewContext } from './context';
import { renderDiff } from './diff';
import { renderChild } from './child';

const KIND_ICON: Record<string, string> = {
  read: 'file',
  edit: 'edit',
  delete: 'trash',
  move: 'file-symlink-file',
  search: 'search',
  execute: 'terminal',
  think: 'lightbulb',
  fetch: 'globe',
  switch_mode: 'arrow-swap',
  other: 'tools',
};

const STATUS: Record<string, { icon: string; label: string }> = {
  pending: { icon: 'circle-large-outline', label: 'Pending' },
  in_progress: { icon: 'loading codicon-modifier-spin', label: 'Running' },
  completed: { icon: 'check', label: 'Done' },
  failed: { icon: 'error', label: 'Failed' },
  cancelled: { icon: 'circle-slash', label: 'Cancelled' },
};

const REJECTED = { icon: 'circle-slash', label: 'Rejected' };

/** Output beyond this is cut until the person asks for all of it. */
export const OUTPUT_LIMIT = 20_000;

function formatSize(chars: number): string {
  return chars >= 1_000_000 ? `${(chars / 1_000_000).toFixed(1)} MB` : `${Math.ceil(chars / 1000)} KB`;
}

function renderOutput(ctx: ViewContext, key: string, text: string, terminal: boolean): TemplateResult {
  const all = ctx.ui.showAll.has(key);
  const cut = !all && text.length > OUTPUT_LIMIT;
  return html`<div class="tool-output ${terminal ? 'terminal' : ''}">
    <pre>${breakable(cut ? text.slice(0, OUTPUT_LIMIT) : text)}</pre>
    ${cut
      ? html`<div class="truncated">Showing ${formatSize(OUTPUT_LIMIT)} of ${formatSize(text.length)}.
          <vscode-button secondary data-action="show-all" @click=${() => { ctx.ui.showAll.add(key); ctx.update(); }}>Show all</vscode-button></div>`
      : nothing}
  </div>`;
}

/**
 * A terminal as a terminal: monospace on the terminal's colours, the end of
 * the output (where a command says how it went) rather than its start, ANSI
 * colours drawn from VS Code's terminal palette and every other escape
 * sequence dropped (render/ansi.ts), and how it exited.
 */
function renderTerminal(ctx: ViewContext, key: string, terminal: TerminalContent, status: string): TemplateResult {
  const all = ctx.ui.showAll.has(key);
  const output = terminal.output ?? '';
  const cut = !all && output.length > OUTPUT_LIMIT;
  const shown = cut ? output.slice(output.length - OUTPUT_LIMIT) : output;
  const exit = terminal.exit;
  const running = !exit && (status === 'pending' || status === 'in_progress');
  return html`<div class="tool-output terminal" role="log" data-terminal-id=${clip(terminal.terminalId, 200)}>
    ${cut || terminal.dropped
      ? html`<div class="truncated">${terminal.dropped && all ? 'Earlier output was dropped. ' : ''}${cut ? html`Showing the last ${formatSize(OUTPUT_LIMIT)} of ${formatSize(output.length)}.
          <vscode-button secondary data-action="show-all" @click=${() => { ctx.ui.showAll.add(key); ctx.update(); }}>Show all</vscode-button>` : 'Earlier output was dropped.'}</div>`
      : nothing}
    <pre class="terminal-screen">${output === '' ? html`<span class="muted">${running ? 'Waiting for output…' : 'No output.'}</span>` : ansiSegments(shown).map((seg) => {
      const classes = [seg.fg !== undefined ? `ansi-fg-${seg.fg}` : '', seg.bg !== undefined ? `ansi-bg-${seg.bg}` : '', seg.bold ? 'ansi-bold' : ''].filter(Boolean).join(' ');
      return classes ? html`<span class=${classes}>${breakable(seg.text)}</span>` : breakable(seg.text);
    })}</pre>
    ${exit
      ? html`<div class="terminal-exit ${exit.exitCode === 0 ? '' : 'failed'}">${exit.signal ? `Killed by ${exit.signal}` : `Exited with code ${exit.exitCode ?? 'unknown'}`}</div>`
      : running ? html`<div class="terminal-exit muted"><span class="codicon codicon-loading codicon-modifier-spin"></span> Running</div>` : nothing}
  </div>`;
}

function renderContent(ctx: ViewContext, tool: ToolCall, content: ToolContent, index: number): TemplateResult | typeof nothing {
  const key = `${tool.toolCallId}#${index}`;
  switch (content.type) {
    case 'text':
      return renderOutput(ctx, key, content.text, tool.kind === 'execute');
    case 'diff':
      return renderDiff(ctx, tool.toolCallId, content);
    case 'terminal': {
      // A client-owned terminal's output comes from the extension; an agent-owned one's from the agent's _meta.
      const live = ctx.store.terminals.get(content.terminalId);
      return renderTerminal(ctx, key, live ? { ...content, ...live } : content, tool.status);
    }
    case 'other':
      return html`<div class="tool-other">${clip(content.label)}</div>`;
  }
}

function isExpanded(ctx: ViewContext, tool: ToolCall, hasApproval: boolean): boolean {
  if (ctx.ui.expandedTools.has(tool.toolCallId)) return true;
  if (ctx.ui.collapsedTools.has(tool.toolCallId)) return false;
  // Open by default what needs the person: diffs, failures, approvals; and a terminal while its command runs, to watch it.
  const running = tool.status === 'pending' || tool.status === 'in_progress';
  return hasApproval || tool.status === 'failed' || tool.content.some((c) => c.type === 'diff' || (running && c.type === 'terminal'));
}

export function renderToolCard(ctx: ViewContext, tool: ToolCall, nested = false): TemplateResult {
  const approval = nested ? undefined : ctx.store.approvalFor(tool.toolCallId);
  const expanded = isExpanded(ctx, tool, approval !== undefined);
  // An agent may never update a call the person declined; the card must not go on saying it waits.
  const declined = !nested && ctx.store.declined.has(tool.toolCallId) && (tool.status === 'pending' || tool.status === 'failed' || tool.status === 'cancelled');
  const status = declined ? REJECTED : (STATUS[tool.status] ?? { icon: 'circle-large-outline', label: tool.status });
  const expandable = tool.content.length > 0;
  const onToggle = () => {
    toggle(ctx.ui.expandedTools, tool.toolCallId, !expanded);
    toggle(ctx.ui.collapsedTools, tool.toolCallId, expanded);
    ctx.update();
  };
  return html`<div class="tool-card status-${declined ? 'rejected' : tool.status} ${approval ? 'awaiting' : ''}" data-tool-call-id=${tool.toolCallId}>
    <div class="tool-header" role="button" tabindex="0" aria-expanded=${expanded} @click=${onToggle}>
      <span class="codicon codicon-${expandable ? (expanded ? 'chevron-down' : 'chevron-right') : 'blank'} chevron"></span>
      <span class="codicon codicon-${KIND_ICON[tool.kind] ?? 'tools'} kind-icon" title=${tool.kind}></span>
      <span class="tool-title" title=${clip(tool.title, 2000)}>${clip(tool.title, 500)}</span>
      ${approval ? html`<span class="badge badge-warn">Needs approval</span>` : nothing}
      ${declined ? html`<span class="badge badge-rejected">Rejected</span>` : nothing}
      <span class="tool-status" title=${status.label}><span class="codicon codicon-${status.icon}"></span></span>
    </div>
    ${tool.locations.length
      ? html`<div class="tool-locations">${tool.locations.map(
          (loc) => html`<a class="path-link" role="link" tabindex="0" title=${loc.path}
            @click=${() => ctx.post(loc.line ? { type: 'openLocation', path: loc.path, line: loc.line } : { type: 'openLocation', path: loc.path })}
            ><span class="codicon codicon-go-to-file"></span>${clip(baseName(loc.path), 120)}${loc.line ? `:${loc.line}` : ''}</a>`,
        )}</div>`
      : nothing}
    ${expanded ? html`<div class="tool-body">${tool.content.map((c, i) => renderContent(ctx, tool, c, i))}</div>` : nothing}
    ${tool.children.map((id) => renderChild(ctx, id))}
  </div>`;
}
