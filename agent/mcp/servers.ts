// MCP servers named in the project policy (`.accord/policy.json`
// "mcpServers"), started per session under the same confinement as commands
// (the sandbox, cwd = the session workspace, a scrubbed environment). Their
// tools become agent tools of kind `other`, named `mcp__<server>__<tool>`, and
// go through the same policy gate: with no rule naming them, every call asks.
import type { Client } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { McpServerDeclaration } from '../policy/schema';
import type { LaunchSpec } from '../sandbox/sessionRunner';
import type { Tool } from '../tools/tool';
import { pathArguments } from './pathArguments';

export interface McpTools {
  tools: Tool<Record<string, unknown>>[];
  /** One sentence per server that could not be used, for the client and the log. */
  problems: string[];
  close(): Promise<void>;
}

export type Launch = (argv: string[], envChanges: Record<string, string>) => Promise<LaunchSpec>;

const START_TIMEOUT_MS = 30_000;
/** The most of a server's answer the model and the client get (a run_command's output is 30,000 bytes). */
export const MAX_MCP_RESULT_CHARS = 100_000;
/** The most of a tool's description the model is offered. */
export const MAX_MCP_DESCRIPTION_CHARS = 2_000;

/** Model-facing tool names allow letters, digits, "_" and "-" only, up to 64 characters. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const text = content
    .map((part: { type?: string; text?: unknown }) => (part.type === 'text' ? (typeof part.text === 'string' ? part.text : '') : `[${String(part.type ?? 'content').slice(0, 40)} not shown]`))
    .join('\n');
  if (text.length <= MAX_MCP_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_MCP_RESULT_CHARS)}\n[${text.length - MAX_MCP_RESULT_CHARS} more characters cut: the MCP server's answer was longer than ${MAX_MCP_RESULT_CHARS}.]`;
}

function descriptionOf(server: string, listed: { name: string; description?: unknown }): string {
  const description = typeof listed.description === 'string' ? listed.description : `The ${listed.name} tool of the ${server} MCP server.`;
  return description.length <= MAX_MCP_DESCRIPTION_CHARS ? description : `${description.slice(0, MAX_MCP_DESCRIPTION_CHARS)} [description cut]`;
}

/**
 * The server's tools by their model-facing names. Two tools whose names read the same once made
 * model-safe (`a.b`, `a_b`) are both left out: a rule or a call meant for one would reach the other.
 */
function distinctTools(server: string, listed: readonly { name: string }[]): { kept: typeof listed; problems: string[] } {
  const byName = new Map<string, string[]>();
  for (const tool of listed) byName.set(mcpToolName(server, tool.name), [...(byName.get(mcpToolName(server, tool.name)) ?? []), tool.name]);
  const problems = [...byName].filter(([, names]) => names.length > 1).map(([name, names]) => `The MCP server "${server}" has tools named alike (${names.map((n) => JSON.stringify(n.slice(0, 80))).join(', ')}: all ${name}); none of them is offered.`);
  return { kept: listed.filter((tool) => byName.get(mcpToolName(server, tool.name))!.length === 1), problems };
}

function toolFor(server: string, client: Client, listed: { name: string; description?: string; inputSchema: Record<string, unknown> }): Tool<Record<string, unknown>> {
  // The server's own name for the tool, for people: any length, any characters; the panel gets a short one.
  const title = `${server}: ${listed.name.length > 100 ? `${listed.name.slice(0, 100)}…` : listed.name}`;
  return {
    name: mcpToolName(server, listed.name),
    kind: 'other',
    description: descriptionOf(server, listed),
    input: z.record(z.string(), z.unknown()),
    inputJsonSchema: listed.inputSchema,
    // Files named in the arguments are the call's locations, so path rules (deny, ask) apply to it.
    describe: (input, { root }) => ({ title, locations: pathArguments(input, root).map((p) => ({ path: p })) }),
    // What the server does with the call is its own business: nothing to show but the arguments (rawInput).
    effect: async () => ({ type: 'none' }),
    async run(input, ctx) {
      const result = await client.callTool({ name: listed.name, arguments: input }, { signal: ctx.signal });
      const text = textOf(result.content) || '(no output)';
      return { forModel: text, forUser: [{ type: 'text', text }], isError: result.isError === true };
    },
  };
}

async function startOne(declaration: McpServerDeclaration, launch: Launch): Promise<{ client: Client; tools: Tool<Record<string, unknown>>[]; problems: string[] }> {
  const spec = await launch(declaration.command, declaration.env ?? {});
  // Loaded here, not at startup: most sessions declare no server.
  const { Client, StdioClientTransport } = await import('./sdk');
  const client = new Client({ name: 'accord', version: '1' });
  const transport = new StdioClientTransport({ command: spec.argv[0]!, args: spec.argv.slice(1), env: spec.env, cwd: spec.cwd, stderr: 'ignore' });
  try {
    await withTimeout(client.connect(transport), `the ${declaration.name} MCP server`);
    const { tools } = await withTimeout(client.listTools(), `the ${declaration.name} MCP server's tool list`);
    const { kept, problems } = distinctTools(declaration.name, tools);
    return { client, tools: kept.map((t) => toolFor(declaration.name, client, t as never)), problems };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

/** Starts every declared server; one that fails is reported in `problems`, the others still serve. */
export async function startMcpServers(declarations: readonly McpServerDeclaration[], launch: Launch): Promise<McpTools> {
  const started = await Promise.all(
    declarations.map((declaration) =>
      startOne(declaration, launch).then(
        (ok) => ({ ok, problem: undefined }),
        (error: unknown) => ({ ok: undefined, problem: `The MCP server "${declaration.name}" from .accord/policy.json could not be started: ${error instanceof Error ? error.message : String(error)}` }),
      ),
    ),
  );
  const clients = started.flatMap((s) => (s.ok ? [s.ok.client] : []));
  return {
    tools: started.flatMap((s) => s.ok?.tools ?? []),
    problems: started.flatMap((s) => (s.problem ? [s.problem] : (s.ok?.problems ?? []))),
    close: async () => {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    },
  };
}
