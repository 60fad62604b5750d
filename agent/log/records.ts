// The record format: one JSON object per line, `{seq, ts, type, ...payload}`.
// Payloads are plain JSON: ACP and ai-SDK objects are stored exactly as they
// were sent or appended, so this module knows their outer shape only.
import { z } from 'zod';
import { isMoreRecord, MORE } from './compact';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** An ACP `session/update` payload (`params.update`), as sent. */
export type SessionUpdateJson = { sessionUpdate: string } & Record<string, unknown>;
/** An ACP `ContentBlock`. */
export type ContentBlockJson = { type: string } & Record<string, unknown>;
/** An ai SDK `ModelMessage`. */
export type ModelMessageJson = { role: string; content: unknown } & Record<string, unknown>;

// One schema per record type: the payload fields only. Validation checks the
// shape the replay relies on; nested protocol objects are not re-validated.
// These schemas are the specification; parseRecordLine runs the hand-written
// equivalents below (zod per record was a third of a replay), and a property
// test holds the two to the same verdict on every record.
const buildPayloadSchemas = () => {
  const object = z.record(z.string(), z.unknown());
  const tagged = (tag: string) => z.looseObject({ [tag]: z.string() });
  return {
    session_created: z.object({
      sessionId: z.string(),
      cwd: z.string(),
      agentVersion: z.string(),
      config: object,
      additionalDirectories: z.array(z.string()).optional(),
      workspace: object.optional(),
    }),
    workspace: z.object({ workspace: object }),
    user_prompt: z.object({ prompt: z.array(tagged('type')) }),
    update: z.object({ update: tagged('sessionUpdate') }),
    permission_request: z.object({ toolCallId: z.string(), request: object }),
    permission_answer: z.object({ toolCallId: z.string(), outcome: object }),
    tool_io: z.object({
      toolCallId: z.string(),
      toolName: z.string(),
      input: z.unknown(),
      output: z.unknown(),
      isError: z.boolean().optional(),
    }),
    model_message: z.object({ message: z.looseObject({ role: z.string(), content: z.unknown() }) }),
    history_reset: z.object({ messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })), reason: z.string() }),
    usage: z.object({ usage: object }),
    turn_start: z.object({}),
    turn_end: z.object({ stopReason: z.string(), error: z.string().optional() }),
    config_change: z.object({ config: object }),
    title: z.object({ title: z.string() }),
    interrupted: z.object({
      tornBytes: z.number().int().nonnegative(),
      turnOpen: z.boolean(),
      savedTo: z.string().optional(),
    }),
  } as const;
};

let payloadSchemaSet: ReturnType<typeof buildPayloadSchemas> | undefined;
/**
 * The zod schema of each record type's payload: the specification the
 * hand-written checks below implement (recordChecks.property.test.ts holds
 * them to it). Built on first call, not at load: only tests ask for it, and
 * building ~20 object schemas was ~4 ms of every agent start.
 */
export const payloadSchemas = (): ReturnType<typeof buildPayloadSchemas> => (payloadSchemaSet ??= buildPayloadSchemas());

export type RecordType = keyof ReturnType<typeof buildPayloadSchemas>;

/**
 * What callers append. The TypeScript shapes are tighter than the zod ones
 * where the caller has real types (content blocks, updates, messages).
 */
export type LogEvent =
  | {
      type: 'session_created';
      sessionId: string;
      cwd: string;
      agentVersion: string;
      config: Record<string, unknown>;
      additionalDirectories?: string[];
      /**
       * Where the session works (its isolated workspace, as created); absent when
       * it works in `cwd` without isolation. `{ preparing: true, inPlace }`: the log
       * started before the copy was made; a later `workspace` record names it.
       */
      workspace?: Record<string, unknown>;
    }
  /** The isolated workspace of a session whose log started before it was made (session_created says `preparing`). */
  | { type: 'workspace'; workspace: Record<string, unknown> }
  | { type: 'user_prompt'; prompt: ContentBlockJson[] }
  | { type: 'update'; update: SessionUpdateJson }
  /** `request` is the `session/request_permission` params as sent. */
  | { type: 'permission_request'; toolCallId: string; request: Record<string, unknown> }
  /** `outcome` is the client's `RequestPermissionOutcome` (or the synthesized one on cancel). */
  | { type: 'permission_answer'; toolCallId: string; outcome: Record<string, unknown> }
  /** `input` as the model sent it; `output` as the model saw it. */
  | { type: 'tool_io'; toolCallId: string; toolName: string; input: unknown; output: unknown; isError?: boolean }
  | { type: 'model_message'; message: ModelMessageJson }
  /** The whole model history from here on (a refusal dropped an exchange, a compaction summarised the older part). */
  | { type: 'history_reset'; messages: ModelMessageJson[]; reason: string }
  | { type: 'usage'; usage: Record<string, unknown> }
  | { type: 'turn_start' }
  | { type: 'turn_end'; stopReason: string; error?: string }
  /** The whole configuration after the change. */
  | { type: 'config_change'; config: Record<string, unknown> }
  | { type: 'title'; title: string }
  /** Written on open after a crash; never by callers. */
  | { type: 'interrupted'; tornBytes: number; turnOpen: boolean; savedTo?: string };

export interface RecordHeader {
  seq: number;
  /** ISO 8601, UTC. */
  ts: string;
}

