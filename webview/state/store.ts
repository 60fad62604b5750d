// The panel's state: a reducer over validated host messages. ACP updates go
// to the transcript of their session (the panel's session or a child);
// session-wide updates (plan, usage, commands, config) land here.
import type { AcpConfigOptions, AcpAvailableCommands, AgentFailure, AgentStatus, ApprovalOption, DiffReviewState, FileCompletion, HostMessage, HostMessageOf, ModelSetup, PromptCapabilities, PromptImage, PromptMention, SessionSummary } from '../protocol';
import { isRecord, str } from './content';
import { appendChunk, attachChild, cancelUnfinishedTools, newTranscript, patchTool, pushTurnEnd, runningToolId, touchTool, upsertCompaction, upsertTool } from './transcript';
import type { Notice, PlanEntry, SubagentInfo, TerminalContent, Transcript, Usage } from './types';

export interface PendingApproval {
  requestId: string;
  toolCallId: string;
  options: ApprovalOption[];
  agentName?: string;
}

export interface Turn {
  running: boolean;
  /** Session cost when the turn started, to show the turn's own cost. */
  costAtStart?: number;
  cost?: number;
}

export type Logger = (level: 'info' | 'warn', message: string) => void;

const SESSION_WIDE = new Set(['plan', 'plan_update', 'plan_removed', 'available_commands_update', 'config_option_update', 'current_mode_update', 'session_info_update', 'usage_update', 'notice', 'subagent_update']);

/** What the host said of one tool card's file under review. */
interface ToolReview {
  state: DiffReviewState;
  kind?: 'added' | 'modified' | 'deleted' | 'moved';
  added?: number;
  removed?: number;
  /** The agent did not show what the file held before: Reject leaves it as it is. */
  unknownBase?: boolean;
}

/** Client-owned terminals the panel remembers per session (each holds at most the tail the extension sends). */
const MAX_TERMINALS = 64;

export class ChatStore {
  epoch = 0;
  sessionId: string | undefined;
  title: string | undefined;
  replaying = false;
  agent: AgentStatus = { state: 'starting' };
  /** The agent in view failed: shown until it is over, a session starts or the person dismisses it. */
  failure: AgentFailure | undefined;
  hideThoughts = false;
  sessions: SessionSummary[] = [];
  main: Transcript = newTranscript('');
  children = new Map<string, Transcript>();
  subagents = new Map<string, SubagentInfo>();
  plan: PlanEntry[] = [];
  usage: Usage | undefined;
  compacting = false;
  turn: Turn = { running: false };
  commands: AcpAvailableCommands = [];
  configOptions: AcpConfigOptions = [];
  /** The bundled agent's models before a session exists, and whether it still needs one (the setup card). */
  setup: ModelSetup | undefined;
  modeId: string | undefined;
  capabilities: PromptCapabilities = {};
  approvals = new Map<string, PendingApproval>();
  reviews = new Map<string, ToolReview>();
  /** Tool calls whose approval the person declined (or that were cancelled while waiting): their card says so. */
  declined = new Set<string>();
  /** The session's changed files per turn, as the review sees them. */
  changes: Pick<HostMessageOf<'reviewChanges'>, 'pending' | 'turns'> = { pending: 0, turns: [] };
  completions: { query: string; items: FileCompletion[] } = { query: '', items: [] };
  notices: Notice[] = [];
  /**
   * Client-owned terminals of this session as the extension last reported
   * them (terminal/create), by id: a card naming one draws this. Kept apart
   * from the cards because the output may come before the card names it.
   */
  terminals = new Map<string, Pick<TerminalContent, 'output' | 'dropped' | 'exit'>>();
  /** Bumped on every applied message; the view skips frames where nothing changed. */
  rev = 0;
  dropped = 0;

  constructor(private readonly log: Logger = () => {}) {}

