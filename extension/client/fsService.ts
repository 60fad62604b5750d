// ACP `fs/*` served from the editor. Reads see unsaved buffers — and, while a
// write of the same session waits for review, the agent's own staged text.
// Writes never touch the file: they are staged for the person's review
// (extension/review) and land only when accepted; the agent is answered as
// soon as the write is staged, so it keeps working.
import * as vscode from 'vscode';
import { RequestError, type ReadTextFileRequest, type WriteTextFileRequest } from '@agentclientprotocol/sdk/unstable';
import { checkAnswerFits, readTextFileBounded, UnreadableFileError } from './boundedFile';
import { sliceLines } from './textSlice';
import { agentPath, AgentPathError } from './agentPaths';

/** Where agent writes go instead of the disk (the review's staged source). */
export interface WriteStaging {
  stageWrite(sessionId: string, path: string, content: string): Promise<void>;
  readStaged(sessionId: string, path: string): string | undefined;
}

export class FsService {
  constructor(private readonly staging: WriteStaging) {}

  async read(params: ReadTextFileRequest): Promise<{ content: string }> {
    const path = fileUri(params.path).fsPath;
    const text = this.staging.readStaged(params.sessionId, path) ?? (await currentText(params.path));
    if (text === undefined) throw RequestError.resourceNotFound(params.path);
    const content = sliceLines(text, params.line, params.limit);
    try {
      checkAnswerFits(params.path, content);
    } catch (error) {
      throw RequestError.invalidParams({ path: params.path }, (error as Error).message);
    }
    return { content };
  }

  async write(params: WriteTextFileRequest): Promise<Record<string, never>> {
    const uri = fileUri(params.path);
    if (!vscode.workspace.getWorkspaceFolder(uri)) {
      throw RequestError.invalidParams({ path: params.path }, `Accord lets agents write only inside the open workspace; ${params.path} is outside it.`);
    }
    try {
      await this.staging.stageWrite(params.sessionId, uri.fsPath, params.content);
    } catch (error) {
      throw RequestError.internalError({ path: params.path }, `Accord could not hold the write to ${params.path} for review: ${error instanceof Error ? error.message : String(error)}`);
    }
    return {};
  }
}

/** The agent's path made canonical first: Uri.file keeps "..", which getWorkspaceFolder would take for inside the workspace. */
function fileUri(path: string): vscode.Uri {
  try {
    return vscode.Uri.file(agentPath(path));
  } catch (error) {
    if (error instanceof AgentPathError) throw RequestError.invalidParams({ path }, error.message);
    throw error;
  }
}

/** The editor's text for `path` (an open, possibly unsaved, document wins), or undefined if it does not exist. */
async function currentText(path: string): Promise<string | undefined> {
  const uri = fileUri(path);
  const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === uri.fsPath);
  if (open) return open.getText();
  try {
    return await readTextFileBounded(uri.fsPath);
  } catch (error) {
    if (error instanceof UnreadableFileError) throw RequestError.invalidParams({ path }, error.message);
    throw RequestError.internalError({ path }, `Could not read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
