// The ACP content of a prompt typed in the panel: its text, its mentions
// (embedded when the agent takes embedded context, else links) and its
// images when the agent takes images.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { WebviewMessageOf } from '../../webview/protocol';
import type { CurrentSession } from './sessionTypes';

export function promptBlocks(session: CurrentSession, message: WebviewMessageOf<'sendPrompt'>): ContentBlock[] {
  const caps = session.host.info?.agentCapabilities?.promptCapabilities ?? {};
  const blocks: ContentBlock[] = [{ type: 'text', text: message.text }];
  for (const m of message.mentions) {
    const range = m.range;
    if (range) {
      const startLine = Math.min(range.startLine, range.endLine);
      const endLine = Math.max(range.startLine, range.endLine);
      const uri = vscode.Uri.file(m.path).with({ fragment: `L${startLine}-L${endLine}` }).toString();
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === m.path);
      const text = doc?.getText(new vscode.Range(startLine - 1, 0, endLine, 0));
      // Embedded context is the preferred form when the agent accepts it; a link (always allowed) otherwise.
      if (caps.embeddedContext && text !== undefined) blocks.push({ type: 'resource', resource: { uri, text, mimeType: 'text/plain' } });
      else blocks.push({ type: 'resource_link', uri, name: m.name || path.basename(m.path) });
      continue;
    }
    blocks.push({ type: 'resource_link', uri: vscode.Uri.file(m.path).toString(), name: m.name || path.basename(m.path) });
  }
  if (caps.image) for (const image of message.images) blocks.push({ type: 'image', mimeType: image.mimeType, data: image.data });
  return blocks;
}
