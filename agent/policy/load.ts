// Reads `.accord/policy.json`. A missing file means "no standing permissions";
// a broken one is a clear error naming the field, and the agent then asks for
// everything (never allows) until a person fixes it.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import type { z } from 'zod';
import { builtinTools } from '../tools/index';
import { POLICY_FILE, policySchemas, type Policy } from './schema';

/** `digest` identifies the file's bytes when loaded ('' when missing), for `policyChangedSince`. */
export type LoadedPolicy =
  | { status: 'ok'; policy: Policy; file: string; digest?: string }
  | { status: 'missing'; policy: Policy; file: string; digest?: string }
  /** Fail closed: every call asks; `error` says what is wrong and where. */
  | { status: 'invalid'; error: string; file: string; digest?: string };

const digestOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** A policy is a page of rules; anything near this is not one (and reading more could exhaust the daemon). */
export const MAX_POLICY_BYTES = 1024 * 1024;

class PolicyFileError extends Error {}

/**
 * The file's text, read no further than MAX_POLICY_BYTES. It comes with the
 * project (a cloned repository chose it): a fifo nobody writes would hang the
 * open, a link to /dev/zero would never end. A link to a regular file (one
 * policy shared between checkouts) is still followed.
 */
async function readPolicyText(file: string): Promise<string> {
  // O_NONBLOCK: opening a fifo returns at once instead of waiting for a writer.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new PolicyFileError(`${file} is not a regular file`);
    if (stats.size > MAX_POLICY_BYTES) throw new PolicyFileError(`${file} is too large (${stats.size} bytes; a policy may have ${MAX_POLICY_BYTES})`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(Math.min(64 * 1024, MAX_POLICY_BYTES + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > MAX_POLICY_BYTES) throw new PolicyFileError(`${file} is too large (it grew past ${MAX_POLICY_BYTES} bytes while being read)`);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** What a policy file of `{ "version": 1 }` says (gate.test.ts holds it to the schema's defaults): written out, so the schema is not built at load. */
export const EMPTY_POLICY: Policy = { version: 1, rules: [], network: { allowedDomains: [] }, mcpServers: [], environment: { pass: [] }, runs: {} };

function describeIssues(error: z.ZodError, file: string): string {
  const lines = error.issues.slice(0, 5).map((issue) => {
    const where = issue.path.length ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') : '(top level)';
    return `  ${where}: ${issue.message}`;
  });
  return `${file} is not valid, so Accord will ask before every action until it is fixed:\n${lines.join('\n')}`;
}

const builtinNames = (): string[] => builtinTools().map((t) => t.name);

/**
 * Why a rule's `tool` names no tool, or undefined. A glob must match a
 * built-in tool or a tool of an MCP server the policy declares
 * (`mcp__<server>__<tool>`); names are case-sensitive, so `Read_File` is an
 * error with the right spelling, not a rule that silently matches nothing.
 */
function unknownToolReason(tool: string, servers: readonly string[]): string | undefined {
  const builtins = builtinNames();
  const matches = picomatch(tool, { dot: true });
  if (builtins.some((name) => matches(name))) return undefined;
  if (servers.some((server) => tool.startsWith(`mcp__${server}__`) ? tool.length > `mcp__${server}__`.length : matches(`mcp__${server}__any_tool`))) return undefined;
  const folded = picomatch(tool, { dot: true, nocase: true });
  const sameButCase = builtins.find((name) => folded(name));
  if (sameButCase) return `"${tool}" names no tool; tool names are case-sensitive: did you mean "${sameButCase}"?`;
  const mcp = /^mcp(__|:)([^_:]+)/i.exec(tool);
  if (mcp) return `"${tool}" names no tool: MCP tools are named mcp__<server>__<tool>, and the server must be declared in "mcpServers" (declared: ${servers.length ? servers.join(', ') : 'none'})`;
  return `"${tool}" names no tool; the tools are ${builtins.join(', ')}, and mcp__<server>__<tool> for servers in "mcpServers"`;
}

function checkToolNames(policy: Policy, file: string): string | undefined {
  const servers = policy.mcpServers.map((s) => s.name);
  const problems = policy.rules.flatMap((rule, index) => {
    const reason = rule.tool === undefined ? undefined : unknownToolReason(rule.tool, servers);
    return reason ? [`  rules[${index}].tool: ${reason}`] : [];
  });
  if (problems.length === 0) return undefined;
  return `${file} is not valid, so Accord will ask before every action until it is fixed:\n${problems.slice(0, 5).join('\n')}`;
}

/** Parses policy text; `file` is only used in messages. */
export function parsePolicy(text: string, file: string): LoadedPolicy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { status: 'invalid', file, error: `${file} is not valid JSON (${(error as Error).message}), so Accord will ask before every action until it is fixed.` };
  }
  const parsed = policySchemas().PolicySchema.safeParse(json);
  if (!parsed.success) return { status: 'invalid', file, error: describeIssues(parsed.error, file) };
  const unknownTools = checkToolNames(parsed.data, file);
  if (unknownTools) return { status: 'invalid', file, error: unknownTools };
  return { status: 'ok', policy: parsed.data, file };
}

/** Loads the policy of the project at `projectRoot` (the person's real tree, not the session copy). */
export async function loadPolicy(projectRoot: string): Promise<LoadedPolicy> {
  const file = path.join(projectRoot, POLICY_FILE);
  let text: string;
  try {
    text = await readPolicyText(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing', policy: EMPTY_POLICY, file, digest: '' };
    if (error instanceof PolicyFileError) return { status: 'invalid', file, error: `${error.message}, so Accord will ask before every action until it is fixed.` };
    return { status: 'invalid', file, error: `${file} cannot be read (${(error as Error).message}), so Accord will ask before every action.` };
  }
  return { ...parsePolicy(text, file), digest: digestOf(text) };
}

/**
 * A message when the policy file differs from what `loaded` read, else
 * undefined. The session keeps deciding with the policy it loaded; call this
 * after every unsandboxed command (nothing stops such a command from
 * writing the file) to halt the turn and tell the person.
 */
export async function policyChangedSince(loaded: LoadedPolicy): Promise<string | undefined> {
  const now = await readPolicyText(loaded.file).then(digestOf, (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? '' : 'unreadable'));
  if (loaded.digest === undefined || now === loaded.digest) return undefined;
  return `${loaded.file} changed while the session was running. This session keeps the policy it started with; check the change yourself — the agent must never edit its own policy.`;
}
