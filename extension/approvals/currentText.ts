// A file's text as it is now, for an approval dialog that compares the
// agent's claim with the disk. The agent may have put a symbolic link where it
// says a file is; that is reported as unreadable rather than followed.
import * as vscode from 'vscode';
import { pathKind } from '../review/treeSnapshot';

/** `null`: no such file; undefined: it could not be read as a text file (a link, a folder, an error). */
export async function currentText(path: string): Promise<string | null | undefined> {
  const kind = await pathKind(path).catch(() => undefined);
  if (kind === 'missing') return null;
  if (kind !== 'file') return undefined;
  const uri = vscode.Uri.file(path);
  const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === uri.fsPath);
  if (open) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}