  /** Apply one validated host message. Returns false when it was dropped (stale epoch). */
  apply(message: HostMessage): boolean {
    if ('epoch' in message && message.type !== 'hello' && message.type !== 'sessionStarted' && message.epoch !== this.epoch) {
      this.dropped += 1;
      return false;
    }
    this.rev += 1;
    switch (message.type) {
      case 'hello':
        this.epoch = message.epoch;
        return true;
      case 'agentStatus':
        this.agent = message.status;
        return true;
      case 'agentFailure':
        this.failure = message.failure ?? undefined;
        return true;
      case 'settings':
        this.hideThoughts = message.hideThoughts;
        return true;
      case 'modelSetup':
        this.setup = message.setup;
        return true;
      case 'sessionList':
        this.sessions = message.sessions;
        return true;
      case 'sessionStarted':
        this.failure = undefined;
        this.startSession(message.epoch, message.sessionId, message.title, message.origin);
        return true;
      case 'replayBegin':
        this.replaying = true;
        return true;
      case 'replayEnd':
        this.replaying = false;
        return true;
      case 'sessionUpdate':
        this.applyUpdate(message.sessionId, message.update);
        return true;
      case 'turnStarted':
        this.turn = { running: true, costAtStart: this.usage?.cost?.amount };
        return true;
      case 'turnEnded':
        this.endTurn(message.stopReason, message.error);
        return true;
      case 'approvalPending':
        this.addApproval(message.requestId, message.toolCall, message.options, message.agentName);
        return true;
      case 'approvalResolved':
        this.resolveApproval(message.requestId, message.outcome, message.optionId);
        return true;
      case 'terminalOutput':
        this.terminals.delete(message.terminalId); // re-inserted last: the oldest are dropped past the cap
        this.terminals.set(message.terminalId, { output: message.output, dropped: message.dropped, ...(message.exit ? { exit: message.exit } : {}) });
        while (this.terminals.size > MAX_TERMINALS) this.terminals.delete(this.terminals.keys().next().value!);
        this.touchTerminal(message.terminalId);
        return true;
      case 'configOptions':
        this.configOptions = message.configOptions;
        return true;
      case 'availableCommands':
        this.commands = message.commands;
        return true;
      case 'promptCapabilities':
        this.capabilities = message.capabilities;
        return true;
      case 'fileCompletions':
        this.completions = { query: message.query, items: message.items };
        return true;
      case 'diffReview':
        this.reviews.set(`${message.toolCallId}\n${message.path}`, {
          state: message.state,
          ...(message.kind !== undefined && message.added !== undefined && message.removed !== undefined
            ? { kind: message.kind, added: message.added, removed: message.removed }
            : {}),
          ...(message.unknownBase ? { unknownBase: true } : {}),
        });
        touchTool(this.main, message.toolCallId);
        return true;
      case 'reviewChanges':
        this.changes = { pending: message.pending, turns: message.turns };
        return true;
    }
  }

  /** Re-render the cards that show this terminal. */
  private touchTerminal(terminalId: string): void {
    for (const t of [this.main, ...this.children.values()]) {
      for (const tool of t.tools.values()) {
        if (tool.content.some((c) => c.type === 'terminal' && c.terminalId === terminalId)) touchTool(t, tool.toolCallId);
      }
    }
  }

  /** The person's own prompt, shown at once; the agent's live echo of it is then skipped. */
  addLocalPrompt(text: string, mentions: PromptMention[], images: PromptImage[] = []): void {
    appendChunk(this.main, 'user', { content: { type: 'text', text } });
    for (const mention of mentions) {
      const lines = mention.range ? `#L${mention.range.startLine}-L${mention.range.endLine}` : '';
      appendChunk(this.main, 'user', { content: { type: 'resource_link', uri: `file://${mention.path}${lines}`, name: mention.name } });
    }
    for (const image of images) appendChunk(this.main, 'user', { content: { type: 'image', mimeType: image.mimeType, data: image.data } });
    // "Working…" and Stop at once, before the host answers (it may have to start the agent and a session first).
    this.turn = { running: true, costAtStart: this.usage?.cost?.amount };
    this.echoGuard = true;
    this.rev += 1;
  }

  private echoGuard = false;

  review(toolCallId: string, path: string): DiffReviewState | undefined {
    return this.reviews.get(`${toolCallId}\n${path}`)?.state;
  }

  /** Whether the review of a card's file says the agent did not show what was there before. */
  unknownBase(toolCallId: string, path: string): boolean {
    return this.reviews.get(`${toolCallId}\n${path}`)?.unknownBase === true;
  }

