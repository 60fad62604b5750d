// Routes `session/update` notifications to the sessions this window tracks.
// Updates for untracked session ids (other windows, listed-only sessions,
// subagents) and unknown update kinds are logged and skipped, never thrown.
// Pure: no vscode import.
import type { SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { forLog } from '../text/agentText';

/**
 * How many distinct untracked session ids, and unknown kinds, are each logged once: an agent
 * flooding updates must not grow the output channel by a line (of its choosing) per update.
 */
const MAX_LOGGED_NAMES = 100;
/** Child sessions remembered per window; an agent announcing more adopts no new ones. */
const MAX_CHILDREN = 10_000;

export interface RoutedUpdate {
  sessionId: string;
  /** Set for a child session's update: the tracked session that started it (its subagent_update came there). */
  parentSessionId?: string;
  update: SessionUpdate;
  /** True while `session/load` replays history: render as history, not as activity. */
  replay: boolean;
}

/** `foreign`: the session is tracked for another agent (a hostile agent may know its id: it is in the session logs). */
export type RouteOutcome = 'delivered' | 'untracked' | 'malformed' | 'echo' | 'foreign';

const KNOWN_KINDS = new Set([
  'user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan',
  'available_commands_update', 'current_mode_update', 'config_option_update', 'session_info_update', 'usage_update',
  'notice', 'compaction_update', 'compaction_summary_chunk', 'subagent_update',
]);

export function isKnownUpdateKind(kind: unknown): boolean {
  return typeof kind === 'string' && KNOWN_KINDS.has(kind);
}

export class UpdateRouter {
  /** sessionId → whether it replays, and the agent whose session it is (undefined: any, for tests that name none). */
  private readonly tracked = new Map<string, { replaying: boolean; agent?: string }>();
  /** Child session id → the tracked session whose subagent_update announced it (children are never prompted or loaded). */
  private readonly parents = new Map<string, string>();
  private readonly listeners = new Set<(u: RoutedUpdate) => void>();
  private readonly loggedUntracked = new Set<string>();
  private readonly loggedKinds = new Set<string>();

  constructor(private readonly log: (message: string) => void = () => {}) {}

  /** Delivers `sessionId`'s updates from now on, when they come from `agent`. */
  track(sessionId: string, agent?: string): void {
    const state = this.tracked.get(sessionId);
    if (!state) this.tracked.set(sessionId, { replaying: false, ...(agent !== undefined ? { agent } : {}) });
    else if (agent !== undefined) state.agent = agent;
  }

  /** The agent a tracked session belongs to. */
  ownerOf(sessionId: string): string | undefined {
    return this.tracked.get(sessionId)?.agent;
  }

  untrack(sessionId: string): void {
    this.tracked.delete(sessionId);
    for (const [child, parent] of this.parents) if (parent === sessionId) this.parents.delete(child);
  }

  isTracked(sessionId: string): boolean {
    return this.tracked.has(sessionId);
  }

  /** Marks the updates that follow, until `endReplay`, as `session/load` history. */
  beginReplay(sessionId: string): void {
    const state = this.tracked.get(sessionId);
    if (state) state.replaying = true;
    else this.tracked.set(sessionId, { replaying: true });
  }

  endReplay(sessionId: string): void {
    const state = this.tracked.get(sessionId);
    if (state) state.replaying = false;
  }

  onUpdate(listener: (u: RoutedUpdate) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** `agent`: whose connection it came from; another agent's session is not its to update. */
  route(notification: SessionNotification | unknown, agent?: string): RouteOutcome {
    const n = notification as Partial<SessionNotification> | null;
    const sessionId = n?.sessionId;
    const update = n?.update as SessionUpdate | undefined;
    if (typeof sessionId !== 'string' || typeof update !== 'object' || update === null) {
      this.log('Ignored a session/update without a session id or update.');
      return 'malformed';
    }
    const parentSessionId = this.parents.get(sessionId);
    const state = this.tracked.get(parentSessionId ?? sessionId);
    if (!state) {
      if (this.firstTime(this.loggedUntracked, sessionId)) {
        this.log(`Ignored a session/update (${forLog(update.sessionUpdate, 60)}) for session ${forLog(sessionId, 120)}, which this window does not track (logged once per session).`);
      }
      return 'untracked';
    }
    if (state.agent !== undefined && agent !== undefined && state.agent !== agent) {
      if (this.firstTime(this.loggedUntracked, `foreign:${sessionId}`)) this.log(`Ignored session/updates from ${forLog(agent, 80)} for session ${forLog(sessionId, 120)}, which belongs to ${forLog(state.agent, 80)}.`);
      return 'foreign';
    }
    // The client renders the person's prompt itself; a live echo would show it twice.
    // (A child's prompt comes from its parent agent, so it is no echo.)
    if (update.sessionUpdate === 'user_message_chunk' && !state.replaying && !parentSessionId) return 'echo';
    if (update.sessionUpdate === 'subagent_update' && !parentSessionId) {
      const child = (update as { sessionId?: unknown }).sessionId;
      // A session cannot adopt one this window tracks itself: that would route its updates twice.
      if (typeof child === 'string' && child !== sessionId && !this.tracked.has(child) && this.parents.size < MAX_CHILDREN) this.parents.set(child, sessionId);
    }
    if (!isKnownUpdateKind(update.sessionUpdate) && this.firstTime(this.loggedKinds, String(update.sessionUpdate))) {
      this.log(`Relaying an unknown session/update kind "${forLog(update.sessionUpdate, 60)}"; the panel ignores what it cannot show (logged once per kind).`);
    }
    const routed: RoutedUpdate = { sessionId, update, replay: state.replaying, ...(parentSessionId ? { parentSessionId } : {}) };
    for (const listener of this.listeners) {
      try {
        listener(routed);
      } catch (error) {
        this.log(`A session/update listener failed: ${forLog(error instanceof Error ? error.message : String(error), 500)}`);
      }
    }
    return 'delivered';
  }

  /** True the first time `name` is seen, while fewer than MAX_LOGGED_NAMES were. */
  private firstTime(seen: Set<string>, name: string): boolean {
    const key = name.slice(0, 200);
    if (seen.has(key) || seen.size >= MAX_LOGGED_NAMES) return false;
    seen.add(key);
    return true;
  }
}
