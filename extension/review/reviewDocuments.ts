// The virtual documents on either side of the review diff editor, and the
// "Accept hunk" / "Reject hunk" CodeLens on the pending hunks. The document's
// path is the real file's (so language and icon are right); the query names
// the review.
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { hunkDecision, isPending, type FileReview } from './fileReview';
import type { ReviewStore } from './reviewStore';
import { pendingHunks, sideText, type Side } from './reviewSides';
import { hunkKey } from './hunks';
import { leftInPlace } from './unverifiedBase';
import { leftSideLabel } from './unverifiedNotices';

export const BASE_SCHEME = 'accord-review-base';
export const PROPOSED_SCHEME = 'accord-review-proposed';

export function reviewUri(file: FileReview, side: Side): vscode.Uri {
  return vscode.Uri.from({ scheme: side === 'base' ? BASE_SCHEME : PROPOSED_SCHEME, path: vscode.Uri.file(file.path).path, query: file.id });
}

/** The review and side a document shows, if it is one of ours. */
export function reviewOf(store: ReviewStore, uri: vscode.Uri): { file: FileReview; side: Side } | undefined {
  if (uri.scheme !== BASE_SCHEME && uri.scheme !== PROPOSED_SCHEME) return undefined;
  const file = store.get(uri.query);
  return file && { file, side: uri.scheme === BASE_SCHEME ? 'base' : 'proposed' };
}

export class ReviewDocuments implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly store: ReviewStore) {
    this.disposables = [
      vscode.workspace.registerTextDocumentContentProvider(BASE_SCHEME, this),
      vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this),
      vscode.languages.registerCodeLensProvider([{ scheme: PROPOSED_SCHEME }, { scheme: BASE_SCHEME }], this),
      store.onDidChange(() => this.refresh()),
      this.changed,
      this.lensesChanged,
    ];
    // Tabs restored from before a reload, or of a closed session, show nothing under review: they go, and their diagnostics with them.
    setTimeout(() => this.closeStale(), 0);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const review = reviewOf(this.store, uri);
    // Empty rather than a sentence: a language server would report a sentence as errors in a .js or .ts tab.
    if (!review) return '';
    return sideText(review.file, review.side);
  }

  /** Lenses sit on the proposed side; the base side gets them only for a deletion (the right side is empty). */
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const review = reviewOf(this.store, document.uri);
    if (!review) return [];
    const { file, side } = review;
    if (side === 'base' && file.proposed !== null) return [];
    const unknown = unverifiedLenses(file, document.uri.toString());
    if (!isPending(file)) return unknown;
    const lenses: vscode.CodeLens[] = [];
    const lastLine = Math.max(0, document.lineCount - 1);
    for (const hunk of pendingHunks(file, side)) {
      const line = Math.min(hunk.start, lastLine);
      const range = new vscode.Range(line, 0, line, 0);
      const args = [document.uri.toString(), hunk.index];
      if (hunk.state === 'conflict' && this.store.isLanding(file)) {
        lenses.push(new vscode.CodeLens(range, { title: `$(sync~spin) ${vscode.l10n.t('Applying…')}`, command: '' }));
        continue;
      }
      if (hunk.state === 'conflict') {
        lenses.push(...conflictLenses(file, hunk.index, range, args));
        continue;
      }
      lenses.push(
        new vscode.CodeLens(range, { title: `$(check) ${vscode.l10n.t('Accept hunk')}`, command: 'accord.review.acceptHunk', arguments: args }),
        new vscode.CodeLens(range, { title: `$(discard) ${file.unverified ? vscode.l10n.t('Reject hunk (the file stays as it is)') : vscode.l10n.t('Reject hunk')}`, command: 'accord.review.rejectHunk', arguments: args }),
      );
    }
    const missing = this.store.contextNotInFile(file);
    if (missing.length > 0) {
      const what = missing.map((m) => vscode.l10n.t('{0} from turn {1}', m.count, m.turnId)).join(', ');
      lenses.unshift(
        new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), {
          title: `$(info) ${
            missing.reduce((n, m) => n + m.count, 0) === 1
              ? vscode.l10n.t("Unchanged lines are the agent's text after turn {0}; {1} of its earlier changes is not in your file", this.store.get(file.builtOn!)?.turnId ?? '?', what)
              : vscode.l10n.t("Unchanged lines are the agent's text after turn {0}; {1} of its earlier changes are not in your file", this.store.get(file.builtOn!)?.turnId ?? '?', what)
          }`,
          command: '',
        }),
      );
    }
    lenses.unshift(...unknown);
    if (file.hunks.length === 0 || file.binary || file.movedFrom !== undefined) {
      const top = new vscode.Range(0, 0, 0, 0);
      const moved = file.movedFrom !== undefined ? nodePath.basename(file.movedFrom) : undefined;
      lenses.unshift(
        new vscode.CodeLens(top, { title: `$(check) ${moved !== undefined ? vscode.l10n.t('Accept move from {0}', moved) : vscode.l10n.t('Accept file')}`, command: 'accord.review.acceptFile', arguments: [document.uri.toString()] }),
        new vscode.CodeLens(top, { title: `$(discard) ${moved !== undefined ? vscode.l10n.t('Reject move from {0}', moved) : vscode.l10n.t('Reject file')}`, command: 'accord.review.rejectFile', arguments: [document.uri.toString()] }),
      );
    }
    return lenses;
  }

  private refresh(): void {
    // Lenses first: they follow a decision at once, before the documents' text is asked for again.
    this.lensesChanged.fire();
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme === BASE_SCHEME || document.uri.scheme === PROPOSED_SCHEME) this.changed.fire(document.uri);
    }
    this.closeStale();
  }

  /** Closes review tabs whose review no longer exists. */
  private closeStale(): void {
    const stale: vscode.Tab[] = [];
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const uris = tab.input instanceof vscode.TabInputTextDiff ? [tab.input.original, tab.input.modified] : tab.input instanceof vscode.TabInputText ? [tab.input.uri] : [];
        const ours = uris.filter((u) => u.scheme === BASE_SCHEME || u.scheme === PROPOSED_SCHEME);
        if (ours.length > 0 && ours.every((u) => !reviewOf(this.store, u))) stale.push(tab);
      }
    }
    if (stale.length > 0) void vscode.window.tabGroups.close(stale, true).then(undefined, () => undefined);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * Every conflict has a way out: see why, finish it between conflict markers in
 * the file, try again after changing one's own lines, or give up on the
 * change (which always succeeds: nothing needs to move).
 */