  /** The review's own kind and line counts for a card's diff, when the host sent them. */
  reviewedChange(toolCallId: string, path: string): Required<Omit<ToolReview, 'state' | 'unknownBase'>> | undefined {
    const review = this.reviews.get(`${toolCallId}\n${path}`);
    return review?.kind !== undefined && review.added !== undefined && review.removed !== undefined
      ? { kind: review.kind, added: review.added, removed: review.removed }
      : undefined;
  }

  transcript(sessionId: string): Transcript | undefined {
    return sessionId === this.main.sessionId ? this.main : this.children.get(sessionId);
  }

  private startSession(epoch: number, sessionId: string, title: string | undefined, origin: 'new' | 'load'): void {
    // The first prompt is sent before any session exists and creates it: keep it on screen.
    const earlyPrompts = this.sessionId === undefined && origin === 'new' ? this.main.items : [];
    this.epoch = epoch;
    this.sessionId = sessionId;
    this.title = title;
    this.main = newTranscript(sessionId);
    this.main.items.push(...earlyPrompts);
    this.children.clear();
    this.subagents.clear();
    this.plan = [];
    this.usage = undefined;
    // The first prompt, still being sent, keeps its "Working…" and Stop while the session it created starts.
    this.turn = earlyPrompts.length > 0 ? this.turn : { running: false };
    this.approvals.clear();
    this.reviews.clear();
    this.declined.clear();
    this.terminals.clear();
    this.changes = { pending: 0, turns: [] };
    this.notices = [];
    this.replaying = false;
    this.echoGuard = earlyPrompts.length > 0;
  }

  applyUpdate(sessionId: string, update: Record<string, unknown>): void {
    const kind = update.sessionUpdate as string;
    const isMain = sessionId === this.main.sessionId;
    if (isMain && SESSION_WIDE.has(kind)) return this.applySessionWide(kind, update);
    const t = isMain ? this.main : this.childTranscript(sessionId);
    switch (kind) {
      case 'user_message_chunk':
        if (isMain && this.echoGuard && !this.replaying) return;
        return appendChunk(t, 'user', update);
      case 'agent_message_chunk':
        return appendChunk(t, 'agent', update);
      case 'agent_thought_chunk':
        return appendChunk(t, 'thought', update);
      case 'tool_call':
      case 'tool_call_update':
        upsertTool(t, update, kind === 'tool_call');
        return;
      case 'compaction_update':
      case 'compaction_summary_chunk':
        if (isMain) this.compacting = update.status === 'in_progress' || kind === 'compaction_summary_chunk';
        return upsertCompaction(t, update, kind === 'compaction_summary_chunk');
      default:
        if (!SESSION_WIDE.has(kind)) this.log('warn', `Ignored a session/update of unknown kind "${kind.slice(0, 64)}".`);
    }
  }

  private applySessionWide(kind: string, update: Record<string, unknown>): void {
    switch (kind) {
      case 'plan':
        this.plan = readPlan(update.entries);
        return;
      case 'plan_update':
        if (isRecord(update.plan) && update.plan.type === 'items') this.plan = readPlan(update.plan.entries);
        return;
      case 'plan_removed':
        this.plan = [];
        return;
      case 'available_commands_update':
        if (Array.isArray(update.availableCommands)) this.commands = update.availableCommands.filter((c) => isRecord(c) && typeof c.name === 'string') as AcpAvailableCommands;
        return;
      case 'config_option_update':
        if (Array.isArray(update.configOptions)) this.configOptions = update.configOptions.filter((o) => isRecord(o) && typeof o.id === 'string' && typeof o.type === 'string') as AcpConfigOptions;
        return;
      case 'current_mode_update':
        this.modeId = str(update.currentModeId);
        return;
      case 'session_info_update':
        if (typeof update.title === 'string' || update.title === null) this.title = update.title ?? undefined;
        return;
      case 'usage_update':
        return this.applyUsage(update);
      case 'notice':
        this.notices = [...this.notices.slice(-4), { severity: str(update.severity) ?? 'info', title: str(update.title) ?? '', description: str(update.description) }];
        return;
      case 'subagent_update':
        return this.applySubagent(update);
    }
  }

