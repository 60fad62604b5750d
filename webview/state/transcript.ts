// Transcript updates: messages, thoughts, tool calls, compactions. Chunks
// aggregate by messageId (or onto the previous item of the same kind when the
// agent sends none); tool_call_update patches only the fields it carries.
import { appendTerminal, asBlock, blockAttachment, blockText, isRecord, readExit, readLocations, readToolContent, str } from './content';
import type { Item, TerminalContent, ToolCall, ToolContent, ToolStatus, Transcript } from './types';

const TOOL_STATUSES: readonly string[] = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'];

let nextKey = 0;
function key(prefix: string): string {
  nextKey += 1;
  return `${prefix}${nextKey}`;
}

export function newTranscript(sessionId: string): Transcript {
  return { sessionId, items: [], tools: new Map(), compactions: new Map(), rev: 0 };
}

function touch(t: Transcript, item?: Item): void {
  t.rev += 1;
  if (item) item.rev += 1;
}

type MessageKind = 'user' | 'agent' | 'thought';

/** The item a chunk belongs to: same messageId anywhere recent, else the last item when it is of the same kind. */
function messageItem(t: Transcript, kind: MessageKind, messageId: string | undefined): Item | undefined {
  const last = t.items.at(-1);
  if (messageId === undefined) return last?.kind === kind && last.messageId === undefined ? last : undefined;
  for (let i = t.items.length - 1; i >= Math.max(0, t.items.length - 50); i -= 1) {
    const item = t.items[i];
    if (item && item.kind === kind && item.messageId === messageId) return item;
  }
  return undefined;
}

/** A new non-thought item ends the thought stream before it (it collapses). */
function endThoughts(t: Transcript): void {
  const last = t.items.at(-1);
  if (last?.kind === 'thought' && last.streaming) {
    last.streaming = false;
    touch(t, last);
  }
}

export function appendChunk(t: Transcript, kind: MessageKind, update: Record<string, unknown>): void {
  const block = asBlock(update.content);
  const messageId = str(update.messageId);
  let item = messageItem(t, kind, messageId);
  if (!item) {
    if (kind !== 'thought') endThoughts(t);
    const base = { key: key(kind[0] as string), rev: 0, messageId, text: '' };
    item =
      kind === 'user'
        ? { ...base, kind, attachments: [] }
        : kind === 'thought'
          ? { ...base, kind, streaming: true }
          : { ...base, kind };
    t.items.push(item);
  }
  if (item.kind !== 'user' && item.kind !== 'agent' && item.kind !== 'thought') return;
  item.text += blockText(block);
  if (item.kind === 'user') {
    const attachment = blockAttachment(block);
    if (attachment) item.attachments.push(attachment);
  }
  touch(t, item);
}

function toolStatus(value: unknown): ToolStatus | undefined {
  return typeof value === 'string' && TOOL_STATUSES.includes(value) ? (value as ToolStatus) : undefined;
}

function toolItem(t: Transcript, toolCallId: string): Item | undefined {
  for (let i = t.items.length - 1; i >= 0; i -= 1) {
    const item = t.items[i];
    if (item?.kind === 'tool' && item.toolCallId === toolCallId) return item;
  }
  return undefined;
}

/** `tool_call` creates (or, repeated, resets) a call; `tool_call_update` patches. Both upsert. */
export function upsertTool(t: Transcript, update: Record<string, unknown>, create: boolean): ToolCall | undefined {
  const toolCallId = str(update.toolCallId);
  if (!toolCallId) return undefined;
  let tool = t.tools.get(toolCallId);
  if (!tool) {
    endThoughts(t);
    tool = { toolCallId, title: 'Tool call', kind: 'other', status: 'pending', content: [], locations: [], children: [] };
    t.tools.set(toolCallId, tool);
    t.items.push({ key: key('t'), rev: 0, kind: 'tool', toolCallId });
  } else if (create) {
    Object.assign(tool, { kind: 'other', status: 'pending', content: [], locations: [] });
  }
  patchTool(tool, update);
  touch(t, toolItem(t, toolCallId));
  return tool;
}

export function patchTool(tool: ToolCall, update: Record<string, unknown>): void {
  const title = str(update.title);
  if (title !== undefined) tool.title = title;
  const kind = str(update.kind);
  if (kind !== undefined) tool.kind = kind;
  const status = toolStatus(update.status);
  if (status) tool.status = status;
  if ('content' in update) tool.content = keepTerminalOutput(tool.content, readToolContent(update.content));
  if ('locations' in update) tool.locations = readLocations(update.locations);
  if (isRecord(update._meta)) applyTerminalMeta(tool, update._meta);
  if ('rawInput' in update) tool.rawInput = update.rawInput;
  if ('rawOutput' in update) tool.rawOutput = update.rawOutput;
}

