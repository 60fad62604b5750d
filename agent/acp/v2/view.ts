// One session as an ACP v2 client sees it. The agent emits v1-shaped updates
// (clientView.ts shapes them per client); this turns each into the v2 ones:
// chunks get a `messageId`, `tool_call` becomes the `tool_call_update` upsert,
// a command's live output becomes an agent-owned terminal, diffs become
// structured file changes in the session's isolated workspace with a git
// patch, `plan` becomes `plan_update`, commands and config options take their
// v2 shapes. It is stateful (which message is open, which tool calls and
// terminals exist, where the workspace is), so a resumed client's earlier
// updates are taken silently (folded) before the later ones are shown.
//
// Ids are derived from log offsets where the update has one, so a replay
// yields the same message ids as the live session did; tool-call ids are the
// agent's own, terminal ids derive from them, so they match too.
import { isAbsolute, join, relative } from 'node:path';
import { offsetCarried } from '../../log/offsets';
import { gitPatchSection } from './gitPatch';

type Json = Record<string, unknown>;
export type V1Update = Json & { sessionUpdate: string };
export type V2Update = Json & { sessionUpdate: string };

const MESSAGE_KINDS: Record<string, string> = {
  user_message_chunk: 'user',
  agent_message_chunk: 'agent',
  agent_thought_chunk: 'thought',
};

const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled']);

/** An agent-owned terminal's id: its command's tool call id after this. */
export const TERMINAL_PREFIX = 'terminal-';

/** The one plan an Accord session has (its `plan` tool replaces it whole). */
export const PLAN_ID = 'plan';

/** How many diffs' patches a view keeps for the updates that repeat them. */
const RECENT_PATCHES = 8;

interface ToolState {
  kind?: string;
  status?: string;
  title?: string;
  cwd?: string;
  terminalId?: string;
  /** Terminal output the client has, for sending only what was added. */
  shown: string;
  /** The card's content as the client has it (each item's JSON), for sending only what was appended. */
  content?: string[];
}

export class SessionV2View {
  private open: { kind: string; id: string } | undefined;
  private liveIds = 0;
  private readonly toolCalls = new Map<string, ToolState>();
  private readonly recentPatches: Array<{ path: string; oldText: string | null; newText: string; text: string }> = [];
  private root: string | undefined;

  constructor(
    private readonly cwd: string,
    root?: string,
  ) {
    this.root = root;
  }

  /** Where the session's isolated workspace is (from session/resume's `_meta`, or a replayed update). */
  workspaceAt(root: string | undefined): void {
    if (root && isAbsolute(root)) this.root = root;
  }

  /** A user message the v2 prompt inserted (its id is the prompt response's). */
  userMessage(messageId: string, content: unknown[]): V2Update[] {
    this.open = { kind: 'user', id: messageId };
    return [{ sessionUpdate: 'user_message', messageId, content }];
  }

  /** A new id for a message with no log offset (no log, or a message only this connection sees). */
  liveMessageId(kind: string): string {
    this.liveIds += 1;
    return `${kind}-live-${this.liveIds}`;
  }

