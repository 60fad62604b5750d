// Lenient readers for ACP payload pieces: take what is well formed, drop the
// rest. The envelope was validated; the payload is the agent's and may be
// newer or sloppier than what we know.
import type { Attachment, ContentBlock, TerminalContent, ToolContent, ToolLocation } from './types';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asBlock(value: unknown): ContentBlock | undefined {
  return isRecord(value) && typeof value.type === 'string' ? (value as ContentBlock) : undefined;
}

/** Text a block contributes to a message body; '' for non-text blocks. */
export function blockText(block: ContentBlock | undefined): string {
  if (!block) return '';
  if (block.type === 'text') return str(block.text) ?? '';
  return '';
}

const SAFE_IMAGE = /^image\/(png|jpeg|gif|webp)$/;

/** Non-text blocks of a user message shown as attachment chips. */
export function blockAttachment(block: ContentBlock | undefined): Attachment | undefined {
  if (!block || block.type === 'text') return undefined;
  if (block.type === 'resource_link') {
    const uri = str(block.uri);
    return { kind: 'resource_link', name: str(block.title) ?? str(block.name) ?? uri ?? 'link', uri };
  }
  if (block.type === 'resource' && isRecord(block.resource)) {
    const uri = str(block.resource.uri);
    return { kind: 'resource', name: uri ? baseName(uri) : 'resource', uri };
  }
  if (block.type === 'image') {
    const mime = str(block.mimeType) ?? '';
    const data = str(block.data);
    const dataUrl = data && SAFE_IMAGE.test(mime) && /^[A-Za-z0-9+/=\s]*$/.test(data) ? `data:${mime};base64,${data}` : undefined;
    return { kind: 'image', name: str(block.uri) ? baseName(str(block.uri) as string) : 'image', dataUrl };
  }
  if (block.type === 'audio') return { kind: 'audio', name: 'audio' };
  return { kind: 'other', name: block.type };
}

export function baseName(pathOrUri: string): string {
  const trimmed = pathOrUri.replace(/[\\/]+$/, '');
  return trimmed.slice(Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\')) + 1) || trimmed;
}

export function readLocations(value: unknown): ToolLocation[] {
  if (!Array.isArray(value)) return [];
  const out: ToolLocation[] = [];
  for (const entry of value) {
    if (!isRecord(entry) || typeof entry.path !== 'string') continue;
    const line = typeof entry.line === 'number' && Number.isInteger(entry.line) && entry.line > 0 ? entry.line : undefined;
    out.push(line === undefined ? { path: entry.path } : { path: entry.path, line });
  }
  return out;
}

export function readToolContent(value: unknown): ToolContent[] {
  if (!Array.isArray(value)) return [];
  const out: ToolContent[] = [];
  for (const entry of value) {
    if (!isRecord(entry)) continue;
    if (entry.type === 'content') {
      const block = asBlock(entry.content);
      if (block?.type === 'text') out.push({ type: 'text', text: blockText(block) });
      else if (block?.type === 'resource_link') out.push({ type: 'other', label: str(block.uri) ?? 'link' });
      else if (block) out.push({ type: 'other', label: block.type });
    } else if (entry.type === 'diff' && typeof entry.path === 'string' && typeof entry.newText === 'string') {
      out.push({ type: 'diff', path: entry.path, oldText: str(entry.oldText) ?? null, newText: entry.newText });
    } else if (entry.type === 'terminal' && typeof entry.terminalId === 'string') {
      out.push({ type: 'terminal', terminalId: entry.terminalId, output: terminalOutput(entry) });
    }
  }
  return out;
}

/** Agents that own their terminals put the output in `_meta` (Zed's convention). */
function terminalOutput(entry: Record<string, unknown>): string | undefined {
  const meta = entry._meta;
  if (!isRecord(meta)) return undefined;
  const output = meta.terminal_output;
  if (typeof output === 'string') return output;
  if (isRecord(output) && typeof output.data === 'string') return output.data;
  return undefined;
}

/** The most terminal output the panel keeps per terminal (the end is what matters; the start is dropped). */
export const TERMINAL_KEEP = 200_000;

/** Appends to a terminal's output, dropping from the start past TERMINAL_KEEP. */
export function appendTerminal(terminal: TerminalContent, data: string): void {
  const joined = (terminal.output ?? '') + data;
  if (joined.length <= TERMINAL_KEEP) {
    terminal.output = joined;
    return;
  }
  let start = joined.length - TERMINAL_KEEP;
  // Never start between the halves of a surrogate pair.
  if (start < joined.length && /[\uDC00-\uDFFF]/.test(joined[start]!)) start++;
  terminal.output = joined.slice(start);
  terminal.dropped = true;
}

export function readExit(value: unknown): TerminalContent['exit'] | undefined {
  if (!isRecord(value)) return undefined;
  const code = value.exit_code ?? value.exitCode;
  const signal = value.signal;
  return { exitCode: typeof code === 'number' && Number.isInteger(code) ? code : null, signal: typeof signal === 'string' ? signal.slice(0, 40) : null };
}