/** New content naming a terminal the card already shows keeps the output streamed so far. */
function keepTerminalOutput(before: ToolContent[], after: ToolContent[]): ToolContent[] {
  return after.map((c) => {
    if (c.type !== 'terminal' || c.output !== undefined) return c;
    const old = before.find((b): b is TerminalContent => b.type === 'terminal' && b.terminalId === c.terminalId);
    return old ? { ...old } : c;
  });
}

/** The terminal of a call with this id, added to its content when the agent names it only in `_meta`. */
function terminalOf(tool: ToolCall, terminalId: string): TerminalContent {
  const found = tool.content.find((c): c is TerminalContent => c.type === 'terminal' && c.terminalId === terminalId);
  if (found) return found;
  const created: TerminalContent = { type: 'terminal', terminalId };
  tool.content.push(created);
  return created;
}

/**
 * Agents that run commands themselves (claude-agent-acp, codex-acp) describe
 * them in `_meta`: `terminal_info` opens one, `terminal_output` streams a chunk
 * (`data`), `terminal_exit` ends it (Zed's convention).
 */
function applyTerminalMeta(tool: ToolCall, meta: Record<string, unknown>): void {
  for (const field of ['terminal_info', 'terminal_output', 'terminal_exit'] as const) {
    const value = meta[field];
    if (!isRecord(value)) continue;
    const terminalId = str(value.terminal_id) ?? str(value.terminalId);
    if (!terminalId || terminalId.length > 512) continue;
    const terminal = terminalOf(tool, terminalId);
    if (field === 'terminal_output' && typeof value.data === 'string') appendTerminal(terminal, value.data);
    if (field === 'terminal_exit') terminal.exit = readExit(value);
  }
}

/** Re-render the card of a call whose state changed outside an update (approval, review, cancel). */
export function touchTool(t: Transcript, toolCallId: string): void {
  touch(t, toolItem(t, toolCallId));
}

/** On a cancelled turn, calls that never finished show as cancelled at once. */
export function cancelUnfinishedTools(t: Transcript): void {
  for (const tool of t.tools.values()) {
    if (tool.status === 'pending' || tool.status === 'in_progress') {
      tool.status = 'cancelled';
      touchTool(t, tool.toolCallId);
    }
  }
}

export function upsertCompaction(t: Transcript, update: Record<string, unknown>, summaryChunk: boolean): void {
  const compactionId = str(update.compactionId);
  if (!compactionId) return;
  let compaction = t.compactions.get(compactionId);
  if (!compaction) {
    endThoughts(t);
    compaction = { compactionId, status: 'in_progress', summary: '' };
    t.compactions.set(compactionId, compaction);
    t.items.push({ key: key('c'), rev: 0, kind: 'compaction', compactionId });
  }
  if (summaryChunk) {
    compaction.summary += blockText(asBlock(update.content));
  } else {
    const status = str(update.status);
    if (status) compaction.status = status;
    if (update.summary === null) compaction.summary = '';
    else if (Array.isArray(update.summary)) compaction.summary = update.summary.map((b) => blockText(asBlock(b))).join('');
    if (update.error === null) delete compaction.error;
    else if (typeof update.error === 'string') compaction.error = update.error;
  }
  const item = t.items.find((i) => i.kind === 'compaction' && i.compactionId === compactionId);
  touch(t, item);
}

export function pushTurnEnd(t: Transcript, stopReason: string, error: string | undefined): void {
  endThoughts(t);
  const item: Item = { key: key('e'), rev: 0, kind: 'turnEnd', stopReason };
  if (error !== undefined) item.error = error;
  t.items.push(item);
  touch(t);
}

/** A child session's nest sits under its tool call, or in the timeline when no call is known. */
export function attachChild(t: Transcript, childSessionId: string, toolCallId: string | undefined): void {
  const tool = toolCallId ? t.tools.get(toolCallId) : undefined;
  if (tool) {
    if (!tool.children.includes(childSessionId)) tool.children.push(childSessionId);
    touchTool(t, tool.toolCallId);
    return;
  }
  if (t.items.some((i) => i.kind === 'child' && i.sessionId === childSessionId)) return;
  t.items.push({ key: key('s'), rev: 0, kind: 'child', sessionId: childSessionId });
  touch(t);
}

/** The call most likely to have started a child: the latest one still running. */
export function runningToolId(t: Transcript): string | undefined {
  let found: string | undefined;
  for (const tool of t.tools.values()) if (tool.status === 'in_progress' || tool.status === 'pending') found = tool.toolCallId;
  return found;
}

export { isRecord };
