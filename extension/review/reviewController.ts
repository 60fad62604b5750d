// The review in VS Code: one store of changes, the diff documents and their
// CodeLens, the Changes view, the commands and keys, and the three change
// sources. The session wiring creates the sources it needs and feeds them turn
// and tool-call events; everything else happens here.
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { isPending, type Decision, type FileReview } from './fileReview';
import { ReviewStore, type LandResult } from './reviewStore';
import { EditorTree } from './editorTree';
import { ReviewDocuments, reviewOf, reviewUri } from './reviewDocuments';
import { pendingHunks } from './reviewSides';
import { ChangesTree, type ChangesNode } from './changesTree';
import { StagedWriteSource } from './stagedSource';
import { DirectDiskSource } from './directSource';
import { IsolatedWorkspaceSource, type AgentExtCall, type IsolatedSourceOptions } from './isolatedSource';
import { ToolDiffDocuments } from './toolDiffDocuments';
import { quotedForNotification } from '../text/agentText';

/** Folders whose churn is never an agent's edit to review. */
const IGNORED_SEGMENTS = ['/.git/', '/node_modules/'];

export class ReviewController implements vscode.Disposable {
  private readonly tree = new EditorTree();
  readonly store = new ReviewStore(this.tree);
  readonly documents = new ReviewDocuments(this.store);
  readonly changes = new ChangesTree(this.store);
  /** ACP diff content of a tool call, for changes no review holds. */
  readonly toolDiffs = new ToolDiffDocuments();
  private readonly disposables: vscode.Disposable[] = [this.documents, this.changes, this.toolDiffs];

  constructor() {
    const command = (id: string, run: (...args: unknown[]) => unknown) =>
      this.disposables.push(vscode.commands.registerCommand(id, run));
    command('accord.review.open', (arg) => this.open(this.fileFrom(arg)));
    command('accord.review.acceptHunk', (uri, index) => this.decideHunk(uri, index, 'accepted'));
    command('accord.review.rejectHunk', (uri, index) => this.decideHunk(uri, index, 'rejected'));
    command('accord.review.nextHunk', () => this.moveToHunk(1));
    command('accord.review.previousHunk', () => this.moveToHunk(-1));
    command('accord.review.acceptFile', (arg) => this.decideFiles(this.filesFrom(arg), 'accepted'));
    command('accord.review.rejectFile', (arg) => this.decideFiles(this.filesFrom(arg), 'rejected'));
    command('accord.review.acceptTurn', (node) => this.decideFiles(this.groupFiles(node), 'accepted'));
    command('accord.review.rejectTurn', (node) => this.decideFiles(this.groupFiles(node), 'rejected'));
    command('accord.review.acceptSession', (node) => this.decideFiles(this.groupFiles(node), 'accepted'));
    command('accord.review.rejectSession', (node) => this.decideFiles(this.groupFiles(node), 'rejected'));
    command('accord.review.acceptAll', () => this.decideFiles(this.store.all(), 'accepted'));
    command('accord.review.rejectAll', () => this.decideFiles(this.store.all(), 'rejected'));
    command('accord.review.undoTurn', (node) => this.undoTurn(node));
  }

  /** Opens a change in VS Code's diff editor (binary files: the summary alone, not diffed). */
  async open(file: FileReview | undefined): Promise<void> {
    if (!file) return;
    const name = nodePath.basename(file.path);
    if (file.binary) {
      await vscode.window.showTextDocument(reviewUri(file, 'proposed'), { preview: false });
      return;
    }
    const title = `${name} (Accord review, turn ${file.turnId})`;
    await vscode.commands.executeCommand('vscode.diff', reviewUri(file, 'base'), reviewUri(file, 'proposed'), title, { preview: false });
  }

  /** A source for `fs/write_text_file` from third-party agents. */
  createStagedSource(): StagedWriteSource {
    return this.own(new StagedWriteSource(this.store, this.tree));
  }

  /** A source for agents that write straight to disk; watches the workspace for their writes. */
  createDirectSource(): DirectDiskSource {
    const source = this.own(
      new DirectDiskSource(this.store, this.tree, {
        knownPaths: () => vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file').map((d) => d.uri.fsPath),
        handledElsewhere: (sessionId, path) => this.store.inSession(sessionId).some((f) => f.path === path && f.origin !== 'direct'),
        modifiedAt: async (path) => {
          try {
            return (await vscode.workspace.fs.stat(vscode.Uri.file(path))).mtime;
          } catch {
            return undefined; // gone again: nothing to attribute
          }
        },
      }),
    );
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    const report = (event: 'created' | 'changed' | 'deleted') => (uri: vscode.Uri) => {
      const path = uri.fsPath;
      if (IGNORED_SEGMENTS.some((s) => path.split(nodePath.sep).join('/').includes(s))) return;
      void source.fileChanged(path, event);
    };
    this.disposables.push(
      watcher,
      watcher.onDidChange(report('changed')),
      watcher.onDidCreate(report('created')),
      watcher.onDidDelete(report('deleted')),
    );
    return source;
  }

