// ACP diff content from a tool call (`{path, oldText, newText}`) shown in VS
// Code's diff editor when no review holds that change (an agent that only
// described the edit, or one the person already decided): read-only, no
// hunk actions, same editor as the review.
import * as vscode from 'vscode';
import { agentFileName } from '../text/agentText';

export const TOOL_DIFF_SCHEME = 'accord-tool-diff';
const MAX_KEPT = 200;

export class ToolDiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(TOOL_DIFF_SCHEME, this);

  async open(key: string, diff: { path: string; oldText: string | null; newText: string }): Promise<void> {
    const side = (name: 'old' | 'new', text: string) => {
      const query = `${name}\u0000${key}`;
      this.texts.set(query, text);
      return vscode.Uri.from({ scheme: TOOL_DIFF_SCHEME, path: vscode.Uri.file(diff.path).path, query });
    };
    while (this.texts.size > MAX_KEPT) this.texts.delete(this.texts.keys().next().value as string);
    const title = vscode.l10n.t('{0} (proposed by the agent)', agentFileName(diff.path));
    await vscode.commands.executeCommand('vscode.diff', side('old', diff.oldText ?? ''), side('new', diff.newText), title, { preview: true });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? 'This proposed change is no longer available.\n';
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