  private applyUsage(update: Record<string, unknown>): void {
    if (typeof update.used !== 'number' || typeof update.size !== 'number') return;
    const cost = isRecord(update.cost) && typeof update.cost.amount === 'number' ? { amount: update.cost.amount, currency: str(update.cost.currency) ?? 'USD' } : this.usage?.cost;
    // `accord/usageEstimated`: counted by the model's tokenizer, not reported by the provider (VS Code's models).
    const estimated = isRecord(update._meta) && update._meta['accord/usageEstimated'] === true;
    this.usage = { used: update.used, size: update.size, ...(cost ? { cost } : {}), ...(estimated ? { estimated } : {}) };
    if (this.turn.running && cost) this.turn.cost = cost.amount - (this.turn.costAtStart ?? 0);
  }

  private applySubagent(update: Record<string, unknown>): void {
    const childId = str(update.sessionId);
    if (!childId) return;
    const known = this.subagents.get(childId);
    const meta = isRecord(update._meta) ? update._meta : {};
    const info: SubagentInfo = known ?? { sessionId: childId, parentToolCallId: str(update.toolCallId) ?? str(meta['accord.dev/toolCallId']) ?? runningToolId(this.main) };
    if ('title' in update) info.title = str(update.title);
    if ('description' in update) info.description = str(update.description);
    if (isRecord(update.state)) info.state = str(update.state.type) ?? str(update.state.state);
    this.subagents.set(childId, info);
    this.childTranscript(childId);
  }

  private childTranscript(childId: string): Transcript {
    let t = this.children.get(childId);
    if (!t) {
      t = newTranscript(childId);
      this.children.set(childId, t);
      if (!this.subagents.has(childId)) this.subagents.set(childId, { sessionId: childId, parentToolCallId: runningToolId(this.main) });
      attachChild(this.main, childId, this.subagents.get(childId)?.parentToolCallId);
    }
    t.rev += 1;
    const parent = this.subagents.get(childId)?.parentToolCallId;
    if (parent) touchTool(this.main, parent);
    return t;
  }

  private endTurn(stopReason: string, error: string | undefined): void {
    this.turn = { ...this.turn, running: false };
    this.echoGuard = false;
    this.compacting = false;
    if (stopReason === 'cancelled') {
      cancelUnfinishedTools(this.main);
      for (const child of this.children.values()) cancelUnfinishedTools(child);
    }
    if (stopReason !== 'end_turn') pushTurnEnd(this.main, stopReason, error);
  }

  private addApproval(requestId: string, toolCall: Record<string, unknown> & { toolCallId: string }, options: ApprovalOption[], agentName?: string): void {
    const t = this.main;
    const tool = t.tools.get(toolCall.toolCallId);
    if (tool) {
      patchTool(tool, toolCall);
      touchTool(t, tool.toolCallId);
    } else {
      upsertTool(t, toolCall, true);
    }
    this.approvals.set(requestId, { requestId, toolCallId: toolCall.toolCallId, options, ...(agentName ? { agentName } : {}) });
  }

  private resolveApproval(requestId: string, outcome?: 'selected' | 'cancelled', optionId?: string): void {
    const approval = this.approvals.get(requestId);
    if (!approval) return;
    this.approvals.delete(requestId);
    const chosen = approval.options.find((o) => o.optionId === optionId);
    const allowed = outcome === 'selected' && chosen !== undefined && chosen.kind.startsWith('allow');
    if (outcome !== undefined && !allowed) this.declined.add(approval.toolCallId);
    else this.declined.delete(approval.toolCallId);
    touchTool(this.main, approval.toolCallId);
  }

  approvalFor(toolCallId: string): PendingApproval | undefined {
    for (const approval of this.approvals.values()) if (approval.toolCallId === toolCallId) return approval;
    return undefined;
  }
}

function readPlan(entries: unknown): PlanEntry[] {
  if (!Array.isArray(entries)) return [];
  return entries
    .filter(isRecord)
    .map((e) => ({ content: str(e.content) ?? '', priority: str(e.priority) ?? 'medium', status: str(e.status) ?? 'pending' }));
}
