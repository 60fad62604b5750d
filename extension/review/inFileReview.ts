// Review inside the normal editor, as Copilot's edit flow does it: a file's
// pending hunks are written into the file, drawn as inserted lines (the lines
// they replaced are in the hover), and each has Keep / Undo and its place
// among the others with previous/next. A file with changes under review that
// are not in it yet offers "Review in File" and "Open Diff" on its first line.
import { readFileSync, statSync } from 'node:fs';
import * as vscode from 'vscode';
import { hunkDecision, landsPerHunk, type FileReview } from './fileReview';
import { placeHunks, type PlacedHunk } from './inFilePlaces';
import type { ReviewStore } from './reviewStore';

/**
 * The text the person has: an unsaved buffer's, else the file's. A clean
 * buffer can lag a write the review just made; reading it then would show the
 * review's own lines as the person's edits.
 */
function textOf(document: vscode.TextDocument): string {
  if (document.isDirty) return document.getText();
  try {
    if (statSync(document.uri.fsPath).size > MAX_READ) return document.getText();
    return readFileSync(document.uri.fsPath, 'utf8');
  } catch {
    return document.getText();
  }
}

const MAX_READ = 8 * 1024 * 1024;

export class InFileReview implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly inserted = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly deleted = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    borderColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
    borderStyle: 'solid',
    borderWidth: '2px 0 0 0',
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly disposables: vscode.Disposable[];
  private contextActive = false;

  constructor(private readonly store: ReviewStore) {
    this.disposables = [
      this.lensesChanged,
      this.inserted,
      this.deleted,
      vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this),
      store.onDidChange(() => this.refresh()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorate()),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document.uri.scheme === 'file' && this.reviewsOf(event.document.uri.fsPath).length > 0) this.decorate();
      }),
    ];
  }

  /** The in-file hunks of the document, in order. */
  placed(document: vscode.TextDocument): PlacedHunk[] {
    const reviews = this.reviewsOf(document.uri.fsPath);
    if (reviews.length === 0) return [];
    return placeHunks(reviews, document.uri.fsPath, textOf(document));
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (document.uri.scheme !== 'file') return [];
    const reviews = this.reviewsOf(document.uri.fsPath);
    if (reviews.length === 0) return [];
    const lenses: vscode.CodeLens[] = [];
    const top = new vscode.Range(0, 0, 0, 0);
    for (const file of reviews) {
      const open = file.hunks.filter((_, i) => hunkDecision(file, i) === 'pending').length;
      if (open === 0 || !landsPerHunk(file)) continue;
      const what = open === 1 ? vscode.l10n.t('1 change from turn {0}', file.turnId) : vscode.l10n.t('{0} changes from turn {1}', open, file.turnId);
      if (file.inFile) {
        lenses.push(
          new vscode.CodeLens(top, { title: `$(sparkle) ${vscode.l10n.t('Accord: {0} in this file', what)}`, command: '' }),
          new vscode.CodeLens(top, { title: `$(check-all) ${vscode.l10n.t('Keep All')}`, command: 'accord.review.acceptFile', arguments: [file.id] }),
          new vscode.CodeLens(top, { title: `$(discard) ${vscode.l10n.t('Undo All')}`, command: 'accord.review.rejectFile', arguments: [file.id] }),
        );
      } else {
        lenses.push(
          new vscode.CodeLens(top, { title: `$(sparkle) ${vscode.l10n.t('Accord: {0} to review', what)}`, command: '' }),
          new vscode.CodeLens(top, { title: `$(edit) ${vscode.l10n.t('Review in File')}`, command: 'accord.review.reviewInFile', arguments: [file.id] }),
          new vscode.CodeLens(top, { title: `$(diff) ${vscode.l10n.t('Open Diff')}`, command: 'accord.review.open', arguments: [file.id] }),
        );
      }
    }
    const placed = this.placed(document);
    placed.forEach(({ file, index, start, edited }, n) => {
      const line = Math.min(start, Math.max(0, document.lineCount - 1));
      const range = new vscode.Range(line, 0, line, 0);
      const args = [file.id, index];
      lenses.push(
        new vscode.CodeLens(range, { title: `$(check) ${edited === undefined ? vscode.l10n.t('Keep') : vscode.l10n.t('Keep Your Version')}`, command: 'accord.review.keepInFile', arguments: args }),
        new vscode.CodeLens(range, { title: `$(discard) ${vscode.l10n.t('Undo')}`, command: 'accord.review.undoInFile', arguments: args }),
        new vscode.CodeLens(range, { title: vscode.l10n.t('{0} of {1}', n + 1, placed.length), command: '' }),
        new vscode.CodeLens(range, { title: '$(arrow-up)', tooltip: vscode.l10n.t('Previous change'), command: 'accord.review.previousInFile', arguments: [document.uri, line] }),
        new vscode.CodeLens(range, { title: '$(arrow-down)', tooltip: vscode.l10n.t('Next change'), command: 'accord.review.nextInFile', arguments: [document.uri, line] }),
      );
    });
    return lenses;
  }

  /** Moves the cursor to the next (or previous) in-file change of the document, wrapping around. */
  async move(direction: 1 | -1, uri?: vscode.Uri, fromLine?: number): Promise<void> {
    const editor = uri ? await vscode.window.showTextDocument(uri, { preview: false }) : vscode.window.activeTextEditor;
    if (!editor) return;
    const starts = this.placed(editor.document).map((p) => p.start);
    if (starts.length === 0) return;
    const line = fromLine ?? editor.selection.active.line;
    const next = direction === 1 ? (starts.find((s) => s > line) ?? starts[0]!) : ([...starts].reverse().find((s) => s < line) ?? starts[starts.length - 1]!);
    const position = new vscode.Position(Math.min(next, editor.document.lineCount - 1), 0);
    editor.selection = new vscode.Selection(position, position);
    editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private reviewsOf(path: string): FileReview[] {
    return this.store.all().filter((f) => f.path === path && !f.undone);
  }

  private refresh(): void {
    this.lensesChanged.fire();
    this.decorate();
  }

  /** `accord.inFileReview`: the active editor has changes to keep or undo (the keys act on them). */
  private updateContext(): void {
    const editor = vscode.window.activeTextEditor;
    const active = editor !== undefined && editor.document.uri.scheme === 'file' && this.placed(editor.document).length > 0;
    if (active === this.contextActive) return;
    this.contextActive = active;
    void vscode.commands.executeCommand('setContext', 'accord.inFileReview', active);
  }

  private decorate(): void {
    this.updateContext();
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme !== 'file') continue;
      const inserted: vscode.DecorationOptions[] = [];
      const deleted: vscode.DecorationOptions[] = [];
      for (const { file, index, start, lines } of this.placed(editor.document)) {
        const hunk = file.hunks[index]!;
        const hover = new vscode.MarkdownString(`**Accord, turn ${file.turnId}** — ${hunk.baseLines.length > 0 ? 'replaces:' : 'adds these lines.'}`);
        // The agent's text is shown as code, never as markdown or links.
        if (hunk.baseLines.length > 0) hover.appendCodeblock(hunk.baseLines.join('').slice(0, 4000), editor.document.languageId);
        if (lines > 0) inserted.push({ range: new vscode.Range(start, 0, start + lines - 1, 0), hoverMessage: hover });
        else deleted.push({ range: new vscode.Range(Math.min(start, editor.document.lineCount - 1), 0, Math.min(start, editor.document.lineCount - 1), 0), hoverMessage: hover });
      }
      editor.setDecorations(this.inserted, inserted);
      editor.setDecorations(this.deleted, deleted);
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
