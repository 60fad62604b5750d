// `.accord/policy.json`: the only place standing permissions live. A person
// writes it and reviews it in the repository; the agent can never write it.
import { z } from 'zod';
import { once } from '../core/once';
import { passPattern } from '../sandbox/environment';
import { costlyGlobReason } from '../workspace/globCost';

export const POLICY_FILE = '.accord/policy.json';

const toolKinds = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'other'] as const;

/**
 * The policy file's schemas, built on first use (loading a session's policy),
 * not when the agent core loads: `initialize` waits for that load.
 */
function buildSchemas() {
  const glob = () => z.string().min(1).superRefine((value, context) => {
    const reason = costlyGlobReason(value);
    if (reason) context.addIssue({ code: 'custom', message: reason });
  });

  /**
   * A path glob, relative to the workspace root. One written from the root (`/secrets/**`) would
   * match nothing, silently: refused. A trailing "/" (gitignore's "this folder") is dropped: the
   * folder's name then matches, and a deny or ask covers what is inside (ruleMatch.ts).
   */
  const pathGlob = () =>
    glob()
      .superRefine((value, context) => {
        if (value.startsWith('/')) context.addIssue({ code: 'custom', message: `paths are relative to the workspace root: write "${value.replace(/^\/+/, '')}", not "${value}"` });
      })
      // NFC as the folded spelling of a path is: a deny typed in NFD (macOS) still covers the name.
      .transform((value) => value.normalize('NFC').replace(/(.)\/+$/, '$1'));

  /** `example.com`, `*.example.com`, optionally `:port`. No schemes, paths or bare `*`. */
  const domainPattern = z
    .string()
    .regex(/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i, 'a domain such as "registry.npmjs.org" or "*.example.com" (no scheme, no path)');

  /**
   * One argv token pattern: a literal or a picomatch glob for ONE argument
   * (`"--*"`, `"test:*"`), or exactly `"**"` as the last element for "any
   * further arguments". Without a trailing `"**"` the argv length must match.
   */
  const argvPattern = z
    .array(glob())
    .min(1)
    .refine((p) => p.slice(0, -1).every((token) => token !== '**'), '"**" may only be the last element')
    .refine((p) => p[0] !== '**' && p[0] !== '*', 'the first element must name the program');

  const RuleSchema = z
    .object({
      decision: z.enum(['allow', 'ask', 'deny']),
      /** Tool name (`read_file`, `run_command`, `mcp__<server>__<tool>`); picomatch glob, case-sensitive, checked against the known tools on load. */
      tool: glob().optional(),
      kind: z.enum(toolKinds).optional(),
      /** Globs relative to the workspace root, matched against every file the call touches. */
      paths: z.array(pathGlob()).min(1).optional(),
      /** Alternatives: the call's argv must match one of them. */
      commands: z.array(argvPattern).min(1).optional(),
      /** Network destinations of a fetch-like call. */
      domains: z.array(domainPattern).min(1).optional(),
      /** Shown to the person and the model when this rule decides. */
      reason: z.string().optional(),
    })
    .strict();

  const McpServerSchema = z
    .object({
      name: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "_" and "-" only'),
      command: z.array(z.string().min(1)).min(1),
      env: z.record(z.string(), z.string()).optional(),
    })
    .strict();

  /** One step of a declared run: an argv run in the sandbox, no shell. `"{args}"` as a whole element stands for the run's arguments. */
  const RunStepSchema = z
    .object({
      name: z.string().min(1).max(80),
      argv: z.array(z.string().min(1)).min(1),
      /** Relative to the workspace root; must stay inside it. */
      cwd: z.string().min(1).optional(),
      env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'), z.string()).optional(),
      /** A gate: the step needs the person's approval before it runs. */
      gate: z.boolean().optional(),
      timeoutSeconds: z.number().int().positive().max(3600).optional(),
    })
    .strict();

  /** A named run (`!run <name> [args]`): steps in order; `onFailure` steps run when one fails. */
  const RunSchema = z
    .object({
      description: z.string().optional(),
      steps: z.array(RunStepSchema).min(1),
      onFailure: z.array(RunStepSchema).optional(),
    })
    .strict();

  const PolicySchema = z
    .object({
      version: z.literal(1),
      rules: z.array(RuleSchema).default([]),
      /** Domains sandboxed commands may reach (through the sandbox's proxy). Default: none. */
      network: z.object({ allowedDomains: z.array(domainPattern).default([]) }).strict().default({ allowedDomains: [] }),
      /** MCP servers the agent may start. Declared here so they are reviewable; never from `session/new`. */
      mcpServers: z.array(McpServerSchema).default([]),
      /** Variables commands and MCP servers get on top of the built-in allowlist (PATH, HOME, LANG, ...): names or `PREFIX_*`. */
      environment: z
        .object({ pass: z.array(z.string().regex(passPattern, 'a variable name such as "JAVA_HOME", or a prefix such as "GRADLE_*"')).default([]) })
        .strict()
        .default({ pass: [] }),
      /** Declared runs by name, offered as `!run <name>` and in the "/" menu. */
      runs: z.record(z.string().regex(/^[A-Za-z][\w-]*$/, 'a run name: a letter, then letters, digits, "_" or "-"'), RunSchema).default({}),
    })
    .strict();

  return { RuleSchema, McpServerSchema, RunStepSchema, RunSchema, PolicySchema };
}

export const policySchemas = once(buildSchemas);
type Schemas = ReturnType<typeof buildSchemas>;

export type Rule = z.infer<Schemas['RuleSchema']>;
export type DeclaredRun = z.infer<Schemas['RunSchema']>;
export type RunStep = z.infer<Schemas['RunStepSchema']>;
export type Policy = z.infer<Schemas['PolicySchema']>;
export type McpServerDeclaration = z.infer<Schemas['McpServerSchema']>;
export type ToolKindName = (typeof toolKinds)[number];
