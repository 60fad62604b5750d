// The compact record for streamed text. A plain update record for one chunk
// of ~20 B of text costs ~160 B; most of it repeats the chunk before. So a
// text chunk that continues the previous full chunk record (same kind, same
// messageId, text content and nothing else) is written as
//   {"seq":N,"ts":"+D","type":"more","text":"…"}
// where D is milliseconds since that full record's ts. Every chunk keeps its
// own line, so its byte offset (the resume cursor) stays exact. The reader
// expands it back into the update record it stands for, so every consumer
// sees the same records as before; logs without `more` records read as they
// always did. The template rule is shared by writer and reader: the latest
// full `update` record, if it qualifies (chunkKey), else none.
import type { ForeignRecord, RecordHeader, SessionUpdateJson } from './records';

export const MORE = 'more';

/** A parsed `more` line (header checked by parseRecordLine). */
export type MoreRecord = ForeignRecord & { type: typeof MORE; text: string };

/**
 * The identity a text chunk shares with the chunks that may follow it as
 * `more` records, or undefined when this update cannot be a template or be
 * written compactly (other kinds, non-text content, extra fields like _meta).
 */
export function chunkKey(update: SessionUpdateJson): string | undefined {
  const kind = update.sessionUpdate;
  if (kind !== 'agent_message_chunk' && kind !== 'agent_thought_chunk') return undefined;
  for (const key in update) {
    if (key !== 'sessionUpdate' && key !== 'content' && key !== 'messageId') return undefined;
  }
  const content = update.content as { type?: unknown; text?: unknown } | null | undefined;
  if (typeof content !== 'object' || content === null || content.type !== 'text' || typeof content.text !== 'string') return undefined;
  for (const key in content) {
    if (key !== 'type' && key !== 'text') return undefined;
  }
  const messageId = update.messageId;
  if (messageId === undefined) return kind;
  return typeof messageId === 'string' ? `${kind}\u0000${messageId}` : undefined;
}

/** The line for a `more` record, newline included. */
export function formatMore(seq: number, sinceTemplateMs: number, text: string): string {
  return `{"seq":${seq},"ts":"+${sinceTemplateMs}","type":"more","text":${JSON.stringify(text)}}\n`;
}

const DELTA = /^\+\d{1,15}$/;

/** Whether a parsed line with type `more` is well formed. */
export function isMoreRecord(record: RecordHeader & Record<string, unknown>): record is MoreRecord {
  return typeof record.text === 'string' && DELTA.test(record.ts);
}

/** A full chunk record a following `more` record continues. */
export interface ChunkTemplate {
  update: SessionUpdateJson;
  ms: number;
}

export function templateOf(update: SessionUpdateJson, ts: string): ChunkTemplate | undefined {
  if (chunkKey(update) === undefined) return undefined;
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? { update, ms } : undefined;
}

const SEQ_PREFIX = '{"seq":';
const TS_PREFIX = ',"ts":"+';
const TEXT_PREFIX = '","type":"more","text":"';

/** Index just past the digits starting at `from` (at most 15), or -1 when there are none. */
function digitsEnd(line: string, from: number): number {
  let i = from;
  while (i < line.length && i - from < 16) {
    const c = line.charCodeAt(i);
    if (c < 48 || c > 57) break;
    i++;
  }
  return i === from || i - from > 15 ? -1 : i;
}

/** What readMoreLine fills in (one object reused for every line: replay allocates per chunk only what it returns). */
export interface MoreFields {
  seq: number;
  /** Milliseconds since the template's ts. */
  delta: number;
  text: string;
}

/**
 * A `more` line exactly as formatMore writes it, parsed into `into` without
 * a JSON.parse of the whole line (a third of the replay time). False for
 * anything else, which then takes the general path (parseRecordLine) and its checks.
 */
export function readMoreLine(line: string, into: MoreFields): boolean {
  if (!line.startsWith(SEQ_PREFIX)) return false;
  const seqEnd = digitsEnd(line, SEQ_PREFIX.length);
  if (seqEnd === -1 || !line.startsWith(TS_PREFIX, seqEnd)) return false;
  const deltaStart = seqEnd + TS_PREFIX.length;
  const deltaEnd = digitsEnd(line, deltaStart);
  if (deltaEnd === -1 || !line.startsWith(TEXT_PREFIX, deltaEnd)) return false;
  const textStart = deltaEnd + TEXT_PREFIX.length - 1; // the opening quote
  if (!line.endsWith('"}') || line.length < textStart + 4) return false;
  let text: string;
  if (line.indexOf('\\', textStart) === -1) {
    // No escapes: the literal is the text, unless a bare quote ends it early or a raw
    // control character makes it invalid JSON (neither is formatMore's output).
    const closing = line.length - 2;
    if (line.indexOf('"', textStart + 1) !== closing) return false;
    for (let i = textStart + 1; i < closing; i++) if (line.charCodeAt(i) < 0x20) return false;
    text = line.slice(textStart + 1, closing);
  } else {
    try {
      const parsed: unknown = JSON.parse(line.slice(textStart, -1));
      if (typeof parsed !== 'string') return false;
      text = parsed;
    } catch {
      return false;
    }
  }
  into.seq = Number(line.slice(SEQ_PREFIX.length, seqEnd));
  into.delta = Number(line.slice(deltaStart, deltaEnd));
  into.text = text;
  return true;
}

