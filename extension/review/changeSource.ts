// Where reviewed changes come from. Three kinds of agent, one review: each
// source turns what its agent does into `ProposedChange`s for the store, and
// the session wiring feeds every source the same turn and tool-call events.
import type { ChangeOrigin, FileReview, ProposedChange } from './fileReview';

/** Receives proposals; the `ReviewStore` is one. */
export interface ChangeSink {
  propose(change: ProposedChange): FileReview;
  /** The review of one file in one turn, by `fileId`. */
  get(id: string): FileReview | undefined;
}

/**
 * The parts of an ACP `tool_call` / `tool_call_update` a source looks at.
 * Structural, so the SDK's objects pass straight in.
 */
export interface ToolCallFacts {
  toolCallId: string;
  status?: string | null;
  locations?: readonly { path: string }[] | null;
  content?: readonly { type: string; path?: string; oldText?: string | null; newText?: string }[] | null;
  kind?: string | null;
  rawInput?: unknown;
}

export interface ChangeSource {
  readonly origin: ChangeOrigin;
  dispose(): void;
}

/** A source that follows the turn: the session wiring calls these for every turn and tool call. */
export interface TurnAwareSource extends ChangeSource {
  /** A prompt turn starts (before the agent can act on it). */
  beginTurn(sessionId: string, turnId: string): Promise<void>;
  /** A tool call was announced or updated during the turn. */
  toolCall(sessionId: string, turnId: string, call: ToolCallFacts): Promise<void>;
  /** The turn ended (any stop reason); late changes are collected here. */
  endTurn(sessionId: string, turnId: string): Promise<void>;
}

/** The ACP diff blocks in a tool call (`{type:'diff', path, oldText, newText}`). */
export function diffBlocks(call: ToolCallFacts): { path: string; oldText: string | null; newText: string }[] {
  const out: { path: string; oldText: string | null; newText: string }[] = [];
  for (const block of call.content ?? []) {
    if (block.type === 'diff' && typeof block.path === 'string' && typeof block.newText === 'string') {
      out.push({ path: block.path, oldText: block.oldText ?? null, newText: block.newText });
    }
  }
  return out;
}

/** Paths a tool call says it touches: its locations and its diff blocks. */
export function touchedPaths(call: ToolCallFacts): string[] {
  const paths = new Set<string>();
  for (const location of call.locations ?? []) paths.add(location.path);
  for (const diff of diffBlocks(call)) paths.add(diff.path);
  return [...paths];
}

export const isFinished = (call: ToolCallFacts): boolean => call.status === 'completed' || call.status === 'failed';

/** Kinds of call that never change files: no snapshot of a folder is needed before them. */
const READ_ONLY_KINDS = new Set(['read', 'search', 'think', 'fetch', 'switch_mode']);

/** A call of a kind that never changes files (its card gets no review badge for the files it names). */
export const readsOnly = (kind: string | null | undefined): boolean => kind !== undefined && kind !== null && READ_ONLY_KINDS.has(kind);

/** Whether a call may write where it does not say (a command, an unknown tool): its working folder then needs a snapshot. */
export function mayWriteAnywhere(call: ToolCallFacts): boolean {
  if (call.kind && READ_ONLY_KINDS.has(call.kind)) return false;
  if (call.kind === 'execute' || commandCwd(call) !== undefined) return true;
  // An edit, delete or move that names its files touches those; anything else may touch anything.
  return touchedPaths(call).length === 0 && call.kind !== 'edit' && call.kind !== 'delete' && call.kind !== 'move';
}

/** The working folder a command names in its raw input (`cwd` or `workdir`), if it names one. */
export function commandCwd(call: Pick<ToolCallFacts, 'rawInput'>): string | undefined {
  const raw = call.rawInput;
  if (typeof raw !== 'object' || raw === null) return undefined;
  const record = raw as Record<string, unknown>;
  const cwd = record.cwd ?? record.workdir;
  return typeof cwd === 'string' && cwd.length > 0 ? cwd : undefined;
}
