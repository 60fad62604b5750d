// The daemon's sessions, shared by every connection: who is attached to
// which session, the fan-out of updates and prompts, the permission broker,
// and when a session may leave memory (nobody attached, no turn running).
import { resolve } from 'node:path';
import { methods, RequestError, type AgentContext, type ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { forwardUpdates } from '../acp/app';
import { forClient, type ClientFeatures } from '../acp/clientView';
import type { SessionLogPersistence } from '../acp/sessionLogPersistence';
import { RUNNING_META_KEY } from '../acp/sessionLogMethods';
import { flagsMeta, TURN_ENDED_METHOD, TURN_STARTED_METHOD, type DurableSharing, type SessionFlags, type SessionSharing } from '../acp/sharing';
import type { SessionWorkspaces } from '../session/workspaces';
import type { PermissionAsker } from '../core/gate';
import type { Session } from '../core/session';
import type { SessionStore as LiveSessions } from '../core/sessionStore';
import { checkCursor, withLogOffset, type ReplayCursor, type SessionStore } from '../log';
import { PermissionBroker, type Asked } from './permissionBroker';
import { DurableBroker } from './durableBroker';
import { waitingMeta } from '../acp/durablePermissions';
import type { DurableAnswer } from '../core/durable';

export interface HubDeps {
  live: LiveSessions;
  persistence: SessionLogPersistence;
  isolation: SessionWorkspaces;
  logs: SessionStore;
  /** How long an approval waits with no client attached (sessions without --durable-requests). */
  approvalTimeoutMs: number;
  /** Called whenever the hub may have become idle (a client left, a turn ended). */
  onMaybeIdle(): void;
}

export { TURN_STARTED_METHOD, TURN_ENDED_METHOD } from '../acp/sharing';

interface Link extends Asked {
  connection: HubConnection;
  unsubscribe(): void;
}

class SharedSession {
  readonly links = new Map<HubConnection, Link>();
  /** Clients between the start of their join and their link: the session must not leave memory under them. */
  joining = 0;
  /** Approvals that block (every session's children; all of a session without --durable-requests). */
  readonly broker: PermissionBroker;
  /** --durable-requests: approvals that end the turn `waiting` and never lapse. */
  readonly durable: DurableBroker | undefined;

  constructor(
    readonly session: Session,
    readonly flags: SessionFlags,
    approvalTimeoutMs: number,
  ) {
    this.broker = new PermissionBroker(session.id, () => [...this.links.values()], () => (flags.durableRequests ? null : approvalTimeoutMs));
    // The answer from a dialog is acted on by the connection that answered (its model keys and settings).
    this.durable = flags.durableRequests
      ? new DurableBroker(session, () => [...this.links.values()], (by, requestId, optionId) => (by as Link).connection.durableAnswered(session, requestId, optionId))
      : undefined;
  }

  attached(link: Link): void {
    this.broker.attachedClient(link);
    this.durable?.attachedClient(link);
  }

  detached(link: Link): void {
    this.broker.detachedClient(link);
    this.durable?.detachedClient(link);
  }
}

export class SessionHub {
  readonly sessions = new Map<string, SharedSession>();
  readonly connections = new Set<HubConnection>();
  /** Sessions gone from `sessions` whose workspace and log are still being released. */
  private readonly releasing = new Map<string, Promise<void>>();

  constructor(readonly deps: HubDeps) {}

  connect(options: { flags: SessionFlags; model?: string; project?: string }): HubConnection {
    const connection = new HubConnection(this, options);
    this.connections.add(connection);
    return connection;
  }

  /** Clients connected, or a turn running: the daemon must not exit. */
  get busy(): boolean {
    return this.connections.size > 0 || [...this.sessions.values()].some((s) => s.session.turnRunning || s.session.waitingPrompts > 0 || s.broker.waiting > 0);
  }

  status() {
    return [...this.sessions.values()].map((s) => ({
      sessionId: s.session.id,
      cwd: s.session.cwd,
      clients: s.links.size,
      turnRunning: s.session.turnRunning,
      pendingPermissions: s.broker.waiting + s.session.pendingPermissions.size,
    }));
  }

  ensure(session: Session, flags: SessionFlags): SharedSession {
    let shared = this.sessions.get(session.id);
    if (!shared || shared.session !== session) {
      shared = new SharedSession(session, flags, this.deps.approvalTimeoutMs);
      this.sessions.set(session.id, shared);
    }
    return shared;
  }

  /** A session nobody watches and nothing runs in leaves memory; its log and workspace stay for a later load. */
  async maybeRelease(sessionId: string): Promise<void> {
    const shared = this.sessions.get(sessionId);
    // A prompt queued behind the turn that just ended still needs the session.
    if (shared && shared.links.size === 0 && shared.joining === 0 && !shared.session.turnRunning && shared.session.waitingPrompts === 0 && shared.broker.waiting === 0) {
      // A first turn can end before its copy is made: the copy is finished (and logged) first, so a load meanwhile joins a live session.
      if (this.deps.isolation.isPreparing(sessionId)) {
        void this.deps.isolation.ready(sessionId).catch(() => undefined).then(() => this.maybeRelease(sessionId));
        return;
      }
      this.sessions.delete(sessionId);
      this.deps.live.remove(sessionId);
      const release = this.release(sessionId);
      this.releasing.set(sessionId, release);
      try {
        await release;
      } finally {
        if (this.releasing.get(sessionId) === release) this.releasing.delete(sessionId);
      }
    }
    this.deps.onMaybeIdle();
  }

  /** Resolves once `sessionId` is not being released (its failure is the release's to report, not the waiter's). */
  released(sessionId: string): Promise<void> {
    return this.releasing.get(sessionId)?.catch(() => undefined) ?? Promise.resolve();
  }

  private async release(sessionId: string): Promise<void> {
    // The workspace before the log: a copy still being made is finished (and logged) or removed first.
    await this.deps.isolation.release(sessionId);
    await this.deps.persistence.release(sessionId);
  }

  /** Ends every turn (stop, shutdown) and waits for them to finish recording. */
  async cancelAll(timeoutMs: number): Promise<void> {
    for (const shared of this.sessions.values()) shared.session.cancel();
    const deadline = Date.now() + timeoutMs;
    while ([...this.sessions.values()].some((s) => s.session.turnRunning) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** One client connection's view of the hub (the adapter's SessionSharing). */
export class HubConnection implements SessionSharing {
  private open = true;
  readonly flags: SessionFlags;
  readonly model?: string;
  readonly project?: string;

  constructor(
    private readonly hub: SessionHub,
    options: { flags: SessionFlags; model?: string; project?: string },
  ) {
    this.flags = options.flags;
    if (options.model) this.model = options.model;
    if (options.project) this.project = options.project;
  }

  get isOpen(): boolean {
    return this.open;
  }

  isLive(sessionId: string): boolean {
    return this.hub.sessions.has(sessionId) && this.hub.deps.live.get(sessionId) !== undefined;
  }

  released(sessionId: string): Promise<void> {
    return this.hub.released(sessionId);
  }

  async join(sessionId: string, cwd: string, client: AgentContext, replay: boolean, features: ClientFeatures, cursor: ReplayCursor = { kind: 'start' }): Promise<{ _meta?: Record<string, unknown> }> {
    const shared = this.hub.sessions.get(sessionId);
    if (!shared) throw RequestError.sessionNotFound(sessionId);
    const { session } = shared;
    if (resolve(session.cwd) !== resolve(cwd)) {
      throw RequestError.invalidParams({ cwd }, `Session ${sessionId} belongs to ${session.cwd}; open that folder to load it (got ${cwd}).`);
    }
    // Everything handed to the log is written first; then, with the stream held, the replay and
    // the subscription happen between two updates, so nothing is missed or sent twice.
    shared.joining++;
    try {
      await this.hub.deps.persistence.flush(sessionId);
      await this.joinLinked(shared, sessionId, client, replay, features, cursor);
    } finally {
      shared.joining--;
    }
    shared.attached(shared.links.get(this)!);
    const meta = {
      ...this.hub.deps.isolation.get(sessionId)?.meta,
      ...flagsMeta(shared.flags),
      ...(session.turnRunning ? { [RUNNING_META_KEY]: true } : {}),
      // A durable approval still pending: the joining client can draw it before its dialog opens.
      ...waitingMeta(session),
    };
    return Object.keys(meta).length > 0 ? { _meta: meta } : {};
  }

  private async joinLinked(shared: SharedSession, sessionId: string, client: AgentContext, replay: boolean, features: ClientFeatures, cursor: ReplayCursor): Promise<void> {
    await shared.session.updates.barrier(async () => {
      if (replay || cursor.kind === 'after') {
        const replayed = await this.hub.deps.logs.replay(sessionId);
        // Refused before anything is sent or linked: the client never gets a partial view.
        checkCursor(cursor, replayed.updates, replayed.end);
        for (const { update, offset } of replayed.updates) {
          if (!replay) break;
          for (const shaped of forClient(sessionId, update as never, features, offset)) await client.notify(methods.client.session.update, shaped);
        }
      }
      this.link(shared, client, features);
    });
  }

  async attach(session: Session, client: AgentContext, flags: SessionFlags, features: ClientFeatures): Promise<void> {
    const shared = this.hub.ensure(session, flags);
    this.link(shared, client, features);
    shared.attached(shared.links.get(this)!);
  }

  private link(shared: SharedSession, client: AgentContext, features: ClientFeatures): void {
    const previous = shared.links.get(this);
    if (previous) {
      // Loaded again on the same connection: the new link is asked afresh; the old one's dialogs are withdrawn.
      previous.unsubscribe();
      shared.detached(previous);
    }
    // Each client gets the updates it said it can read: compaction and child sessions only if advertised.
    const unsubscribe = forwardUpdates(shared.session, client, features);
    shared.links.set(this, { connection: this, client, unsubscribe, isOpen: () => this.open });
  }

  permissions(session: Session): PermissionAsker {
    const shared = this.hub.sessions.get(session.id);
    if (!shared) throw RequestError.sessionNotFound(session.id);
    return shared.broker;
  }

  durable(session: Session): DurableSharing | undefined {
    const shared = this.hub.sessions.get(session.id);
    const broker = shared?.durable;
    if (!broker) return undefined;
    return { asker: broker.asker, settled: (requestId, optionId) => broker.settle(requestId, optionId) };
  }

  private onDurableAnswer: (session: Session, requestId: string, optionId: DurableAnswer) => void = () => undefined;

  answerDurableWith(handler: (session: Session, requestId: string, optionId: DurableAnswer) => void): void {
    this.onDurableAnswer = handler;
  }

  /** This connection's client answered a durable approval from its dialog. */
  durableAnswered(session: Session, requestId: string, optionId: DurableAnswer): void {
    this.onDurableAnswer(session, requestId, optionId);
  }

  backgroundTurn(session: Session, phase: { started: true } | { ended: string }): void {
    const shared = this.hub.sessions.get(session.id);
    for (const [connection, link] of shared?.links ?? []) {
      if (!connection.open) continue;
      if ('started' in phase) void link.client.notify(TURN_STARTED_METHOD, { sessionId: session.id }).catch(() => undefined);
      else void link.client.notify(TURN_ENDED_METHOD, { sessionId: session.id, stopReason: phase.ended }).catch(() => undefined);
    }
    if ('ended' in phase) void this.hub.maybeRelease(session.id);
  }

  promptStarted(session: Session, prompt: ContentBlock[], offset?: number): void {
    const shared = this.hub.sessions.get(session.id);
    if (!shared) return;
    for (const [connection, link] of shared.links) {
      if (connection === this || !connection.open) continue;
      // The others have no prompt request of their own: they learn that a turn runs, and later that it ended.
      void link.client.notify(TURN_STARTED_METHOD, { sessionId: session.id }).catch(() => undefined);
      for (const content of prompt) {
        void link.client
          .notify(methods.client.session.update, { sessionId: session.id, update: withOffset({ sessionUpdate: 'user_message_chunk', content, _meta: { 'accord/fromAnotherClient': true } }, offset) })
          .catch(() => undefined);
      }
    }
  }

  turnEnded(session: Session, stopReason: string): void {
    const shared = this.hub.sessions.get(session.id);
    for (const [connection, link] of shared?.links ?? []) {
      if (connection === this || !connection.open) continue;
      void link.client.notify(TURN_ENDED_METHOD, { sessionId: session.id, stopReason }).catch(() => undefined);
    }
    void this.hub.maybeRelease(session.id);
  }

  async detach(sessionId: string): Promise<void> {
    const shared = this.hub.sessions.get(sessionId);
    const link = shared?.links.get(this);
    if (!shared || !link) return;
    link.unsubscribe();
    shared.links.delete(this);
    shared.detached(link);
    await this.hub.maybeRelease(sessionId);
  }

  meta(sessionId: string): Record<string, unknown> {
    const shared = this.hub.sessions.get(sessionId);
    return shared ? flagsMeta(shared.flags) : {};
  }

  /** The connection ended: detached from everything; turns go on. */
  async disconnect(): Promise<void> {
    this.open = false;
    this.hub.connections.delete(this);
    for (const [sessionId, shared] of [...this.hub.sessions]) {
      if (shared.links.has(this)) await this.detach(sessionId);
    }
    this.hub.deps.onMaybeIdle();
  }
}

/** The prompt's chunks carry its record's offset, as they will on replay. */
function withOffset<T extends object>(update: T, offset: number | undefined): T {
  return offset === undefined ? update : withLogOffset(update, offset);
}
