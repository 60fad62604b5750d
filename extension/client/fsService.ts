// ACP `fs/*` served from the editor: reads see unsaved buffers, writes record
// the file's baseline (what it was before the agent touched it this session)
// and go through a WorkspaceEdit, so VS Code's undo and review can follow.
import * as vscode from 'vscode';
import { RequestError, type ReadTextFileRequest, type WriteTextFileRequest } from '@agentclientprotocol/sdk';
import { sliceLines } from './textSlice';

export interface Baseline {
  sessionId: string;
  path: string;
  /** null: the file did not exist. */
  text: string | null;
}

export class FsService {
  /** sessionId → path → the text before the agent's first write in that session. */
  private readonly baselines = new Map<string, Map<string, Baseline>>();
  private readonly writeEmitter = new vscode.EventEmitter<Baseline & { newText: string }>();
  /** Fires after each agent write; the review flow listens here. */
  readonly onDidWrite = this.writeEmitter.event;

  async read(params: ReadTextFileRequest): Promise<{ content: string }> {
    const text = await currentText(params.path);
    if (text === undefined) throw RequestError.resourceNotFound(params.path);
    return { content: sliceLines(text, params.line, params.limit) };
  }

  async write(params: WriteTextFileRequest): Promise<Record<string, never>> {
    const uri = fileUri(params.path);
    if (!vscode.workspace.getWorkspaceFolder(uri)) {
      throw RequestError.invalidParams({ path: params.path }, `Accord lets agents write only inside the open workspace; ${params.path} is outside it.`);
    }
    const before = (await currentText(params.path)) ?? null;
    const perSession = this.baselines.get(params.sessionId) ?? new Map<string, Baseline>();
    this.baselines.set(params.sessionId, perSession);
    if (!perSession.has(params.path)) perSession.set(params.path, { sessionId: params.sessionId, path: params.path, text: before });

    const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === uri.fsPath);
    if (open) {
      // An open document changes through the editor (undoable, keeps its view), then is saved so commands see it too.
      const edit = new vscode.WorkspaceEdit();
      edit.replace(uri, new vscode.Range(open.positionAt(0), open.positionAt(open.getText().length)), params.content);
      if (!(await vscode.workspace.applyEdit(edit)) || !(await open.save())) {
        throw RequestError.internalError({ path: params.path }, `VS Code refused the edit to ${params.path}.`);
      }
    } else {
      await vscode.workspace.fs.writeFile(uri, Buffer.from(params.content, 'utf8')); // creates missing folders too
    }
    this.writeEmitter.fire({ sessionId: params.sessionId, path: params.path, text: before, newText: params.content });
    return {};
  }

  baselinesFor(sessionId: string): Baseline[] {
    return [...(this.baselines.get(sessionId)?.values() ?? [])];
  }

  forgetSession(sessionId: string): void {
    this.baselines.delete(sessionId);
  }

  dispose(): void {
    this.writeEmitter.dispose();
  }
}

function fileUri(path: string): vscode.Uri {
  if (!path.startsWith('/') && !/^[a-zA-Z]:[\\/]/.test(path)) {
    throw RequestError.invalidParams({ path }, `ACP paths must be absolute; got "${path}".`);
  }
  return vscode.Uri.file(path);
}

/** The editor's text for `path` (an open, possibly unsaved, document wins), or undefined if it does not exist. */
async function currentText(path: string): Promise<string | undefined> {
  const uri = fileUri(path);
  const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === uri.fsPath);
  if (open) return open.getText();
  try {
    return Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
  } catch (error) {
    if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return undefined;
    throw RequestError.internalError({ path }, `Could not read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