const SEQ_BYTES = Buffer.from(SEQ_PREFIX);
const TS_BYTES = Buffer.from(TS_PREFIX);
const TEXT_BYTES = Buffer.from(TEXT_PREFIX);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;

function bytesAt(buf: Buffer, at: number, prefix: Buffer, end: number): boolean {
  if (at + prefix.length > end) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

/** The 1-15 digits at `from`: their value and the index past them into `out`; false when there are none (or too many). */
function digitsAt(buf: Buffer, from: number, end: number, out: { value: number; end: number }): boolean {
  let value = 0;
  let i = from;
  while (i < end && i - from < 16) {
    const c = buf[i]!;
    if (c < 48 || c > 57) break;
    value = value * 10 + (c - 48);
    i++;
  }
  if (i === from || i - from > 15) return false;
  out.value = value;
  out.end = i;
  return true;
}

const digits = { value: 0, end: 0 };

/**
 * readMoreLine on the line's bytes (`buf[start, end)`, newline excluded), so
 * that no string of the whole line is made: only the text is decoded. Text
 * holding an escape is decoded by JSON.parse; a raw control character or
 * quote, which formatMore never writes, makes it false (the general path then
 * judges the line).
 */
export function readMoreBytes(buf: Buffer, start: number, end: number, into: MoreFields): boolean {
  if (!bytesAt(buf, start, SEQ_BYTES, end) || !digitsAt(buf, start + SEQ_BYTES.length, end, digits)) return false;
  const seq = digits.value;
  if (!bytesAt(buf, digits.end, TS_BYTES, end) || !digitsAt(buf, digits.end + TS_BYTES.length, end, digits)) return false;
  const delta = digits.value;
  if (!bytesAt(buf, digits.end, TEXT_BYTES, end)) return false;
  const textStart = digits.end + TEXT_BYTES.length; // just past the opening quote
  const closing = end - 2; // the closing quote, before the final brace
  if (closing < textStart || buf[closing] !== QUOTE || buf[end - 1] !== CLOSE_BRACE) return false;
  let escaped = false;
  for (let i = textStart; i < closing; i++) {
    const c = buf[i]!;
    if (c === BACKSLASH) escaped = true;
    else if (c < 0x20 || (c === QUOTE && !escaped)) return false;
  }
  let text: string;
  if (!escaped) text = buf.toString('utf8', textStart, closing);
  else {
    try {
      const parsed: unknown = JSON.parse(buf.toString('utf8', textStart - 1, closing + 1));
      if (typeof parsed !== 'string') return false;
      text = parsed;
    } catch {
      return false;
    }
  }
  into.seq = seq;
  into.delta = delta;
  into.text = text;
  return true;
}

/** The update a `more` record with `text` stands for: its template's, with this text. */
export function continuedUpdate(template: ChunkTemplate, text: string): SessionUpdateJson {
  const t = template.update;
  const content = { type: 'text', text };
  return t.messageId === undefined ? { sessionUpdate: t.sessionUpdate, content } : { sessionUpdate: t.sessionUpdate, messageId: t.messageId, content };
}

/**
 * Rebuilds the updates and timestamps of `more` records. Timestamps reuse the
 * formatted second while it lasts: toISOString per chunk was a third of the replay.
 */
export class ChunkExpander {
  private second = NaN;
  private prefix = '';

  /** The update a `more` record with `text` stands for. */
  update(template: ChunkTemplate, text: string): SessionUpdateJson {
    return continuedUpdate(template, text);
  }

  /** Its absolute timestamp (ISO 8601). */
  timestamp(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      const iso = new Date(ms).toISOString();
      // Years beyond 9999 format differently: no caching for them.
      if (iso.length !== 24) return iso;
      this.second = second;
      this.prefix = iso.slice(0, 20);
    }
    const milli = ms - second * 1000;
    return `${this.prefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  }
}
