// The "Changes" view in the Accord container: session → turn → file, each
// file with its kind, +/- line counts and review state; a badge counts the
// files still waiting for a decision.
import * as vscode from 'vscode';
import { fileLineCounts, isPending, kindOf, type FileReview } from './fileReview';
import type { ReviewStore } from './reviewStore';
import { reviewState } from './reviewSummary';
import { leftInPlace } from './unverifiedBase';
import { leftSideLabel } from './unverifiedNotices';
import { agentFileName, agentLiteral } from '../text/agentText';

export type ChangesNode =
  | { type: 'session'; sessionId: string }
  | { type: 'turn'; sessionId: string; turnId: string }
  | { type: 'file'; fileId: string };

export const CHANGES_VIEW_ID = 'accord.changes';

const KIND_LETTER = { added: 'A', modified: 'M', deleted: 'D', moved: 'R' } as const;

export class ChangesTree implements vscode.TreeDataProvider<ChangesNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ChangesNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<ChangesNode>;
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly store: ReviewStore,
    /** A name a person tells sessions apart by (agent and start time); ids of one agent often share a prefix. */
    private readonly sessionLabel: (sessionId: string) => string = (sessionId) => `Session ${sessionId}`,
  ) {
    this.view = vscode.window.createTreeView(CHANGES_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.disposables = [this.view, this.changed, store.onDidChange(() => this.refresh())];
    this.refresh();
  }

  getChildren(node?: ChangesNode): ChangesNode[] {
    if (!node) return this.store.sessionIds().map((sessionId) => ({ type: 'session', sessionId }));
    if (node.type === 'session') {
      return this.store.turnIds(node.sessionId).map((turnId) => ({ type: 'turn', sessionId: node.sessionId, turnId }));
    }
    if (node.type === 'turn') {
      return this.store.inTurn(node.sessionId, node.turnId).map((file) => ({ type: 'file', fileId: file.id }));
    }
    return [];
  }

  getTreeItem(node: ChangesNode): vscode.TreeItem {
    if (node.type === 'session') {
      const pending = this.store.inSession(node.sessionId).filter(isPending).length;
      const item = new vscode.TreeItem(this.sessionLabel(node.sessionId), vscode.TreeItemCollapsibleState.Expanded);
      item.tooltip = vscode.l10n.t('Session {0}', node.sessionId);
      item.description = pending > 0 ? vscode.l10n.t('{0} pending', pending) : vscode.l10n.t('reviewed');
      item.contextValue = 'accordReviewSession';
      item.iconPath = new vscode.ThemeIcon('comment-discussion');
      return item;
    }
    if (node.type === 'turn') {
      const files = this.store.inTurn(node.sessionId, node.turnId);
      const pending = files.filter(isPending).length;
      const undone = files.length > 0 && files.every((f) => f.undone);
      const item = new vscode.TreeItem(vscode.l10n.t('Turn {0}', node.turnId), vscode.TreeItemCollapsibleState.Expanded);
      item.description = undone
        ? vscode.l10n.t('undone')
        : pending > 0
          ? files.length === 1
            ? vscode.l10n.t('1 file, {0} pending', pending)
            : vscode.l10n.t('{0} files, {1} pending', files.length, pending)
          : files.length === 1
            ? vscode.l10n.t('1 file')
            : vscode.l10n.t('{0} files', files.length);
      item.contextValue = undone ? 'accordReviewTurn.undone' : 'accordReviewTurn';
      item.iconPath = new vscode.ThemeIcon(undone ? 'history' : 'git-commit');
      return item;
    }
    const file = this.store.get(node.fileId);
    if (!file) return new vscode.TreeItem(vscode.l10n.t('(closed)'));
    return fileItem(file);
  }

  private refresh(): void {
    const pending = this.store.pendingCount();
    this.view.badge = pending > 0 ? { value: pending, tooltip: pending === 1 ? vscode.l10n.t('1 agent change to review') : vscode.l10n.t('{0} agent changes to review', pending) } : undefined;
    this.changed.fire(undefined);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function fileItem(file: FileReview): vscode.TreeItem {
  // The name is the agent's choice: an override or a newline in it must not change what the person accepts.
  const item = new vscode.TreeItem(agentFileName(file.path), vscode.TreeItemCollapsibleState.None);
  const kind = kindOf(file);
  const counts = file.binary ? vscode.l10n.t('binary') : (({ added, removed }) => `+${added} −${removed}`)(fileLineCounts(file));
  item.resourceUri = vscode.Uri.file(file.path);
  // "?": whether it existed before, and what it held, is exactly what is not known.
  item.description = `${file.unverified ? '?' : KIND_LETTER[kind]} ${counts} · ${state(file)}`;
  const unknown = file.unverified
    ? [vscode.l10n.t('The agent did not show what was there before; the diff compares with {0}. Reject leaves the file as it is.', leftSideLabel(file.unverified))]
    : [];
  const where = (p: string) => agentLiteral(p, 500);
  item.tooltip = [file.movedFrom ? `${where(file.movedFrom)} → ${where(file.path)}` : where(file.path), `${kind}, ${counts}`, ...unknown, file.conflict ?? state(file)].join('\n');
  // A conflict row has its own actions: try again (accept), give up (reject), resolve in the file.
  item.contextValue = file.conflict ? 'accordReviewFile.conflict' : isPending(file) ? 'accordReviewFile.pending' : 'accordReviewFile';
  item.command = { command: 'accord.review.open', title: vscode.l10n.t('Open Change'), arguments: [file.id] };
  if (file.conflict) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  return item;
}

function state(file: FileReview): string {
  if (file.conflict) return vscode.l10n.t('conflict');
  if (file.undone) return vscode.l10n.t('undone');
  const shown = reviewState(file);
  if (shown === 'rejected' && leftInPlace(file)) return vscode.l10n.t('rejected, left as the agent wrote it');
  return STATE_LABEL[shown]();
}

const STATE_LABEL = {
  pending: () => vscode.l10n.t('pending'),
  accepted: () => vscode.l10n.t('accepted'),
  rejected: () => vscode.l10n.t('rejected'),
  partial: () => vscode.l10n.t('partly accepted'),
} as const;
