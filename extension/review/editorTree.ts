// The person's files as the review sees them in VS Code: a document with
// unsaved changes is read from its buffer and changed through a WorkspaceEdit,
// so the change joins the editor's undo stack and never replaces text the
// person has not saved. Everything else goes through workspace.fs: a clean
// buffer can lag the disk (an agent just wrote the file), and the disk is the
// truth then; VS Code reloads clean documents by itself.
import * as vscode from 'vscode';
import type { Content } from './fileReview';
import { computeHunks, decodeText, splitLines } from './hunks';
import { linkCheckTop, refuseLinks } from './noLinks';
import type { RealTree } from './landing';

export class EditorTree implements RealTree {
  async read(path: string): Promise<Content> {
    const dirty = dirtyDocument(path);
    if (dirty) return new TextEncoder().encode(dirty.getText());
    try {
      return await vscode.workspace.fs.readFile(vscode.Uri.file(path));
    } catch (error) {
      if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return null;
      throw new Error(`Accord could not read ${path} to apply a reviewed change: ${message(error)}`);
    }
  }

  async write(path: string, content: Content): Promise<void> {
    const uri = vscode.Uri.file(path);
    // The folder it belongs to bounds the check; for a file outside every folder, where it meets one.
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    await refuseLinks(linkCheckTop(folders, uri.fsPath), uri.fsPath);
    const dirty = dirtyDocument(path);
    const text = content === null ? undefined : decodeText(content);
    if (dirty && text !== undefined) return this.editDocument(dirty, text);
    if (content === null) {
      const edit = new vscode.WorkspaceEdit();
      edit.deleteFile(uri, { ignoreIfNotExists: true });
      if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code refused to delete ${path}; it is unchanged.`);
      return;
    }
    await vscode.workspace.fs.writeFile(uri, content);
  }

  /**
   * Replaces only the regions that differ, so cursors, folds and the rest of
   * the undo history stay where they were. The document stays dirty: its
   * unsaved text is the person's to save.
   */
  private async editDocument(document: vscode.TextDocument, text: string): Promise<void> {
    const current = document.getText();
    const lineOffsets = offsets(splitLines(current));
    const edit = new vscode.WorkspaceEdit();
    for (const hunk of computeHunks(current, text)) {
      const start = lineOffsets[hunk.baseStart]!;
      const end = lineOffsets[hunk.baseStart + hunk.baseLines.length]!;
      edit.replace(document.uri, new vscode.Range(document.positionAt(start), document.positionAt(end)), hunk.proposedLines.join(''));
    }
    if (!(await vscode.workspace.applyEdit(edit))) {
      throw new Error(`VS Code refused the edit to ${document.uri.fsPath}; it is unchanged.`);
    }
  }
}

function dirtyDocument(path: string): vscode.TextDocument | undefined {
  const fsPath = vscode.Uri.file(path).fsPath;
  return vscode.workspace.textDocuments.find((d) => d.isDirty && d.uri.scheme === 'file' && d.uri.fsPath === fsPath);
}

/** offsets[i] = character offset where line i starts; offsets[lines.length] = the text's length. */
function offsets(lines: string[]): number[] {
  const out = [0];
  for (const line of lines) out.push(out[out.length - 1]! + line.length);
  return out;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
