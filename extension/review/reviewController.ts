// The review in VS Code: one store of changes, the diff documents and their
// CodeLens, the Changes view, the commands and keys, and the three change
// sources. The session wiring creates the sources it needs and feeds them turn
// and tool-call events; everything else happens here.
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { hunkState, type Decision, type FileReview } from './fileReview';
import { ReviewStore, type LandResult } from './reviewStore';
import { sameContent } from './contentMerge';
import { EditorTree } from './editorTree';
import { ReviewDocuments, reviewUri } from './reviewDocuments';
import { ChangesTree } from './changesTree';
import { fileFrom, filesFrom, groupFiles, hunkAtCursor, isNode, moveToHunk } from './reviewTargets';
import { explainConflict, fileLabel, reportLanding, resolveInFile } from './landingNotices';
import { StagedWriteSource, type EarlierSnapshots } from './stagedSource';
import { DirectDiskSource, type DirectSourceOptions } from './directSource';
import { IsolatedWorkspaceSource, type AgentExtCall, type IsolatedSourceOptions } from './isolatedSource';
import { ToolDiffDocuments } from './toolDiffDocuments';
import { InFileReview } from './inFileReview';
import type { PlacedHunk } from './inFilePlaces';
import { agentFileName, forNotification, quotedForNotification } from '../text/agentText';
import { gitVersionOf } from './gitVersion';
import { askRestore, tellLeftInPlace } from './unverifiedNotices';

/** Folders whose churn is never an agent's edit to review. */
const IGNORED_SEGMENTS = ['/.git/', '/node_modules/'];

export class ReviewController implements vscode.Disposable {
  private readonly tree = new EditorTree();
  readonly store = new ReviewStore(this.tree);
  readonly documents = new ReviewDocuments(this.store);
  /** sessionId → how the person tells that session apart (set by the session wiring). */
  private readonly sessionLabels = new Map<string, string>();
  readonly changes = new ChangesTree(this.store, (sessionId) => this.sessionLabel(sessionId));
  /** Keep/Undo per hunk inside the normal editor. */
  readonly inFile = new InFileReview(this.store);
  /** ACP diff content of a tool call, for changes no review holds. */
  readonly toolDiffs = new ToolDiffDocuments();
  private readonly disposables: vscode.Disposable[] = [this.documents, this.changes, this.toolDiffs, this.inFile];

