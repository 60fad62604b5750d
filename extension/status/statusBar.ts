// Status bar: the agent's state, the context gauge (percent of the window and
// cost from `usage_update`; a marked estimate for agents that never send it)
// and the number of approvals waiting.
import * as vscode from 'vscode';
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { AgentStatus } from '../../webview/protocol';
import { agentBlock, agentLine, forIconLabel, quoted } from '../text/agentText';

export interface Usage {
  used: number;
  size?: number;
  cost?: { amount: number; currency: string };
  estimated: boolean;
}

/** Roughly 4 characters per token; only used when the agent sends no usage. */
const CHARS_PER_TOKEN = 4;

export class StatusBar implements vscode.Disposable {
  private readonly agentItem = vscode.window.createStatusBarItem('accord.agent', vscode.StatusBarAlignment.Right, 100);
  private readonly approvalItem = vscode.window.createStatusBarItem('accord.approvals', vscode.StatusBarAlignment.Right, 101);
  private status: AgentStatus = { state: 'stopped' };
  private usageValue: Usage | undefined;
  private estimatedChars = 0;
  /** The agent sends usage_update (perhaps marked as its own estimate): no counting characters then. */
  private agentReportsUsage = false;

  constructor() {
    this.agentItem.name = vscode.l10n.t('Accord agent');
    this.agentItem.command = 'accord.chat.focus';
    this.approvalItem.name = vscode.l10n.t('Accord approvals');
    this.approvalItem.command = 'accord.showPendingApproval';
    this.approvalItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.render();
    this.agentItem.show();
  }

  get usage(): Usage | undefined {
    return this.usageValue;
  }

  get text(): string {
    return this.agentItem.text;
  }

  get approvalText(): string | undefined {
    return this.approvalItem.text || undefined;
  }

  setStatus(status: AgentStatus): void {
    this.status = status;
    this.render();
  }

  /** A new session: the gauge starts over. */
  resetUsage(): void {
    this.usageValue = undefined;
    this.estimatedChars = 0;
    this.agentReportsUsage = false;
    this.render();
  }

  onUpdate(update: SessionUpdate): void {
    if (update.sessionUpdate === 'usage_update') {
      // Accord's agent marks counts its provider did not report (VS Code's models) as an estimate.
      const estimated = (update._meta as Record<string, unknown> | null | undefined)?.['accord/usageEstimated'] === true;
      this.usageValue = { used: update.used, size: update.size, cost: update.cost ?? undefined, estimated };
      this.agentReportsUsage = true;
    } else if (!this.agentReportsUsage) {
      const text = 'content' in update && update.content && typeof update.content === 'object' && 'text' in update.content ? update.content.text : '';
      if (typeof text !== 'string' || !text) return;
      this.estimatedChars += text.length;
      this.usageValue = { used: Math.round(this.estimatedChars / CHARS_PER_TOKEN), estimated: true };
    } else return;
    this.render();
  }

  setPendingApprovals(count: number, headline?: string): void {
    if (count === 0) {
      this.approvalItem.text = '';
      this.approvalItem.hide();
      return;
    }
    this.approvalItem.text = `$(shield) ${count > 1 ? vscode.l10n.t('{0} approvals waiting', count) : vscode.l10n.t('1 approval waiting')}`;
    this.approvalItem.tooltip = `${headline ? vscode.l10n.t('The agent asks: {0}', quoted(headline, 200)) : vscode.l10n.t('An agent is waiting for your answer.')}\n${vscode.l10n.t('Click to answer.')}`;
    this.approvalItem.accessibilityInformation = { label: this.approvalItem.text, role: 'button' };
    // Stays in sight while anything waits: the approval's notification hides itself after a few seconds.
    this.approvalItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.approvalItem.show();
  }

  dispose(): void {
    this.agentItem.dispose();
    this.approvalItem.dispose();
  }

  private render(): void {
    const icon = { connected: '$(hubot)', starting: '$(sync~spin)', restarting: '$(sync~spin)', stopped: '$(circle-slash)', error: '$(error)', untrusted: '$(shield)' }[this.status.state];
    // The agent's name can come from its own `initialize` answer: icon syntax and markup shown as text.
    const name = this.status.agentName ?? 'Accord';
    let text = `${icon} ${forIconLabel(name, 40)}`;
    const state = STATE_WORD[this.status.state]();
    const tooltip = [
      this.status.message
        ? vscode.l10n.t('{0}: {1} — {2}', agentLine(name, 80), state, agentBlock(this.status.message, { maxLines: 6, maxLineLength: 300 }).text)
        : vscode.l10n.t('{0}: {1}', agentLine(name, 80), state),
    ];
    const u = this.usageValue;
    if (u) {
      if (u.size) {
        const pct = Math.min(100, Math.round((u.used / u.size) * 100));
        text += ` ${u.estimated ? '~' : ''}${pct}%`;
        tooltip.push(vscode.l10n.t('Context: {0} of {1} tokens ({2}%)', u.used.toLocaleString('en-US'), u.size.toLocaleString('en-US'), pct));
      } else {
        text += ` ~${formatTokens(u.used)}`;
        tooltip.push(vscode.l10n.t('Context: about {0} tokens (estimate: this agent does not report usage)', u.used.toLocaleString('en-US')));
      }
      if (u.cost) {
        text += ` ${formatCost(u.cost)}`;
        tooltip.push(vscode.l10n.t('Session cost: {0}', formatCost(u.cost)));
      }
    }
    this.agentItem.text = text;
    this.agentItem.tooltip = tooltip.join('\n');
  }
}

function formatTokens(n: number): string {
  return n >= 1000 ? vscode.l10n.t('{0}k tok', (n / 1000).toFixed(1)) : vscode.l10n.t('{0} tok', n);
}

// The tooltip's state word; the state itself stays the protocol-side value.
const STATE_WORD = {
  connected: () => vscode.l10n.t('connected'),
  starting: () => vscode.l10n.t('starting'),
  restarting: () => vscode.l10n.t('restarting'),
  stopped: () => vscode.l10n.t('stopped'),
  error: () => vscode.l10n.t('error'),
  untrusted: () => vscode.l10n.t('untrusted'),
} as const;

export function formatCost(cost: { amount: number; currency: string }): string {
  return cost.currency === 'USD' ? `$${cost.amount.toFixed(cost.amount < 1 ? 3 : 2)}` : `${cost.amount.toFixed(2)} ${cost.currency}`;
}
