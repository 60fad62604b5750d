// "Show Full Request": an approval dialog shows the agent's words capped and
// on one line; this opens everything the agent sent for that request, as
// pretty JSON in a read-only editor (plain text: no markup is interpreted, and
// the editor highlights invisible and bidi characters).
import * as vscode from 'vscode';
import type { PendingApproval } from './approvalService';

export const FULL_REQUEST_SCHEME = 'accord-approval';

export class FullRequestDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(FULL_REQUEST_SCHEME, this);

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '';
  }

  async show(approval: PendingApproval): Promise<void> {
    const text = JSON.stringify({ agent: approval.agentName, toolCall: approval.params.toolCall, options: approval.params.options }, null, 2);
    this.texts.set(approval.requestId, text);
    const uri = vscode.Uri.from({ scheme: FULL_REQUEST_SCHEME, path: '/approval-request.json', query: approval.requestId });
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
