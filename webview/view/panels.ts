// The panels around the transcript: header, history, notices, plan and the
// context gauge.
import { html, nothing, type TemplateResult } from 'lit';
import { cssProps } from './cssom';
import { breakable, clip } from '../render/longText';
import type { ViewContext } from './context';
import { agentLine, quoted } from '../../extension/text/agentText';

const STATE_LABEL: Record<string, string> = {
  starting: 'Starting agent…',
  restarting: 'Restarting agent…',
  stopped: 'Agent stopped',
  error: 'Agent failed',
  untrusted: 'Restricted workspace: agents do not start',
};

export function renderHeader(ctx: ViewContext): TemplateResult {
  const { agent, title } = ctx.store;
  const status = agent.state === 'connected' ? `${agent.agentName ?? 'Agent'}${agent.agentVersion ? ` ${agent.agentVersion}` : ''}` : agent.message ?? STATE_LABEL[agent.state] ?? agent.state;
  return html`<header class="header">
    <span class="status-dot state-${agent.state}" title=${status}></span>
    <span class="header-title" title=${clip(title ?? 'New session', 2000)}>${clip(title ?? 'New session', 300)}</span>
    <span class="header-agent muted" id="agent-status" data-state=${agent.state} title=${clip(status, 2000)}>${status}</span>
    <span class="spacer"></span>
    <button class="icon-button ${ctx.ui.historyOpen ? 'active' : ''}" type="button" title="Session history" aria-label="Session history" data-action="history"
      @click=${() => { ctx.ui.historyOpen = !ctx.ui.historyOpen; ctx.update(); }}><span class="codicon codicon-history"></span></button>
    <button class="icon-button" type="button" title="New session" aria-label="New session" data-action="new-session"
      @click=${() => ctx.post({ type: 'newSession' })}><span class="codicon codicon-add"></span></button>
  </header>`;
}

export function renderHistory(ctx: ViewContext): TemplateResult | typeof nothing {
  if (!ctx.ui.historyOpen) return nothing;
  const { sessions, sessionId } = ctx.store;
  return html`<div class="history" role="listbox" aria-label="Sessions">
    <div class="history-title">Sessions</div>
    ${sessions.length === 0 ? html`<div class="muted history-empty">No earlier sessions.</div>` : nothing}
    ${sessions.map(
      (s) => html`<div class="history-item ${s.sessionId === sessionId ? 'current' : ''}" role="button" tabindex="0" data-session-id=${s.sessionId}
        title=${`${clip(s.title || 'Untitled session', 2000)}${s.updatedAt ? `\n${new Date(s.updatedAt).toLocaleString()}` : ''}`}
        @click=${() => { ctx.ui.historyOpen = false; ctx.post({ type: 'loadSession', sessionId: s.sessionId }); ctx.update(); }}>
        <span class="codicon codicon-comment-discussion"></span>
        <span class="history-name">${clip(s.title || 'Untitled session', 300)}</span>
        <span class="muted history-date">${s.updatedAt ? new Date(s.updatedAt).toLocaleString() : ''}</span>
      </div>`,
    )}
  </div>`;
}

const STAGE_LABEL: Record<string, string> = {
  start: 'could not be started',
  initialize: 'did not complete initialize',
  'session/new': 'could not start a session (session/new)',
  'session/load': 'could not reopen the session (session/load)',
  'session/prompt': 'failed during the turn',
  exit: 'stopped',
  authenticate: 'could not sign you in',
};

/** The sign-in ways the agent offered; names and descriptions are the agent's words, so clipped plain text. */
function renderAuthChoices(ctx: ViewContext, failure: NonNullable<ViewContext['store']['failure']>): TemplateResult | typeof nothing {
  const methods = failure.authMethods ?? [];
  if (methods.length === 0) return nothing;
  return html`<div class="auth-choices" data-role="auth-choices">
    <div class="accord-voice">${agentLine(failure.agentName, 60)} asks you to sign in first. It offers:</div>
    ${methods.map((m) => html`<div class="auth-choice">
      <vscode-button data-action="authenticate" data-method-id=${m.methodId} title=${clip(m.description ?? m.name, 500)}
        @click=${() => ctx.post({ type: 'authenticate', methodId: m.methodId })}>${m.terminal ? html`<span class="codicon codicon-terminal auth-terminal-icon"></span>` : nothing}${clip(m.name, 80)}</vscode-button>
      ${m.description ? html`<span class="muted auth-description">${clip(m.description, 300)}</span>` : nothing}
    </div>`)}
  </div>`;
}