  /** A source for the bundled agent's isolated workspace; `callAgent` sends an ACP extension request. */
  createIsolatedSource(callAgent: AgentExtCall, projectRoot: string, options: IsolatedSourceOptions): IsolatedWorkspaceSource {
    return this.own(new IsolatedWorkspaceSource(this.store, callAgent, projectRoot, { readProject: (path) => this.tree.read(path), ...options }));
  }

  /** What the person rejected or undid since the agent's last prompt; prepend it to the next one. */
  takeContextNote(sessionId: string): string | undefined {
    return this.store.takeContextNote(sessionId);
  }

  private async decideHunk(uriArg: unknown, indexArg: unknown, decision: Decision): Promise<void> {
    const target = typeof indexArg === 'number' ? { file: this.fileFrom(uriArg), index: indexArg } : this.hunkAtCursor();
    if (!target?.file) return;
    await this.report(this.store.decideHunk(target.file, target.index, decision));
  }

  private async decideFiles(files: FileReview[], decision: Exclude<Decision, 'pending'>): Promise<void> {
    const open = files.filter(isPending);
    if (open.length === 0) return;
    await this.report(this.store.decideFiles(open, decision));
  }

  private async undoTurn(node: unknown): Promise<void> {
    if (!isNode(node) || node.type !== 'turn') return;
    const result = await this.report(this.store.undoTurn(node.sessionId, node.turnId));
    if (result.landed.length > 0) {
      void vscode.window.showInformationMessage(
        `Accord undid turn ${node.turnId} (${result.landed.length} file${result.landed.length === 1 ? '' : 's'}); the agent will be told with your next prompt.`,
      );
    }
  }

  private async report(pending: Promise<LandResult>): Promise<LandResult> {
    try {
      const result = await pending;
      for (const file of result.conflicts) {
        void vscode.window.showWarningMessage(
          `Accord did not change ${quotedForNotification(nodePath.basename(file.path), 200)}: ${file.conflict ? quotedForNotification(file.conflict, 300) : 'it changed since the agent proposed this'}. Resolve it by hand, then decide again.`,
        );
      }
      return result;
    } catch (error) {
      void vscode.window.showErrorMessage(`Accord could not apply the reviewed change: ${quotedForNotification(error instanceof Error ? error.message : String(error), 400)}`);
      return { landed: [], conflicts: [] };
    }
  }

  /** The pending hunk the keyboard acts on in the active review editor. */
  private hunkAtCursor(): { file: FileReview; index: number } | undefined {
    const editor = vscode.window.activeTextEditor;
    const review = editor && reviewOf(this.store, editor.document.uri);
    if (!editor || !review) return undefined;
    const line = editor.selection.active.line;
    const hunks = pendingHunks(review.file, review.side);
    // Under the cursor, else the next one below it; never one the person scrolled past.
    const hit = hunks.find((h) => line >= h.start && line < h.start + Math.max(1, h.lines)) ?? hunks.find((h) => h.start >= line);
    return hit && { file: review.file, index: hit.index };
  }

  private async moveToHunk(direction: 1 | -1): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const review = editor && reviewOf(this.store, editor.document.uri);
    if (!editor || !review) return;
    const starts = pendingHunks(review.file, review.side).map((h) => h.start);
    if (starts.length === 0) return;
    const line = editor.selection.active.line;
    const next =
      direction === 1
        ? (starts.find((s) => s > line) ?? starts[0]!)
        : ([...starts].reverse().find((s) => s < line) ?? starts[starts.length - 1]!);
    const position = new vscode.Position(Math.min(next, editor.document.lineCount - 1), 0);
    editor.selection = new vscode.Selection(position, position);
    editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** The review a command is about: an id, a review URI (string or Uri), a tree node, or the active editor. */
  private fileFrom(arg: unknown): FileReview | undefined {
    if (typeof arg === 'string') return this.store.get(arg) ?? reviewOf(this.store, vscode.Uri.parse(arg))?.file;
    if (arg instanceof vscode.Uri) return reviewOf(this.store, arg)?.file;
    if (isNode(arg) && arg.type === 'file') return this.store.get(arg.fileId);
    const active = vscode.window.activeTextEditor?.document.uri;
    return active && reviewOf(this.store, active)?.file;
  }

  private filesFrom(arg: unknown): FileReview[] {
    const file = this.fileFrom(arg);
    return file ? [file] : [];
  }

  private groupFiles(node: unknown): FileReview[] {
    if (!isNode(node)) return [];
    if (node.type === 'session') return this.store.inSession(node.sessionId);
    if (node.type === 'turn') return this.store.inTurn(node.sessionId, node.turnId);
    return this.filesFrom(node);
  }

  private own<T extends vscode.Disposable>(value: T): T {
    this.disposables.push(value);
    return value;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function isNode(value: unknown): value is ChangesNode {
  return typeof value === 'object' && value !== null && 'type' in value;
}