  /** The v2 updates for one v1 update; the view's state moves on either way (fold: ignore the result). */
  take(update: V1Update): V2Update[] {
    const offset = offsetCarried(update);
    const meta = update._meta;
    this.noteWorkspace(meta);
    const kind = MESSAGE_KINDS[update.sessionUpdate];
    if (kind) return [{ ...update, messageId: this.messageId(kind, offset) }];
    switch (update.sessionUpdate) {
      case 'tool_call':
        this.open = undefined;
        return this.toolCall(update, true);
      case 'tool_call_update':
        if (!this.toolCalls.has(String(update.toolCallId))) this.open = undefined;
        return this.toolCall(update, false);
      case 'plan':
        return [strip({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: PLAN_ID, entries: update.entries }, _meta: meta })];
      case 'available_commands_update':
        return [{ ...update, availableCommands: (update.availableCommands as Json[]).map(command) }];
      case 'config_option_update':
        return [{ ...update, configOptions: configOptionsV2(update.configOptions as Json[]) }];
      case 'current_mode_update':
        return []; // v2 has no modes: the mode is a config option (category "mode"), updated with the others
      default:
        return [update];
    }
  }

  /** The v2 shape of a tool call as a permission request's subject shows it (the same upsert as the update). */
  permissionSubject(toolCall: Json): Json {
    const id = String(toolCall.toolCallId);
    const known = this.toolCalls.get(id);
    const state: ToolState = known ?? { shown: '' };
    if (!known) this.toolCalls.set(id, state);
    remember(state, toolCall);
    return strip({ ...toolCall, ...(toolCall.content ? { content: this.content(toolCall.content as Json[]) } : {}) });
  }

  private messageId(kind: string, offset: number | undefined): string {
    if (this.open?.kind === kind) return this.open.id;
    const id = offset === undefined ? this.liveMessageId(kind) : `${kind}-${offset}`;
    this.open = { kind, id };
    return id;
  }

  private noteWorkspace(meta: unknown): void {
    const workspace = meta !== null && typeof meta === 'object' ? (meta as Json)['accord/workspace'] : undefined;
    if (workspace !== null && typeof workspace === 'object') this.workspaceAt(String((workspace as Json).root ?? ''));
  }

  private toolCall(v1Update: V1Update, created: boolean): V2Update[] {
    // A call may be cancelled on its own (tool_call/cancel) from its creation until its final status.
    const final = FINAL_STATUSES.has(String(v1Update.status));
    const update: V1Update = final ? { ...v1Update, capabilities: null } : created ? { ...v1Update, capabilities: { cancel: {} } } : v1Update;
    const id = String(update.toolCallId);
    let state = this.toolCalls.get(id);
    if (!state || created) {
      state = { shown: '', ...(state?.terminalId ? { terminalId: state.terminalId } : {}) };
      this.toolCalls.set(id, state);
    }
    remember(state, update);
    const { sessionUpdate: _, ...fields } = update;
    const base: V2Update = { ...fields, sessionUpdate: 'tool_call_update' };
    if (created && base.status === undefined) base.status = 'pending';
    const content = update.content as Json[] | undefined;
    if (state.kind === 'execute' && content) {
      const terminal = this.terminal(id, state, update, content);
      if (terminal) return terminal.map((u) => strip(u));
    }
    if (!content) return [strip(base as V2Update)];
    const items = this.content(content);
    const had = state.content;
    const now = items.map((item) => JSON.stringify(item));
    state.content = now;
    const appended = had !== undefined && now.length > had.length && had.every((item, i) => item === now[i]);
    if (!appended) return [strip({ ...base, content: items } as V2Update)];
    // Items added after the ones the client has: each one appended with tool_call_content_chunk.
    const out: V2Update[] = [];
    const { content: _replaced, ...fieldsOnly } = base;
    if (Object.keys(fieldsOnly).some((key) => !['sessionUpdate', 'toolCallId', '_meta'].includes(key))) out.push(strip(fieldsOnly as V2Update));
    for (const item of items.slice(had.length)) out.push(strip({ sessionUpdate: 'tool_call_content_chunk', toolCallId: id, content: item, _meta: update._meta } as V2Update));
    return out;
  }

  /**
   * A command's output as an agent-owned terminal: live snapshots become
   * `terminal_output_chunk`s (or a whole `terminal_update` when the tail
   * window moved), the result line becomes the exit status. Undefined: this
   * content is not output (the approval text, or a refusal), shown as is.
   */
  private terminal(toolCallId: string, state: ToolState, update: V1Update, content: Json[]): V2Update[] | undefined {
    const text = content.length === 1 && content[0]!.type === 'content' ? String(((content[0]!.content ?? {}) as Json).text ?? '') : undefined;
    if (text === undefined) return undefined;
    const status = state.status;
    const final = status === 'completed' || status === 'failed';
    const meta = update._meta;
    const out: V2Update[] = [];
    let output = text;
    let exitStatus: Json | undefined;
    if (final) {
      const parsed = commandResult(text);
      if (!parsed) return undefined;
      output = parsed.output;
      exitStatus = parsed.exitStatus;
    } else if (status !== 'in_progress') {
      return undefined;
    }
    const { sessionUpdate: _, content: __, ...fields } = update;
    let opened = false;
    if (!state.terminalId) {
      state.terminalId = `${TERMINAL_PREFIX}${toolCallId}`;
      opened = true;
      // Cancellable (terminal/cancel stops its command's call) until it exits.
      const cancel = final ? {} : { capabilities: { cancel: {} } };
      out.push({ sessionUpdate: 'terminal_update', terminalId: state.terminalId, ...(state.title ? { command: state.title } : {}), ...(state.cwd ? { cwd: this.workspacePath(state.cwd) } : {}), ...cancel, _meta: meta });
    }
    const terminalId = state.terminalId;
    const exited = exitStatus ? { exitStatus, ...(opened ? {} : { capabilities: null }) } : {};
    if (output.startsWith(state.shown) && !(final && output === '(no output)')) {
      const added = output.slice(state.shown.length);
      if (added) out.push({ sessionUpdate: 'terminal_output_chunk', terminalId, data: base64(added), _meta: meta });
      if (exitStatus) out.push({ sessionUpdate: 'terminal_update', terminalId, ...exited, _meta: meta });
    } else {
      // The tail window moved (or the result keeps only the start and end): the whole text again.
      const whole = final && output === '(no output)' ? '' : output;
      out.push({ sessionUpdate: 'terminal_update', terminalId, output: { data: base64(whole) }, ...exited, _meta: meta });
    }
    state.shown = output;
    // The card shows the terminal; once set it stays (content omitted = unchanged).
    const card: Json = { ...fields, sessionUpdate: 'tool_call_update', ...(opened ? { content: [{ type: 'terminal', terminalId }] } : {}) };
    if (opened) state.content = [JSON.stringify({ type: 'terminal', terminalId })];
    if (opened || Object.keys(card).some((key) => !['sessionUpdate', 'toolCallId', '_meta'].includes(key))) out.push(card as V2Update);
    return out;
  }

  private content(items: Json[]): Json[] {
    return items.map((item) => (item.type === 'diff' ? this.diff(item) : item));
  }

  /** A v1 diff (the person's path, old and new text) as v2 file changes at the workspace path, with a git patch. */
  private diff(item: Json): Json {
    const path = this.workspacePath(String(item.path));
    const oldText = typeof item.oldText === 'string' ? item.oldText : null;
    const newText = typeof item.newText === 'string' ? item.newText : '';
    return {
      type: 'diff',
      changes: [{ operation: oldText === null ? 'add' : 'modify', path, fileType: 'text' }],
      patch: { format: 'git_patch', text: this.patch(path, oldText, newText) },
      ...(item._meta ? { _meta: item._meta } : {}),
    };
  }

  /**
   * A call's diff comes again in its later updates (pending, then completed)
   * and diffing dominated a v2 replay (jsdiff: ~0.2 ms for a 20-line change),
   * so the last few are kept: comparing the texts costs far less than diffing them.
   */
  private patch(path: string, oldText: string | null, newText: string): string {
    const known = this.recentPatches.find((p) => p.path === path && p.oldText === oldText && p.newText === newText);
    if (known) return known.text;
    const text = gitPatchSection(path, oldText, newText);
    this.recentPatches.unshift({ path, oldText, newText, text });
    if (this.recentPatches.length > RECENT_PATCHES) this.recentPatches.pop();
    return text;
  }

  /** v1 diffs name the person's file (under cwd); v2 names the file in the isolated workspace. */
  workspacePath(clientPath: string): string {
    if (!this.root || this.root === this.cwd) return clientPath;
    const inside = relative(this.cwd, clientPath);
    if (inside === '..' || inside.startsWith('../') || isAbsolute(inside)) return clientPath;
    return inside ? join(this.root, inside) : this.root;
  }
}

