// "Show Diff" for an edit awaiting approval: both sides are read-only virtual
// documents, so nothing touches disk until the person allows the change.
import { agentFileName } from '../text/agentText';
import * as vscode from 'vscode';
import type { ProposedFile } from './effectSummary';

export const PROPOSED_SCHEME = 'accord-proposed';

export class DiffPreview implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private counter = 0;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this);

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '';
  }

  /** Opens VS Code's diff editor: the file as the agent saw it ↔ as it proposes it. */
  async show(file: ProposedFile): Promise<void> {
    const id = String(++this.counter);
    const name = agentFileName(file.path);
    const side = (which: string, text: string) => {
      const key = `${id}-${which}`;
      this.texts.set(key, text);
      return vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: file.path, query: key });
    };
    const left = side('before', file.oldText ?? '');
    const right = side('after', file.newText);
    const label = file.oldText === null ? vscode.l10n.t('{0} (new file, proposed)', name) : vscode.l10n.t('{0} (current ↔ proposed)', name);
    await vscode.commands.executeCommand('vscode.diff', left, right, label, { preview: true, preserveFocus: false });
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