export type LogRecord = LogEvent & RecordHeader;
export type RecordOf<T extends RecordType> = Extract<LogRecord, { type: T }>;

/** A record of a type this version does not know (written by a newer agent). */
export type ForeignRecord = RecordHeader & { type: string } & Record<string, unknown>;

export type ParsedLine =
  | { ok: true; known: true; record: LogRecord }
  | { ok: true; known: false; record: ForeignRecord }
  | { ok: false; reason: string };

function isKnown(type: string): type is RecordType {
  return Object.hasOwn(payloadChecks, type);
}

/** Parses and validates one line (without its newline). Never throws. */
export function parseRecordLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  // The header is checked by hand: it runs for every line of every replay.
  if (!hasHeader(value)) return { ok: false, reason: 'not a log record (seq, ts and type are required)' };
  const record = value;
  if (!isKnown(record.type)) {
    // A `more` record is expanded by the reader (compact.ts); here it is only checked.
    if (record.type === MORE && !isMoreRecord(record)) return { ok: false, reason: 'malformed more record: text must be a string and ts "+<ms>"' };
    return { ok: true, known: false, record: record as ForeignRecord };
  }
  const reason = payloadChecks[record.type](record);
  if (reason !== undefined) return { ok: false, reason: `malformed ${record.type} record: ${reason}` };
  // Kept whole (a schema would strip unknown keys): fields added by newer
  // writers survive a read-modify cycle.
  return { ok: true, known: true, record: record as unknown as LogRecord };
}

type Fields = Record<string, unknown>;
type Check = (record: Fields) => string | undefined;

/** A plain object: what z.record and z.object accept (not null, not an array). */
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (record: Fields, key: string): string | undefined => (typeof record[key] === 'string' ? undefined : `${key} must be a string`);
const optStr = (record: Fields, key: string): string | undefined => (record[key] === undefined || typeof record[key] === 'string' ? undefined : `${key} must be a string when present`);
const obj = (record: Fields, key: string): string | undefined => (isObject(record[key]) ? undefined : `${key} must be an object`);
/** z.unknown() in an object: any value, but the key must be there. */
const present = (record: Fields, key: string): string | undefined => (key in record ? undefined : `${key} is required`);
const all = (...reasons: Array<string | undefined>): string | undefined => reasons.find((r) => r !== undefined);
const taggedWith = (tag: string) => (item: unknown) => isObject(item) && typeof item[tag] === 'string';
const isMessage = (item: unknown) => isObject(item) && typeof item.role === 'string' && 'content' in item;

/** The hand-written equivalents of payloadSchemas, one per record type; undefined means valid. */
const payloadChecks: Record<RecordType, Check> = {
  session_created: (r) =>
    all(
      str(r, 'sessionId'),
      str(r, 'cwd'),
      str(r, 'agentVersion'),
      obj(r, 'config'),
      r.additionalDirectories === undefined || (Array.isArray(r.additionalDirectories) && r.additionalDirectories.every((d) => typeof d === 'string'))
        ? undefined
        : 'additionalDirectories must be an array of strings',
      r.workspace === undefined || isObject(r.workspace) ? undefined : 'workspace must be an object when present',
    ),
  user_prompt: (r) => (Array.isArray(r.prompt) && r.prompt.every(taggedWith('type')) ? undefined : 'prompt must be an array of content blocks with a string type'),
  update: (r) => (isObject(r.update) && typeof r.update.sessionUpdate === 'string' ? undefined : 'update must be an object with a string sessionUpdate'),
  permission_request: (r) => all(str(r, 'toolCallId'), obj(r, 'request')),
  permission_answer: (r) => all(str(r, 'toolCallId'), obj(r, 'outcome')),
  tool_io: (r) =>
    all(str(r, 'toolCallId'), str(r, 'toolName'), present(r, 'input'), present(r, 'output'), r.isError === undefined || typeof r.isError === 'boolean' ? undefined : 'isError must be a boolean when present'),
  model_message: (r) => (isMessage(r.message) ? undefined : 'message must be an object with a string role and a content'),
  history_reset: (r) => all(Array.isArray(r.messages) && r.messages.every(isMessage) ? undefined : 'messages must be an array of messages with a string role and a content', str(r, 'reason')),
  usage: (r) => obj(r, 'usage'),
  turn_start: () => undefined,
  turn_end: (r) => all(str(r, 'stopReason'), optStr(r, 'error')),
  config_change: (r) => obj(r, 'config'),
  title: (r) => str(r, 'title'),
  workspace: (r) => obj(r, 'workspace'),
  interrupted: (r) =>
    all(
      Number.isSafeInteger(r.tornBytes) && (r.tornBytes as number) >= 0 ? undefined : 'tornBytes must be a non-negative integer',
      typeof r.turnOpen === 'boolean' ? undefined : 'turnOpen must be a boolean',
      optStr(r, 'savedTo'),
    ),
};

function hasHeader(value: unknown): value is RecordHeader & { type: string } & Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { seq, ts, type } = value as Record<string, unknown>;
  return Number.isSafeInteger(seq) && (seq as number) >= 0 && typeof ts === 'string' && typeof type === 'string';
}

/** The line written for one record, newline included. */
export function formatRecord(record: LogRecord): string {
  return `${JSON.stringify(record)}\n`;
}