function conflictLenses(file: FileReview, index: number, range: vscode.Range, args: unknown[]): vscode.CodeLens[] {
  const resolving = file.resolving.has(file.hunks[index] ? hunkKeyOf(file, index) : '');
  const wanted = hunkDecision(file, index);
  if (resolving) {
    return [new vscode.CodeLens(range, { title: `$(warning) ${vscode.l10n.t('Conflict being finished in the file: pick a side on its markers')}`, command: 'accord.review.explainConflict', arguments: args })];
  }
  return [
    new vscode.CodeLens(range, { title: `$(warning) ${vscode.l10n.t('Conflict')}`, command: 'accord.review.explainConflict', arguments: args }),
    new vscode.CodeLens(range, { title: `$(git-merge) ${vscode.l10n.t('Resolve in File')}`, command: 'accord.review.resolveHunk', arguments: args }),
    new vscode.CodeLens(range, { title: `$(refresh) ${vscode.l10n.t('Try Again')}`, command: wanted === 'rejected' ? 'accord.review.rejectHunk' : 'accord.review.acceptHunk', arguments: args }),
    wanted === 'rejected'
      ? new vscode.CodeLens(range, { title: `$(check) ${vscode.l10n.t('Keep Change')}`, command: 'accord.review.acceptHunk', arguments: args })
      : new vscode.CodeLens(range, { title: `$(discard) ${vscode.l10n.t('Leave Out')}`, command: 'accord.review.rejectHunk', arguments: args }),
  ];
}

/**
 * A change whose "before" the agent never showed: the first line says so and
 * what the left side is, and offers the versions that can be put back (each
 * behind a modal) while the agent's text is still in the file.
 */
function unverifiedLenses(file: FileReview, uri: string): vscode.CodeLens[] {
  const unverified = file.unverified;
  if (!unverified) return [];
  const top = new vscode.Range(0, 0, 0, 0);
  const lenses = [
    new vscode.CodeLens(top, {
      title: leftInPlace(file)
        ? `$(warning) ${vscode.l10n.t('The agent did not show what was there before. Left side: {0}. Reject leaves the file as it is.', leftSideLabel(unverified))}`
        : `$(history) ${vscode.l10n.t('The agent did not show what was there before; you put back {0}.', unverified.restored === 'git' ? vscode.l10n.t('the version from git') : vscode.l10n.t("the agent's claimed old text"))}`,
      command: '',
    }),
  ];
  if (unverified.git && unverified.restored !== 'git') {
    const staged = unverified.git.from === 'index';
    lenses.push(new vscode.CodeLens(top, { title: `$(history) ${staged ? vscode.l10n.t('Restore Staged Version from Git') : vscode.l10n.t('Restore from Git HEAD')}`, command: 'accord.review.restoreBase', arguments: [uri, 'git'] }));
  }
  if (unverified.claimed && unverified.restored !== 'claimed') {
    lenses.push(new vscode.CodeLens(top, { title: `$(history) ${vscode.l10n.t("Restore Agent's Claimed Old Text")}`, command: 'accord.review.restoreBase', arguments: [uri, 'claimed'] }));
  }
  return lenses;
}

function hunkKeyOf(file: FileReview, index: number): string {
  return hunkKey(file.hunks[index]!);
}
