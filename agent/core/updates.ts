// The session updates the core produces. They mirror ACP v1 `session/update`
// payloads field for field, so the adapter forwards them unchanged; the core
// itself stays free of the protocol SDK.
import type { PlanEntry, ToolKind, ToolLocation } from '../tools/tool';

export interface TextContent {
  type: 'text';
  text: string;
}

export type ToolCallContent =
  | { type: 'content'; content: TextContent }
  | { type: 'diff'; path: string; oldText?: string | null; newText: string }
  | { type: 'terminal'; terminalId: string };

export type ToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

/** Fields of an ACP ToolCall / ToolCallUpdate; only `toolCallId` is required. */
export interface ToolCallFields {
  toolCallId: string;
  title?: string;
  kind?: ToolKind;
  status?: ToolCallStatus;
  content?: ToolCallContent[];
  locations?: ToolLocation[];
  rawInput?: unknown;
  rawOutput?: unknown;
  _meta?: Record<string, unknown>;
}

export interface SelectConfigOption {
  id: string;
  name: string;
  description?: string;
  category?: string;
  type: 'select';
  currentValue: string;
  /** Flat, or in named groups (ACP's SessionConfigSelectGroup), e.g. the models by provider. */
  options: SelectValue[] | SelectGroup[];
}

export interface SelectValue {
  value: string;
  name: string;
  description?: string;
}

export interface SelectGroup {
  group: string;
  name: string;
  options: SelectValue[];
}

/** Every value of a select option, groups flattened. */
export function selectValues(option: SelectConfigOption): SelectValue[] {
  return (option.options as Array<SelectValue | SelectGroup>).flatMap((o) => ('group' in o ? o.options : [o]));
}

export interface AvailableCommand {
  name: string;
  description: string;
  input?: { hint: string };
}

export type CompactionStatus = 'in_progress' | 'completed' | 'failed' | 'cancelled';

/** A child session's state (ACP's v2 StateUpdate shapes, as the unstable `subagent_update` carries them). */
export type ChildState = { state: 'running' } | { state: 'idle'; stopReason: StopReason | 'error' };

/** `_meta` key marking a tool_call_update that shows a child's progress in its parent's `task` card. */
export const CHILD_PROGRESS_META = 'accord/childProgress';
/** `_meta` key of a subagent_update naming the parent's tool call that started the child (where the panel nests it). */
export const CHILD_TOOL_CALL_META = 'accord.dev/toolCallId';

export type SessionUpdate =
  | { sessionUpdate: 'user_message_chunk'; content: TextContent }
  | { sessionUpdate: 'agent_message_chunk'; content: TextContent }
  | { sessionUpdate: 'agent_thought_chunk'; content: TextContent }
  | ({ sessionUpdate: 'tool_call'; title: string } & ToolCallFields)
  | ({ sessionUpdate: 'tool_call_update' } & ToolCallFields)
  | { sessionUpdate: 'plan'; entries: PlanEntry[] }
  | { sessionUpdate: 'usage_update'; used: number; size: number; cost?: { amount: number; currency: string }; _meta?: Record<string, unknown> }
  | { sessionUpdate: 'available_commands_update'; availableCommands: AvailableCommand[] }
  | { sessionUpdate: 'config_option_update'; configOptions: SelectConfigOption[] }
  /** v1's mode announcement (modes.ts); v2 reads the mode from the config option instead. */
  | { sessionUpdate: 'current_mode_update'; currentModeId: string }
  | { sessionUpdate: 'compaction_update'; compactionId: string; status: CompactionStatus; summary?: TextContent[] | null; error?: string | null }
  | { sessionUpdate: 'compaction_summary_chunk'; compactionId: string; content: TextContent }
  | { sessionUpdate: 'subagent_update'; sessionId: string; title?: string; description?: string; state?: ChildState; _meta?: Record<string, unknown> }
  /**
   * Core-internal: an update of a child session, carried on its parent so the
   * parent's log holds (and a load replays) the child's work. The adapter
   * unwraps it for clients that read child sessions and drops it for others.
   */
  | { sessionUpdate: '_accord/child'; sessionId: string; update: SessionUpdate };

/** Exactly one per prompt. `waiting`: a durable approval is pending (Accord's --durable-requests, beyond v1). */
export type StopReason = 'end_turn' | 'cancelled' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'waiting';
