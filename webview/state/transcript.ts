// Transcript updates: messages, thoughts, tool calls, compactions. Chunks
// aggregate by messageId (or onto the previous item of the same kind when the
// agent sends none); tool_call_update patches only the fields it carries.
import { asBlock, blockAttachment, blockText, isRecord, readLocations, readToolContent, str } from './content';
import type { Item, ToolCall, ToolStatus, Transcript } from './types';

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
  if ('content' in update) tool.content = readToolContent(update.content);
  if ('locations' in update) tool.locations = readLocations(update.locations);
  if ('rawInput' in update) tool.rawInput = update.rawInput;
  if ('rawOutput' in update) tool.rawOutput = update.rawOutput;
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
