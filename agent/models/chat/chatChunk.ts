// One streamed chat completion chunk, parsed and checked. The SDK validates
// each chunk with zod; here a hand-written check accepts what that schema
// accepts, field for field, and nothing it would reject. Anything the check
// does not accept (a chunk that is an `{ error }`, or one that is
// malformed) goes to the same zod schema the SDK uses, built on first need,
// so the result and the error are the SDK's own.
import { safeParseJSON, secureJsonParse } from '@ai-sdk/provider-utils';
import { z } from 'zod/v4';
import type { ParsedChunk } from './chatStream';

export interface ChatToolCallDelta {
  index?: number | null;
  id?: string | null;
  function: { name?: string | null; arguments?: string | null };
  extra_content?: { google?: { thought_signature?: string | null } | null } | null;
}

export interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: {
    reasoning_tokens?: number | null;
    accepted_prediction_tokens?: number | null;
    rejected_prediction_tokens?: number | null;
  } | null;
}

export interface ChatChunk {
  id?: string | null;
  created?: number | null;
  model?: string | null;
  choices: Array<{
    delta?: {
      role?: 'assistant' | '' | null;
      content?: string | Array<{ type: string; [key: string]: unknown }> | null;
      /** Not always a string on servers that are not OpenAI's; only a string counts. */
      refusal?: unknown;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: ChatToolCallDelta[] | null;
    } | null;
    finish_reason?: string | null;
  }>;
  usage?: ChatUsage | null;
}

/** The data of one SSE event, parsed as the SDK parses it (secure JSON, then the chunk schema). */
export function parseChunk(data: string): ParsedChunk | Promise<ParsedChunk> {
  let value: unknown;
  try {
    value = mayHidePrototypeKey(data) ? secureJsonParse(data) : JSON.parse(data);
  } catch {
    return sdkParse(data);
  }
  return isChatChunk(value) ? { success: true, value, rawValue: value } : sdkParse(data);
}

/**
 * secureJsonParse rejects `__proto__` and `constructor.prototype` keys, which
 * its patterns find spelled out or with \u escapes; a text with neither the
 * words nor any \u escape has none, and plain JSON.parse gives its result.
 */
const mayHidePrototypeKey = (text: string) => text.indexOf('\\u') !== -1 || text.indexOf('proto') !== -1 || text.indexOf('constructor') !== -1;

let schema: unknown;

/** The SDK's chunk schema: its base chunk or, failing that, the default error shape. */
async function sdkParse(data: string): Promise<ParsedChunk> {
  if (schema === undefined) {
    const nullishNumber = () => z.number().nullish();
    const usage = z
      .looseObject({
        prompt_tokens: nullishNumber(),
        completion_tokens: nullishNumber(),
        total_tokens: nullishNumber(),
        prompt_tokens_details: z.looseObject({ cached_tokens: nullishNumber() }).nullish(),
        completion_tokens_details: z
          .looseObject({ reasoning_tokens: nullishNumber(), accepted_prediction_tokens: nullishNumber(), rejected_prediction_tokens: nullishNumber() })
          .nullish(),
      })
      .nullish();
    const content = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).nullish();
    const base = z.looseObject({
      id: z.string().nullish(),
      created: z.number().nullish(),
      model: z.string().nullish(),
      choices: z.array(
        z.object({
          delta: z
            .object({
              role: z.enum(['assistant', '']).nullish(),
              content,
              refusal: z.unknown().nullish().transform((v) => (typeof v === 'string' ? v : undefined)),
              reasoning_content: z.string().nullish(),
              reasoning: z.string().nullish(),
              tool_calls: z
                .array(
                  z.object({
                    index: z.number().nullish(),
                    id: z.string().nullish(),
                    function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }),
                    extra_content: z.object({ google: z.object({ thought_signature: z.string().nullish() }).nullish() }).nullish(),
                  }),
                )
                .nullish(),
            })
            .nullish(),
          finish_reason: z.string().nullish(),
        }),
      ),
      usage,
    });
    const error = z.object({
      error: z.object({
        message: z.string(),
        type: z.string().nullish(),
        param: z.any().nullish(),
        code: z.union([z.string(), z.number()]).nullish(),
      }),
    });
    schema = z.union([base, error]);
  }
  return (await safeParseJSON({ text: data, schema: schema as never })) as ParsedChunk;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nullish = (v: unknown) => v === undefined || v === null;
const nullishString = (v: unknown) => v === undefined || v === null || typeof v === 'string';
/** zod 4's number: finite only (JSON's 1e999 parses to Infinity). */
const nullishNumber = (v: unknown) => v === undefined || v === null || (typeof v === 'number' && Number.isFinite(v));

/** True only for values the SDK's base chunk schema accepts unchanged (see the fields' notes in ChatChunk). */
export function isChatChunk(value: unknown): value is ChatChunk {
  if (!isObject(value)) return false;
  if (!nullishString(value.id) || !nullishNumber(value.created) || !nullishString(value.model)) return false;
  const choices = value.choices;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) {
    if (!isObject(choice) || !nullishString(choice.finish_reason)) return false;
    if (!nullish(choice.delta) && !isDelta(choice.delta)) return false;
  }
  return nullish(value.usage) || isUsage(value.usage);
}

function isDelta(delta: unknown): boolean {
  if (!isObject(delta)) return false;
  const role = delta.role;
  if (!nullish(role) && role !== 'assistant' && role !== '') return false;
  if (!nullishString(delta.reasoning_content) || !nullishString(delta.reasoning)) return false;
  const content = delta.content;
  if (!nullishString(content)) {
    if (!Array.isArray(content)) return false;
    for (const part of content) if (!isObject(part) || typeof part.type !== 'string') return false;
  }
  const toolCalls = delta.tool_calls;
  if (nullish(toolCalls)) return true;
  if (!Array.isArray(toolCalls)) return false;
  for (const call of toolCalls) {
    if (!isObject(call) || !nullishNumber(call.index) || !nullishString(call.id)) return false;
    const fn = call.function;
    if (!isObject(fn) || !nullishString(fn.name) || !nullishString(fn.arguments)) return false;
    const extra = call.extra_content;
    if (nullish(extra)) continue;
    if (!isObject(extra)) return false;
    const google = extra.google;
    if (nullish(google)) continue;
    if (!isObject(google) || !nullishString(google.thought_signature)) return false;
  }
  return true;
}

function isUsage(usage: unknown): boolean {
  if (!isObject(usage)) return false;
  if (!nullishNumber(usage.prompt_tokens) || !nullishNumber(usage.completion_tokens) || !nullishNumber(usage.total_tokens)) return false;
  const prompt = usage.prompt_tokens_details;
  if (!nullish(prompt) && (!isObject(prompt) || !nullishNumber(prompt.cached_tokens))) return false;
  const completion = usage.completion_tokens_details;
  if (nullish(completion)) return true;
  return (
    isObject(completion) &&
    nullishNumber(completion.reasoning_tokens) &&
    nullishNumber(completion.accepted_prediction_tokens) &&
    nullishNumber(completion.rejected_prediction_tokens)
  );
}
