// The panel's view of a session, built only from ACP `session/update`
// payloads and a few host messages. Plain data: the reducer mutates it in
// place and bumps `rev` on whatever changed, so the view re-renders only that.

export type ContentBlock = { type: string; [key: string]: unknown };

export interface Attachment {
  kind: 'resource_link' | 'resource' | 'image' | 'audio' | 'other';
  name: string;
  uri?: string;
  /** data: URL for images (base64 from the agent, shown only as data:). */
  dataUrl?: string;
}

export type ToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface ToolLocation {
  path: string;
  line?: number;
}

export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'diff'; path: string; oldText: string | null; newText: string }
  | TerminalContent
  | { type: 'other'; label: string };

/** A terminal shown in a tool card: the client's own (terminal/create) or one the agent runs and streams in `_meta`. */
export interface TerminalContent {
  type: 'terminal';
  terminalId: string;
  /** The output so far (raw, escape sequences included: the view renders them safely), at most TERMINAL_KEEP characters. */
  output?: string;
  /** Earlier output was dropped to keep the panel bounded. */
  dropped?: boolean;
  exit?: { exitCode: number | null; signal: string | null };
}

export interface ToolCall {
  toolCallId: string;
  title: string;
  kind: string;
  status: ToolStatus;
  content: ToolContent[];
  locations: ToolLocation[];
  rawInput?: unknown;
  rawOutput?: unknown;
  /** Child (subagent) sessions started by this call. */
  children: string[];
}

export interface PlanEntry {
  content: string;
  priority: string;
  status: string;
}

export interface Compaction {
  compactionId: string;
  status: string;
  summary: string;
  error?: string;
}

interface ItemBase {
  /** Stable key for rendering. */
  key: string;
  rev: number;
}

export type Item =
  | (ItemBase & { kind: 'user'; messageId?: string; text: string; attachments: Attachment[] })
  | (ItemBase & { kind: 'agent'; messageId?: string; text: string })
  | (ItemBase & { kind: 'thought'; messageId?: string; text: string; streaming: boolean })
  | (ItemBase & { kind: 'tool'; toolCallId: string })
  | (ItemBase & { kind: 'compaction'; compactionId: string })
  | (ItemBase & { kind: 'turnEnd'; stopReason: string; error?: string })
  | (ItemBase & { kind: 'child'; sessionId: string });

export type ItemKind = Item['kind'];

/** One session's transcript (the panel's session or a child). */
export interface Transcript {
  sessionId: string;
  title?: string;
  items: Item[];
  tools: Map<string, ToolCall>;
  compactions: Map<string, Compaction>;
  /** Bumped on any change (drives re-render of nested child views). */
  rev: number;
}

export interface Usage {
  used: number;
  size: number;
  cost?: { amount: number; currency: string };
  /** The counts are an estimate (the provider reports none); the gauge says so. */
  estimated?: boolean;
}

export interface Notice {
  severity: string;
  title: string;
  description?: string;
}

export interface SubagentInfo {
  sessionId: string;
  title?: string;
  description?: string;
  state?: string;
  parentToolCallId?: string;
}