/** The agent in view failed: its name and the stage in Accord's words, the error quoted as the agent's, and where to look. */
export function renderFailure(ctx: ViewContext): TemplateResult | typeof nothing {
  const failure = ctx.store.failure;
  if (!failure) return nothing;
  const act = (action: 'showLog' | 'showTraffic' | 'editSettings' | 'dismiss') => () => ctx.post({ type: 'failureAction', action });
  return html`<div class="notice severity-error agent-failure" role="alert">
    <span class="codicon codicon-error"></span>
    <div class="failure-body">
      <div class="accord-voice"><strong>${agentLine(failure.agentName, 60)} ${STAGE_LABEL[failure.stage] ?? 'failed'}</strong></div>
      <div class="agent-words"><span class="agent-words-label">Error</span><span class="agent-words-text">${breakable(quoted(failure.message, 600))}</span></div>
      ${renderAuthChoices(ctx, failure)}
      <div class="failure-actions">
        <vscode-button data-action="failure-show-log" @click=${act('showLog')}>Show Log</vscode-button>
        <vscode-button secondary data-action="failure-show-traffic" @click=${act('showTraffic')}>Show ACP Traffic</vscode-button>
        <vscode-button secondary data-action="failure-edit-settings" @click=${act('editSettings')}>Edit Agent Settings</vscode-button>
        <vscode-button secondary data-action="failure-dismiss" @click=${act('dismiss')}>Dismiss</vscode-button>
      </div>
    </div>
  </div>`;
}

export function renderNotices(ctx: ViewContext): TemplateResult[] {
  return ctx.store.notices.map(
    (n) => html`<div class="notice severity-${n.severity}">
      <span class="codicon codicon-${n.severity === 'error' ? 'error' : n.severity === 'warning' ? 'warning' : 'info'}"></span>
      <span><strong>${breakable(clip(n.title, 1000))}</strong>${n.description ? html` — ${breakable(n.description)}` : nothing}</span>
    </div>`,
  );
}

const PLAN_ICON: Record<string, string> = {
  pending: 'circle-large-outline',
  in_progress: 'loading codicon-modifier-spin',
  completed: 'pass-filled',
};

export function renderPlan(ctx: ViewContext): TemplateResult | typeof nothing {
  const { plan } = ctx.store;
  if (plan.length === 0) return nothing;
  const done = plan.filter((e) => e.status === 'completed').length;
  const open = ctx.ui.planOpen;
  return html`<section class="plan ${open ? 'open' : ''}">
    <div class="plan-header" role="button" tabindex="0" aria-expanded=${open} @click=${() => { ctx.ui.planOpen = !open; ctx.update(); }}>
      <span class="codicon codicon-${open ? 'chevron-down' : 'chevron-right'}"></span>
      <span class="codicon codicon-checklist"></span>
      <span>Plan</span><span class="muted">${done}/${plan.length}</span>
    </div>
    ${open
      ? html`<ol class="plan-entries">${plan.map(
          (e) => html`<li class="plan-entry status-${e.status} priority-${e.priority}">
            <span class="codicon codicon-${PLAN_ICON[e.status] ?? 'circle-large-outline'}"></span>
            <span class="plan-text">${breakable(e.content)}</span>
            ${e.priority === 'high' ? html`<span class="badge badge-warn">high</span>` : nothing}
          </li>`,
        )}</ol>`
      : nothing}
  </section>`;
}

function tokens(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}

function money(amount: number, currency: string): string {
  if (currency === 'USD') return `$${amount < 1 ? amount.toFixed(3) : amount.toFixed(2)}`;
  return `${amount.toFixed(2)} ${currency}`;
}

/** Fullness at which the gauge warns: compaction or a new session is near. */
const WARN_AT = 0.8;

export function renderGauge(ctx: ViewContext): TemplateResult | typeof nothing {
  const { usage, turn, compacting } = ctx.store;
  if (!usage || usage.size <= 0) return nothing;
  const ratio = Math.min(1, usage.used / usage.size);
  const warn = ratio >= WARN_AT;
  const percent = Math.round(ratio * 100);
  const about = usage.estimated ? '≈ ' : '';
  const why = usage.estimated ? ' (an estimate: this model reports no usage, so its tokenizer counted)' : '';
  return html`<div class="gauge ${warn ? 'warn' : ''}" title="${about}${usage.used.toLocaleString()} of ${usage.size.toLocaleString()} tokens in context${why}">
    <div class="gauge-bar" role="meter" aria-valuemin="0" aria-valuemax="100" aria-valuenow=${percent} aria-label="Context window">
      <div class="gauge-fill" ${cssProps({ width: `${percent}%` })}></div>
    </div>
    <span class="gauge-text">${about}${percent}% · ${tokens(usage.used)} / ${tokens(usage.size)}</span>
    ${compacting ? html`<span class="gauge-compacting"><span class="codicon codicon-loading codicon-modifier-spin"></span>Compacting</span>` : nothing}
    ${warn && !compacting ? html`<span class="gauge-warn"><span class="codicon codicon-warning"></span>Near the limit</span>` : nothing}
    <span class="spacer"></span>
    ${usage.cost
      ? html`<span class="gauge-cost" title="Cost of this turn and of the whole session">${turn.cost !== undefined ? `turn ${money(turn.cost, usage.cost.currency)} · ` : ''}session ${money(usage.cost.amount, usage.cost.currency)}</span>`
      : nothing}
  </div>`;
}
