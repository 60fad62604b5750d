// What the SDK's schemas make of the common session/new and session/prompt
// params, without zod. The SDK validates each request with its generated zod
// schemas, built on first use (scripts/lazySdkSchemas.mjs); in a fresh
// `accord acp --no-daemon` building and first running zNewSessionRequest
// (with the MCP server, system prompt and content block schemas it names) was
// ~4 ms of a ~13 ms session/new (quiet machine). In the core bundle the
// stand-ins of zNewSessionRequest and zPromptRequest try these first
// (lazySdkSchemas.mjs FAST_PARSERS): the schema is built and runs only for
// what these decline.
//
// Each takes only params whose every key and value it knows and returns
// exactly what the schema returns for them: the same values, defaults filled
// in, keys in the same order (the log records the prompt as parsed). For
// anything else (an unknown key, a value the schema would repair or refuse,
// MCP servers, annotations) it returns undefined, so what is accepted,
// refused or repaired never changes (test/unit/acp/fastParams.test.ts
// compares them with the schemas on generated params).
import type { NewSessionRequest, PromptRequest } from '@agentclientprotocol/sdk/unstable';

type Plain = Record<string, unknown>;

/** A plain JSON object (no array, no class instance, no symbol or hidden key) with no key outside `allowed`. */
function plainWithOnly(value: unknown, allowed: readonly string[] | 'any'): value is Plain {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(value);
  if (Reflect.ownKeys(value).length !== keys.length) return false;
  return allowed === 'any' || keys.every((key) => allowed.includes(key));
}

/**
 * A string-keyed record as the schema returns it (a copy), or undefined when
 * only the schema can say. null, arrays and the rest are the schema's to
 * repair or refuse; so is a "__proto__" key, which a copy by assignment
 * would not copy.
 */
function record(value: unknown): Plain | undefined {
  if (!plainWithOnly(value, 'any') || Object.hasOwn(value, '__proto__')) return undefined;
  return { ...value };
}

/** Declined: the schema decides. */
const DECLINE = Symbol('decline');

/** An optional `_meta`: absent (nothing), a record (its copy), else DECLINE. */
function metaOf(value: Plain): { _meta?: Plain } | typeof DECLINE {
  if (!Object.hasOwn(value, '_meta')) return {};
  const meta = record(value._meta);
  return meta ? { _meta: meta } : DECLINE;
}

/** session/new: `{ cwd, mcpServers: [] }`, with or without a record `_meta`. */
export function fastNewSession(value: unknown): NewSessionRequest | undefined {
  if (!plainWithOnly(value, ['cwd', 'mcpServers', '_meta'])) return undefined;
  const { cwd, mcpServers } = value;
  if (typeof cwd !== 'string' || !Array.isArray(mcpServers) || mcpServers.length !== 0) return undefined;
  const meta = metaOf(value);
  if (meta === DECLINE) return undefined;
  return { cwd, mcpServers: [], ...meta };
}

/** session/prompt: `{ sessionId, prompt }` whose blocks are all `{ type: "text", text }`, with or without a record `_meta`. */
export function fastPrompt(value: unknown): PromptRequest | undefined {
  if (!plainWithOnly(value, ['sessionId', 'prompt', '_meta'])) return undefined;
  const { sessionId, prompt } = value;
  if (typeof sessionId !== 'string' || !Array.isArray(prompt)) return undefined;
  const blocks: PromptRequest['prompt'] = [];
  for (const block of prompt as unknown[]) {
    if (!plainWithOnly(block, ['type', 'text']) || block.type !== 'text' || typeof block.text !== 'string') return undefined;
    // The schema's order: the text content's fields, then the intersection's `type`.
    blocks.push({ text: block.text, type: 'text' });
  }
  const meta = metaOf(value);
  if (meta === DECLINE) return undefined;
  return { sessionId, prompt: blocks, ...meta };
}
