// The shape every tool has. One tool per file; the turn loop knows tools only
// through this interface, and the permission gate sees only `effect`.
import type { z } from 'zod';

/** ACP's tool kinds. MCP tools are `other`. */
export type ToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'other';

export interface ToolLocation {
  /** Absolute path. */
  path: string;
  /** 1-based line, when the call is about one place in the file. */
  line?: number;
}

/** One file's proposed change; `null` text means the file does not exist on that side. */
export interface FileChange {
  path: string;
  oldText: string | null;
  newText: string | null;
  /** Set for moves: `path` is the source, `movedTo` the destination. */
  movedTo?: string;
}

export interface CommandEffect {
  argv: string[];
  cwd: string;
  /** Variables the call adds or changes relative to the agent's own environment. */
  envChanges: Record<string, string>;
  timeoutMs: number;
}

/**
 * Everything a call would do, computed before it runs. This is what a person
 * approves and exactly what `run` then does; an edit never writes anything
 * other than the `newText` that was shown.
 */
export type ToolEffect =
  | { type: 'none' }
  | { type: 'files'; changes: FileChange[] }
  | { type: 'command'; command: CommandEffect }
  | { type: 'plan' }
  /**
   * The call cannot go ahead as given (path outside the workspace, text not
   * found, ...). Nothing to approve: the turn loop reports `message` to the
   * model as a failed result without asking; `run` given this effect returns
   * the same failure.
   */
  | { type: 'error'; message: string };

/** Content shown to the person; mirrors ACP `ToolCallContent`. */
export type ToolUserContent =
  | { type: 'text'; text: string }
  | { type: 'diff'; path: string; oldText: string | null; newText: string }
  | { type: 'terminal'; terminalId: string };

export interface ToolResult {
  /** What the model sees as the tool's result. */
  forModel: string;
  /** What the card shows. */
  forUser: ToolUserContent[];
  /** A failed call is still a result: the model sees why, the card shows `failed`. */
  isError?: boolean;
}

export interface CommandOptions {
  cwd: string;
  envChanges: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput(chunk: string): void;
  /** Bytes of output kept; older output is dropped from the front. */
  maxOutputBytes: number;
}

export interface CommandOutcome {
  exitCode: number | null;
  signal: string | null;
  output: string;
  truncated: boolean;
  timedOut: boolean;
}

/** Runs one argv without a shell. The sandbox supplies a confining implementation. */
export interface CommandRunner {
  run(argv: string[], options: CommandOptions): Promise<CommandOutcome>;
}

export interface PlanEntry {
  content: string;
  priority: 'high' | 'medium' | 'low';
  status: 'pending' | 'in_progress' | 'completed';
}

export interface ToolContext {
  /** The session workspace root (absolute; may be a symlink). Every path a tool touches resolves inside its real path. */
  root: string;
  signal: AbortSignal;
  commands: CommandRunner;
  /** Streams partial output (e.g. a running command) to the tool card; `meta` goes along as the update's `_meta`. */
  progress(text: string, meta?: Record<string, unknown>): void;
  /** Replaces the session's plan. */
  setPlan(entries: PlanEntry[]): void;
  /**
   * Why the file at this absolute path must be left out of what a listing or
   * search shows (a policy rule keeps it from the model), or undefined.
   * Absent: nothing is hidden.
   */
  hidden?(absolutePath: string): string | undefined;
  /** The id of the call being run (its card), when run by the turn loop. */
  toolCallId?: string;
}

export interface Tool<Input = unknown> {
  name: string;
  kind: ToolKind;
  /** For the model: what the tool does and when to use it. */
  description: string;
  input: z.ZodType<Input>;
  /** The input's JSON Schema as given by another program (an MCP server); the model gets it instead of one derived from `input`. */
  inputJsonSchema?: Record<string, unknown>;
  describe(input: Input, ctx: Pick<ToolContext, 'root'>): { title: string; locations: ToolLocation[] };
  effect(input: Input, ctx: ToolContext): Promise<ToolEffect>;
  run(input: Input, ctx: ToolContext, approved: ToolEffect): Promise<ToolResult>;
}