  constructor() {
    const command = (id: string, run: (...args: unknown[]) => unknown) =>
      this.disposables.push(vscode.commands.registerCommand(id, run));
    command('accord.review.open', (arg) => this.open(fileFrom(this.store, arg)));
    command('accord.review.acceptHunk', (uri, index) => this.decideHunk(uri, index, 'accepted'));
    command('accord.review.rejectHunk', (uri, index) => this.decideHunk(uri, index, 'rejected'));
    command('accord.review.nextHunk', () => moveToHunk(this.store, 1));
    command('accord.review.previousHunk', () => moveToHunk(this.store, -1));
    command('accord.review.acceptFile', (arg) => this.decideFiles(filesFrom(this.store, arg), 'accepted'));
    command('accord.review.rejectFile', (arg) => this.decideFiles(filesFrom(this.store, arg), 'rejected'));
    command('accord.review.acceptTurn', (node) => this.decideFiles(groupFiles(this.store, node), 'accepted'));
    command('accord.review.rejectTurn', (node) => this.decideFiles(groupFiles(this.store, node), 'rejected'));
    command('accord.review.acceptSession', (node) => this.decideFiles(groupFiles(this.store, node), 'accepted'));
    command('accord.review.rejectSession', (node) => this.decideFiles(groupFiles(this.store, node), 'rejected'));
    command('accord.review.acceptAll', () => this.decideFiles(this.store.all(), 'accepted'));
    command('accord.review.rejectAll', () => this.decideFiles(this.store.all(), 'rejected'));
    command('accord.review.undoTurn', (node) => this.undoTurn(node));
    command('accord.review.resolveHunk', (uri, index) => this.resolveHunk(uri, index));
    command('accord.review.resolveFile', (arg) => this.resolveFile(fileFrom(this.store, arg)));
    command('accord.review.explainConflict', (uri, index) => this.explainConflict(uri, index));
    command('accord.review.restoreBase', (arg, from) => this.restoreBase(fileFrom(this.store, arg), from));
    command('accord.review.reviewInFile', (arg) => this.reviewInFile(fileFrom(this.store, arg)));
    command('accord.review.keepInFile', (id, index) => this.decideInFile(id, index, 'accepted'));
    command('accord.review.undoInFile', (id, index) => this.decideInFile(id, index, 'rejected'));
    command('accord.review.nextInFile', (uri, line) => this.inFile.move(1, uri instanceof vscode.Uri ? uri : undefined, typeof line === 'number' ? line : undefined));
    command('accord.review.previousInFile', (uri, line) => this.inFile.move(-1, uri instanceof vscode.Uri ? uri : undefined, typeof line === 'number' ? line : undefined));
    // A conflict finished between markers is decided once the person has picked a side everywhere.
    const settle = (document: vscode.TextDocument) => {
      if (document.uri.scheme === 'file' && this.store.resolvingPaths().has(document.uri.fsPath)) this.store.settleResolutions(document.uri.fsPath, document.getText());
    };
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((event) => settle(event.document)),
      vscode.workspace.onDidSaveTextDocument(settle),
    );
  }

  /** Opens a change in VS Code's diff editor (binary files: the summary alone, not diffed). */
  async open(file: FileReview | undefined): Promise<void> {
    if (!file) return;
    const name = agentFileName(file.path);
    if (file.binary) {
      await vscode.window.showTextDocument(reviewUri(file, 'proposed'), { preview: false });
      return;
    }
    // A later turn is diffed against the agent's text after the turn before; the title says so. The session is named too.
    const builtOn = file.builtOn !== undefined ? this.store.get(file.builtOn) : undefined;
    const where = vscode.l10n.t('{0}, turn {1}', this.sessionLabel(file.sessionId), file.turnId);
    const title = file.unverified
      ? vscode.l10n.t('{0} (Accord review: {1}: the agent did not show what was there before)', name, where)
      : builtOn
        ? vscode.l10n.t('{0} (Accord review: {1}: changes since turn {2})', name, where, builtOn.turnId)
        : vscode.l10n.t('{0} (Accord review: {1})', name, where);
    await vscode.commands.executeCommand('vscode.diff', reviewUri(file, 'base'), reviewUri(file, 'proposed'), title, { preview: false });
  }

  /** Names a session in the Changes view and review tabs: agent and start time rather than an id prefix. */
  labelSession(sessionId: string, label: string): void {
    const taken = new Set([...this.sessionLabels].filter(([id]) => id !== sessionId).map(([, l]) => l));
    let unique = label;
    for (let n = 2; taken.has(unique); n++) unique = `${label} (${n})`;
    this.sessionLabels.set(sessionId, unique);
  }

  sessionLabel(sessionId: string): string {
    return this.sessionLabels.get(sessionId) ?? `session ${sessionId}`;
  }

  /** A source for `fs/write_text_file` from third-party agents. */
  createStagedSource(snapshots?: EarlierSnapshots): StagedWriteSource {
    return this.own(new StagedWriteSource(this.store, this.tree, snapshots));
  }

  /** A source for agents that write straight to disk; watches the workspace for their writes. */
  createDirectSource(more: Pick<DirectSourceOptions, 'failed' | 'projectRoot'> = {}): DirectDiskSource {
    const source = this.own(
      new DirectDiskSource(this.store, this.tree, {
        projectRoot: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
        projectFolder: (path) => vscode.workspace.getWorkspaceFolder(vscode.Uri.file(path))?.uri.fsPath,
        gitVersion: async (path) => {
          const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(path))?.uri.fsPath;
          return folder === undefined ? { tracked: 'unknown', why: 'it is outside your workspace folders' } : gitVersionOf(path, folder);
        },
        ...more,
        knownPaths: () => vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file').map((d) => d.uri.fsPath),
        handledElsewhere: (sessionId, path, now) =>
          this.store.inSession(sessionId).some((f) => f.path === path && f.origin !== 'direct' && sameContent(f.landed.get(path) ?? null, now)),
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
    const target = typeof indexArg === 'number' ? { file: fileFrom(this.store, uriArg), index: indexArg } : hunkAtCursor(this.store);
    if (!target?.file) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Accord: no change to decide here. Put the cursor in a highlighted change of an Accord review.'));
      return;
    }
    const result = await this.report(this.store.decideHunk(target.file, target.index, decision));
    for (const { why } of result.refused ?? []) void vscode.window.showInformationMessage(vscode.l10n.t('Accord: nothing was changed in {0}: {1}.', fileLabel(target.file.path), forNotification(why, 400)));
  }

  /** Decides what is still open; says so when there was nothing (every change already decided). */
  private async decideFiles(files: FileReview[], decision: Exclude<Decision, 'pending'>): Promise<void> {
    if (files.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Accord: there are no agent changes under review here.'));
      return;
    }
    const result = await this.report(this.store.decideFiles(files, decision));
    if (result.landed.length + result.conflicts.length === 0) {
      // Whole sentences per case: a translation cannot be built from translated fragments.
      const one = files.length === 1 ? fileLabel(files[0]!.path) : undefined;
      const accepting = decision === 'accepted';
      void vscode.window.showInformationMessage(
        one !== undefined
          ? accepting
            ? vscode.l10n.t('Accord: nothing to accept in {0}: every change is already decided. Use Undo Turn to take back what a turn landed.', one)
            : vscode.l10n.t('Accord: nothing to reject in {0}: every change is already decided. Use Undo Turn to take back what a turn landed.', one)
          : accepting
            ? vscode.l10n.t('Accord: nothing to accept in these {0} files: every change is already decided. Use Undo Turn to take back what a turn landed.', files.length)
            : vscode.l10n.t('Accord: nothing to reject in these {0} files: every change is already decided. Use Undo Turn to take back what a turn landed.', files.length),
      );
    }
  }

  private async undoTurn(node: unknown): Promise<void> {
    if (!isNode(node) || node.type !== 'turn') return;
    const result = await this.report(this.store.undoTurn(node.sessionId, node.turnId));
    const files = result.landed.length + result.conflicts.length;
    const stuck = result.conflicts.length > 0 ? `; ${result.conflicts.length} could not be fully reverted because you edited the same lines (see the Changes view)` : '';
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Accord undid turn {0} only ({1} file{2}; other turns\' changes are kept){3}. The agent will be told with your next prompt.', node.turnId, files, files === 1 ? '' : 's', stuck),
    );
  }

  /** Writes the file's pending hunks into it and shows it, with Keep/Undo on each. */
  private async reviewInFile(file: FileReview | undefined): Promise<void> {
    if (!file) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Accord: no change under review here to review in its file.'));
      return;
    }
    const result = await this.report(this.store.reviewInFile(file));
    for (const { why } of result.refused ?? []) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Accord cannot review {0} in the file: {1}.', fileLabel(file.path), forNotification(why, 400)));
      return;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(file.path), { preview: false });
    await this.inFile.move(1, undefined, -1);
  }

  /** Keep (accept where it is) or Undo (take out) one hunk written into the file, by the review's id and hunk index; the keyboard acts on the hunk at the cursor. */
  private async decideInFile(idArg: unknown, indexArg: unknown, decision: Exclude<Decision, 'pending'>): Promise<void> {
    let target: PlacedHunk | { file: FileReview; index: number; edited?: undefined } | undefined;
    const editor = vscode.window.activeTextEditor;
    if (typeof idArg === 'string' && typeof indexArg === 'number') {
      const file = this.store.get(idArg);
      const document = file && vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === file.path);
      target = (document && this.inFile.placed(document).find((p) => p.file === file && p.index === indexArg)) ?? (file && { file, index: indexArg });
    } else if (editor) {
      const line = editor.selection.active.line;
      const placed = this.inFile.placed(editor.document);
      target = placed.find((p) => line >= p.start && line < p.start + Math.max(1, p.lines)) ?? placed.find((p) => p.start >= line);
    }
    if (!target) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Accord: no change under review at the cursor.'));
      return;
    }
    // Keep on lines the person edited keeps their version, and the agent is told what it became.
    const result =
      decision === 'accepted' && target.edited !== undefined
        ? this.store.keepEdited(target.file, target.index, target.edited)
        : await this.report(this.store.decideHunk(target.file, target.index, decision));
    for (const { why } of result.refused ?? []) void vscode.window.showInformationMessage(vscode.l10n.t('Accord: nothing was changed: {0}.', forNotification(why, 400)));
  }

  /** Writes a conflict into the real file between conflict markers and shows it there. */
  private async resolveHunk(uriArg: unknown, indexArg: unknown): Promise<void> {
    const file = fileFrom(this.store, uriArg);
    if (!file || typeof indexArg !== 'number') return;
    await resolveInFile(this.store, file, [indexArg]);
  }

  private async resolveFile(file: FileReview | undefined): Promise<void> {
    if (!file) return;
    const conflicts = file.hunks.map((_, i) => i).filter((i) => hunkState(file, i) === 'conflict');
    if (conflicts.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Accord: {0} has no conflict to resolve{1}.', fileLabel(file.path), file.conflict ? ` (${quotedForNotification(file.conflict, 300)})` : ''));
      return;
    }
    await resolveInFile(this.store, file, conflicts);
  }

  private explainConflict(uriArg: unknown, indexArg: unknown): void {
    const file = fileFrom(this.store, uriArg);
    if (file && typeof indexArg === 'number') explainConflict(file, indexArg);
  }

  /** The person's choice to put back git's version or the agent's claimed old text, after a modal that says what is replaced. */
  private async restoreBase(file: FileReview | undefined, from: unknown): Promise<void> {
    if (!file?.unverified || (from !== 'git' && from !== 'claimed')) return;
    if (!(await askRestore(file, from))) return;
    const outcome = await this.store.restoreBase(file, from);
    if (!outcome.written) void vscode.window.showWarningMessage(vscode.l10n.t('Accord did not change {0}: {1}.', fileLabel(file.path), forNotification(outcome.why ?? '', 400)));
  }

  private async report(pending: Promise<LandResult>): Promise<LandResult> {
    const result = await reportLanding(pending, { open: (file) => this.open(file), resolveFile: (file) => this.resolveFile(file) });
    // A rejected change whose "before" nobody saw is still in the file: said at once, with the ways to put a version back.
    tellLeftInPlace([...result.landed, ...result.conflicts], { open: (file) => this.open(file), restore: (file, from) => this.restoreBase(file, from) });
    return result;
  }

  private own<T extends vscode.Disposable>(value: T): T {
    this.disposables.push(value);
    return value;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