function remember(state: ToolState, update: Json): void {
  if (typeof update.kind === 'string') state.kind = update.kind;
  if (typeof update.status === 'string') state.status = update.status;
  if (typeof update.title === 'string') state.title = update.title;
  const locations = update.locations as Array<{ path?: unknown }> | undefined;
  if (Array.isArray(locations) && typeof locations[0]?.path === 'string') state.cwd = locations[0].path;
}

/** run_command's result: "Exit code N." / "Killed by signal S." / "Timed out … (S)." then the output. */
function commandResult(text: string): { exitStatus: Json; output: string } | undefined {
  const newline = text.indexOf('\n');
  const first = newline === -1 ? text : text.slice(0, newline);
  const output = newline === -1 ? '' : text.slice(newline + 1);
  const code = /^Exit code (-?\d+)\.$/.exec(first);
  if (code) return { exitStatus: { exitCode: Number(code[1]) }, output };
  const signal = /^Killed by signal (\w+)\.$/.exec(first) ?? /^Timed out after \d+ ms and was killed(?: \((\w+)\))?\.$/.exec(first);
  if (signal) return { exitStatus: signal[1] ? { signal: signal[1] } : {}, output };
  return undefined;
}

function command(item: Json): Json {
  const input = item.input as Json | undefined | null;
  return { ...item, type: 'command', ...(input ? { input: { type: 'text', hint: String(input.hint ?? '') } } : {}) };
}

/** v1 config options as v2's: `id` → `configId`, a group's `group` → `groupId`. */
export function configOptionsV2(options: Json[] | undefined): Json[] {
  return (options ?? []).map(({ id, options: values, ...rest }) => ({
    ...rest,
    configId: id,
    ...(Array.isArray(values) ? { options: values.map((v: Json) => ('group' in v ? (({ group, ...g }) => ({ ...g, groupId: group }))(v) : v)) } : {}),
  }));
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** Drops `_meta: undefined` (the SDK's validation wants it absent or an object). */
function strip<T extends Json>(update: T): T {
  if (update._meta === undefined || update._meta === null) {
    const { _meta: _, ...rest } = update;
    return rest as T;
  }
  return update;
}
