// Small services the chat panel asks for: @-mention completions (workspace
// files and the editor selection) and opening a link the person clicked
// (web links only, after confirmation).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FileCompletion } from '../../webview/protocol';
import { agentLine, quotedForNotification } from '../text/agentText';

const MAX_COMPLETIONS = 50;
const EXCLUDE = '{**/node_modules/**,**/.git/**,**/dist/**,**/out/**}';

export async function fileCompletions(query: string): Promise<FileCompletion[]> {
  const items: FileCompletion[] = [];
  const editor = vscode.window.activeTextEditor;
  if (editor && !editor.selection.isEmpty && editor.document.uri.scheme === 'file') {
    const start = editor.selection.start.line + 1;
    const end = editor.selection.end.line + 1;
    const name = path.basename(editor.document.uri.fsPath);
    items.push({ path: editor.document.uri.fsPath, range: { startLine: start, endLine: end }, label: `${name}:${start}-${end}`, detail: 'selection', kind: 'selection' });
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return items;
  // Glob special characters in the query are matched literally.
  const safe = query.replace(/[\\*?[\]{}!]/g, '');
  const pattern = new vscode.RelativePattern(folder, safe ? `**/*${safe}*` : '**/*');
  const files = await vscode.workspace.findFiles(pattern, EXCLUDE, MAX_COMPLETIONS);
  for (const uri of files.sort((a, b) => a.fsPath.length - b.fsPath.length)) {
    const relative = path.relative(folder.uri.fsPath, uri.fsPath);
    items.push({ path: uri.fsPath, label: path.basename(uri.fsPath), detail: path.dirname(relative) === '.' ? '' : path.dirname(relative), kind: 'file' });
  }
  return items.slice(0, MAX_COMPLETIONS);
}

/** Opens http(s) and mailto links after the person confirms; anything else is refused. */
export async function openLink(href: string): Promise<void> {
  let uri: vscode.Uri;
  try {
    uri = vscode.Uri.parse(href, true);
  } catch {
    return void vscode.window.showWarningMessage(vscode.l10n.t('Accord did not open {0}: it is not a valid link.', quotedForNotification(href, 200)));
  }
  if (!['http', 'https', 'mailto'].includes(uri.scheme)) {
    return void vscode.window.showWarningMessage(vscode.l10n.t('Accord opens only web and mail links, not {0} links.', quotedForNotification(`${uri.scheme}:`, 40)));
  }
  const open = 'Open';
  const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Open this link from the chat?'), { modal: true, detail: agentLine(uri.toString(true), 2000) }, open);
  if (choice === open) await vscode.env.openExternal(uri);
}
