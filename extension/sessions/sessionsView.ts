// The sessions view: the agent's past sessions from `session/list` (only for
// agents that advertise it). Open = `session/load`; copy id; close.
import * as vscode from 'vscode';
import type { SessionInfo } from '@agentclientprotocol/sdk/unstable';
import { agentLine, quoted } from '../text/agentText';

export class SessionItem extends vscode.TreeItem {
  constructor(readonly agentName: string, readonly info: SessionInfo, current: boolean) {
    // Titles, ids and paths come from the agent: one plain line each (tree labels and string tooltips are not Markdown).
    // Without a title: its time, else the whole id (one agent's ids often share a long prefix).
    super(
      info.title ? agentLine(info.title, 120) : info.updatedAt ? vscode.l10n.t('Session of {0}', new Date(info.updatedAt).toLocaleString()) : vscode.l10n.t('Session {0}', agentLine(info.sessionId, 80)),
      vscode.TreeItemCollapsibleState.None,
    );
    this.id = `${agentName}:${info.sessionId}`;
    // Accord's daemon marks sessions running a turn right now (perhaps for another window or client).
    const running = (info._meta as Record<string, unknown> | undefined | null)?.['accord/running'] === true;
    this.description = [running ? vscode.l10n.t('running') : '', current ? vscode.l10n.t('open') : '', info.updatedAt ? new Date(info.updatedAt).toLocaleString() : ''].filter(Boolean).join(' · ');
    this.tooltip = `${info.title ? quoted(info.title, 500) : ''}\n${agentLine(agentName, 80)} · ${agentLine(info.sessionId, 200)}${running ? ` · ${vscode.l10n.t('running')}` : ''}\n${agentLine(info.cwd, 500)}`.trim();
    this.contextValue = 'accord.session';
    this.iconPath = new vscode.ThemeIcon(running ? 'sync~spin' : current ? 'comment-discussion' : 'history');
    this.command = { command: 'accord.openSession', title: vscode.l10n.t('Open Session'), arguments: [this] };
  }
}

export class SessionsView implements vscode.TreeDataProvider<SessionItem> {
  private items: SessionItem[] = [];
  private emptyReason = vscode.l10n.t('Start a session from the chat panel.');
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changeEmitter.event;

  set(agentName: string, sessions: SessionInfo[], currentId: string | undefined, emptyReason?: string): void {
    const sorted = [...sessions].sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
    this.items = sorted.map((s) => new SessionItem(agentName, s, s.sessionId === currentId));
    if (emptyReason) this.emptyReason = emptyReason;
    this.changeEmitter.fire();
  }

  get sessions(): readonly SessionItem[] {
    return this.items;
  }

  get message(): string | undefined {
    return this.items.length === 0 ? this.emptyReason : undefined;
  }

  getTreeItem(item: SessionItem): vscode.TreeItem {
    return item;
  }

  getChildren(): SessionItem[] {
    return this.items;
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}
