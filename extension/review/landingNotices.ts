// What the person is told about landing decisions and conflicts: a
// notification per file a decision could not land in (with Open Review and
// Resolve in File), why a hunk is a conflict, and writing a conflict between
// conflict markers in the real file. File names and reasons are agent text:
// quoted for notifications, never live links.
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { hunkConflict, hunkDecision, hunkState, type FileReview } from './fileReview';
import type { LandResult, ReviewStore } from './reviewStore';
import { forNotification, quotedForNotification } from '../text/agentText';

/** A file the agent named, for a notification: its base name, quoted, with no live link (agent text). */
export const fileLabel = (path: string) => quotedForNotification(nodePath.basename(path), 200);

/** Awaits a landing and says which files it could not land in, offering `open` and `resolveFile`; an error is said and lands nothing. */
export async function reportLanding(pending: Promise<LandResult>, actions: { open(file: FileReview): unknown; resolveFile(file: FileReview): unknown }): Promise<LandResult> {
  try {
    const result = await pending;
    for (const file of result.conflicts) {
      const open = file.hunks.filter((_, i) => hunkState(file, i) === 'conflict').length;
      const label = quotedForNotification(nodePath.basename(file.path), 200);
      void vscode.window
        .showWarningMessage(
          vscode.l10n.t(
            'Accord could not apply {0} {1}: {2}. Open the review to resolve it, try again after changing your lines, or reject it.',
            open > 0 ? vscode.l10n.t('{0} change(s) to', open) : vscode.l10n.t('the change to'),
            label,
            file.conflict ? quotedForNotification(file.conflict, 300) : vscode.l10n.t('it changed since the agent proposed this'),
          ),
          vscode.l10n.t('Open Review'),
          ...(open > 0 ? [vscode.l10n.t('Resolve in File')] : []),
        )
        .then((choice) => {
          if (choice === vscode.l10n.t('Open Review')) void actions.open(file);
          if (choice === vscode.l10n.t('Resolve in File')) void actions.resolveFile(file);
        });
    }
    return result;
  } catch (error) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Accord could not apply the reviewed change: {0}', quotedForNotification(error instanceof Error ? error.message : String(error), 400)));
    return { landed: [], conflicts: [] };
  }
}

/** Says why hunk `index` of `file` is a conflict and what the person can do. */
export function explainConflict(file: FileReview, index: number): void {
  const why = hunkConflict(file, index);
  if (!why) return;
  const wanted = hunkDecision(file, index) === 'accepted' ? 'accept' : 'take out';
  void vscode.window.showWarningMessage(
    vscode.l10n.t('Accord could not {0} this change in {1}: {2}. Resolve in File puts both versions between conflict markers; or change your lines and Try Again; or {3}.', wanted, fileLabel(file.path), forNotification(why, 400), wanted === 'accept' ? 'Leave Out the change' : 'Keep the change'),
  );
}

/** Writes the conflicts `indices` of `file` into the real file between conflict markers and shows the first. */
export async function resolveInFile(store: ReviewStore, file: FileReview, indices: number[]): Promise<void> {
  try {
    for (const index of indices) {
      const outcome = await store.resolveInFile(file, index);
      if (!outcome.written) {
        void vscode.window.showWarningMessage(vscode.l10n.t('Accord cannot put conflict markers in {0}: {1}.', fileLabel(file.path), forNotification(outcome.why, 400)));
        return;
      }
    }
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file.path), { preview: false });
    const marker = editor.document.getText().split('\n').findIndex((line) => line.startsWith('<<<<<<< '));
    if (marker >= 0) {
      const position = new vscode.Position(marker, 0);
      editor.selection = new vscode.Selection(position, position);
      editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenter);
    }
  } catch (error) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Accord could not write the conflict into {0}: {1}', fileLabel(file.path), quotedForNotification(error instanceof Error ? error.message : String(error), 400)));
  }
}
