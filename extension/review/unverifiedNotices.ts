// What the person is told about a change whose "before" the agent never
// showed (unverifiedBase.ts): that Reject left the file as it is, and, behind
// a modal that says what gets replaced, the ways to put a version back. File
// names are agent text: quoted, never live links.
import * as vscode from 'vscode';
import { hunkDecision, type Content, type FileReview } from './fileReview';
import { leftInPlace, type UnverifiedBase } from './unverifiedBase';
import { fileLabel } from './landingNotices';

/** The proposal each review was last told about: a rejection of the same text is said once. */
const told = new WeakMap<FileReview, Content>();

/** Whether the person rejected something in `file` that is still in the file because its "before" is unknown. */
function rejectedInPlace(file: FileReview): boolean {
  if (!leftInPlace(file)) return false;
  return file.wholeDecision === 'rejected' || file.hunks.some((_, i) => hunkDecision(file, i) === 'rejected');
}

/** Says which rejected files were left as the agent wrote them, offering the versions that could be put back. */
export function tellLeftInPlace(files: FileReview[], actions: { open(file: FileReview): unknown; restore(file: FileReview, from: 'git' | 'claimed'): unknown }): void {
  const fresh = files.filter((file) => rejectedInPlace(file) && told.get(file) !== file.proposed);
  for (const file of fresh) told.set(file, file.proposed);
  if (fresh.length === 0) return;
  if (fresh.length > 1) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Accord left {0} files as the agent wrote them: the agent did not show what was there before, so Reject cannot tell what to put back. Each review (marked "?" in the Changes view) offers the versions it can restore.', fresh.length),
    );
    return;
  }
  const file = fresh[0]!;
  const git = file.unverified?.git ? [vscode.l10n.t('Restore from Git')] : [];
  const claimed = file.unverified?.claimed ? [vscode.l10n.t("Restore Agent's Claimed Old Text")] : [];
  const open = vscode.l10n.t('Open Review');
  void vscode.window
    .showWarningMessage(
      vscode.l10n.t('Accord left {0} as the agent wrote it: the agent did not show what was there before, so Reject cannot tell what to put back. Nothing was deleted or overwritten.', fileLabel(file.path)),
      ...git,
      ...claimed,
      open,
    )
    .then((choice) => {
      if (choice === open) void actions.open(file);
      else if (choice !== undefined && git.includes(choice)) void actions.restore(file, 'git');
      else if (choice !== undefined && claimed.includes(choice)) void actions.restore(file, 'claimed');
    });
}

/** The modal before a restore: what replaces the file, and that the agent's text there goes. */
export async function askRestore(file: FileReview, from: 'git' | 'claimed'): Promise<boolean> {
  const restore = vscode.l10n.t('Restore');
  const message =
    from === 'git'
      ? file.unverified?.git?.from === 'index'
        ? vscode.l10n.t('Replace {0} with the version staged in git? What is in the file now (the agent\'s change, and any of your own edits that were not staged) is replaced; your edits made since the agent wrote are kept.', fileLabel(file.path))
        : vscode.l10n.t('Replace {0} with the version in git HEAD? What is in the file now (the agent\'s change, and any of your own edits that were not committed) is replaced; your edits made since the agent wrote are kept.', fileLabel(file.path))
      : vscode.l10n.t("Put back the text the agent claims {0} held before its change? Accord could not check that claim: it replaces only the lines the agent says it wrote, with the agent's own old text.", fileLabel(file.path));
  return (await vscode.window.showWarningMessage(message, { modal: true }, restore)) === restore;
}

/** What the diff's left side is, said plainly. */
export function leftSideLabel(unverified: UnverifiedBase): string {
  if (unverified.shown === 'claimed') return vscode.l10n.t('what the agent claims was there (not checked)');
  if (unverified.shown === 'nothing') return vscode.l10n.t('empty, since nothing is known');
  return unverified.git?.from === 'index' ? vscode.l10n.t('the version staged in git') : vscode.l10n.t('the version in git HEAD');
}
