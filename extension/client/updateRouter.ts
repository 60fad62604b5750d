// Routes `session/update` notifications to the sessions this window tracks.
// Updates for untracked session ids (other windows, listed-only sessions,
// subagents) and unknown update kinds are logged and skipped, never thrown.
// Pure: no vscode import.
import type { SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk';

export interface RoutedUpdate {
  sessionId: string;
  update: SessionUpdate;
  /** True while `session/load` replays history: render as history, not as activity. */
  replay: boolean;
}

export type RouteOutcome = 'delivered' | 'untracked' | 'malformed' | 'echo';

const KNOWN_KINDS = new Set([
  'user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan',
  'available_commands_update', 'current_mode_update', 'config_option_update', 'session_info_update', 'usage_update',
  'notice', 'compaction_update', 'compaction_summary_chunk',
]);

export function isKnownUpdateKind(kind: unknown): boolean {
  return typeof kind === 'string' && KNOWN_KINDS.has(kind);
}

export class UpdateRouter {
  private readonly tracked = new Map<string, { replaying: boolean }>();
  private readonly listeners = new Set<(u: RoutedUpdate) => void>();

  constructor(private readonly log: (message: string) => void = () => {}) {}

  track(sessionId: string): void {
    if (!this.tracked.has(sessionId)) this.tracked.set(sessionId, { replaying: false });
  }

  untrack(sessionId: string): void {
    this.tracked.delete(sessionId);
  }

  isTracked(sessionId: string): boolean {
    return this.tracked.has(sessionId);
  }

  /** Marks the updates that follow, until `endReplay`, as `session/load` history. */
  beginReplay(sessionId: string): void {
    this.tracked.set(sessionId, { replaying: true });
  }

  endReplay(sessionId: string): void {
    const state = this.tracked.get(sessionId);
    if (state) state.replaying = false;
  }

  onUpdate(listener: (u: RoutedUpdate) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  route(notification: SessionNotification | unknown): RouteOutcome {
    const n = notification as Partial<SessionNotification> | null;
    const sessionId = n?.sessionId;
    const update = n?.update as SessionUpdate | undefined;
    if (typeof sessionId !== 'string' || typeof update !== 'object' || update === null) {
      this.log('Ignored a session/update without a session id or update.');
      return 'malformed';
    }
    const state = this.tracked.get(sessionId);
    if (!state) {
      this.log(`Ignored a session/update (${String(update.sessionUpdate)}) for session ${sessionId}, which this window does not track.`);
      return 'untracked';
    }
    // The client renders the person's prompt itself; a live echo would show it twice.
    if (update.sessionUpdate === 'user_message_chunk' && !state.replaying) return 'echo';
    if (!isKnownUpdateKind(update.sessionUpdate)) {
      this.log(`Relaying an unknown session/update kind "${String(update.sessionUpdate)}"; the panel ignores what it cannot show.`);
    }
    const routed: RoutedUpdate = { sessionId, update, replay: state.replaying };
    for (const listener of this.listeners) {
      try {
        listener(routed);
      } catch (error) {
        this.log(`A session/update listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return 'delivered';
  }
}
