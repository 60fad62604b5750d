// session/load, session/resume, session/list and session/close, served from
// the session logs: a load reopens a log (or joins the session live in the
// daemon) and replays it; list reads the logs; close stops recording.
import { methods, RequestError, type AgentApp, type AgentContext, type SessionInfo } from '@agentclientprotocol/sdk/unstable';
import type { Session } from '../core/session';
import type { SessionStore as LiveSessions } from '../core/sessionStore';
import { builtinCommands } from '../core/slashCommands';
import type { AvailableCommand } from '../core/updates';
import { checkCursor, LogError, type ReplayCursor } from '../log';
import type { Env } from '../models/credentials';
import { refuseClientWidening, refuseSessionMcpServers } from '../policy/clientMeta';
import type { SessionWorkspaces } from '../session/workspaces';
import { forwardUpdates } from './app';
import { ClientFeatureBook } from './clientView';
import { configOptionsFor } from './configOptions';
import { waitingMeta, type DurableRequests } from './durablePermissions';
import { launchGrants } from './launchGrants';
import { REPLAY_CHECK_META, replayCheckOf } from './replayCheck';
import { sendReplayed } from './replaySend';
import type { SessionLogPersistence } from './sessionLogPersistence';
import { modeStateOf } from './sessionSettings';
import { flagsMeta, type SessionSharing } from './sharing';
import { setupFailure } from './workspaceReady';

/** session/list `_meta` key: the session is running a turn in this agent process (the daemon) right now. */
export const RUNNING_META_KEY = 'accord/running';

/** What `registerLogMethods` serves load/resume with beyond the logs: all optional. */
export interface RegisterExtras {
  isolation?: SessionWorkspaces;
  /** Sessions shared with other connections (the daemon). */
  sharing?: SessionSharing;
  /** What this connection's client can read (filled at `initialize`). */
  features?: ClientFeatureBook;
  /** `--durable-requests` without the daemon: a loaded session's pending approvals are asked again. */
  durable?: DurableRequests;
  /** A loaded session's "/" commands (built-ins and declared runs). */
  commandsFor?(session: Session): AvailableCommand[];
}

/** session/load, session/resume, session/list and session/close on `app`. */
export function registerLogMethods(persistence: SessionLogPersistence, app: AgentApp, live: LiveSessions, env: Env, extras: RegisterExtras = {}): AgentApp {
  const { isolation, sharing, durable } = extras;
  const features = extras.features ?? new ClientFeatureBook();
  const commandsFor = extras.commandsFor ?? (() => [...builtinCommands]);
  const reattach = async (params: { sessionId: string; cwd: string; mcpServers?: Array<{ name: string }>; _meta?: unknown }, client: AgentContext, replayUpdates: boolean) => {
    // The same refusals as session/new: an editor cannot widen approvals or start MCP servers.
    const refusal = refuseClientWidening(params._meta, launchGrants(sharing, isolation)) ?? refuseSessionMcpServers(params.mcpServers);
    if (refusal) throw RequestError.invalidParams({ sessionId: params.sessionId }, refusal);
    const cursor = replayCheckOf(params._meta);
    try {
      return await reattachChecked(params, client, replayUpdates, cursor);
    } catch (error) {
      if (error instanceof LogError && error.code === 'bad_offset') throw RequestError.invalidParams({ sessionId: params.sessionId, [REPLAY_CHECK_META]: cursor.kind === 'after' ? cursor.offset : null }, error.message);
      throw error;
    }
  };
  const reattachChecked = async (params: { sessionId: string; cwd: string }, client: AgentContext, replayUpdates: boolean, cursor: ReplayCursor) => {
    // A session that just left memory (its last client gone) still holds its log until released: reopened after that.
    await sharing?.released(params.sessionId);
    // A session whose copy is still being made: joined once it is ready; a failed setup fails the join with its reason.
    if (sharing?.isLive(params.sessionId)) {
      await isolation?.ready(params.sessionId).catch((error: unknown) => {
        throw setupFailure(params.sessionId, error);
      });
    }
    // Still live (not left memory while its copy was finished): joined; otherwise loaded from its log below.
    if (sharing?.isLive(params.sessionId)) {
      const joined = await sharing.join(params.sessionId, params.cwd, client, replayUpdates, features.current, cursor);
      const session = live.get(params.sessionId);
      if (!session) throw RequestError.sessionNotFound(params.sessionId);
      return { configOptions: await configOptionsFor(session, env), modes: modeStateOf(session), ...joined };
    }
    // It left memory while its copy was finished (its last client gone, hub.ts maybeRelease): that release,
    // started before isLive turned false, still holds the log. Awaited in the same turn as the check above.
    await sharing?.released(params.sessionId);
    const session = await persistence.reopen(params.sessionId, params.cwd, live, env, isolation, async (log) => {
      const replay = await persistence.logs.replay(log.id);
      checkCursor(cursor, replay.updates, replay.end);
      if (replayUpdates) await sendReplayed(client, log.id, replay.updates, features.current);
      return replay;
    });
    const flags = persistence.flagsOf(session.id);
    if (sharing) await sharing.attach(session, client, flags, features.current);
    else forwardUpdates(session, client, features.current);
    durable?.reask(session, client);
    // The commands are the agent's, not the log's: a loaded session offers the current ones.
    setTimeout(() => void session.updates.emit({ sessionUpdate: 'available_commands_update', availableCommands: commandsFor(session) }), 0);
    const meta = { ...isolation?.get(session.id)?.meta, ...flagsMeta(flags), ...waitingMeta(session) };
    return { configOptions: await configOptionsFor(session, env), modes: modeStateOf(session), ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
  };
  return app
    .onRequest(methods.agent.session.load, ({ params, client }) => reattach(params, client, true))
    .onRequest(methods.agent.session.resume, ({ params, client }) => reattach(params, client, false))
    .onRequest(methods.agent.session.list, async ({ params }) => {
      try {
        // A session answered before its copy was ready is logged once the copy exists: list it, not miss it.
        await isolation?.preparations();
        const page = await persistence.logs.list({ ...(params.cwd ? { cwd: params.cwd } : {}), ...(params.cursor ? { cursor: params.cursor } : {}) });
        // Live state (the daemon shares `live` across clients): a session running a turn says so.
        const sessions: SessionInfo[] = page.sessions.map((s) => ({
          sessionId: s.sessionId,
          cwd: s.cwd,
          title: s.title ?? null,
          updatedAt: s.updatedAt,
          ...(live.get(s.sessionId)?.turnRunning ? { _meta: { [RUNNING_META_KEY]: true } } : {}),
        }));
        return page.nextCursor ? { sessions, nextCursor: page.nextCursor } : { sessions };
      } catch (error) {
        if (error instanceof LogError && error.code === 'bad_cursor') throw RequestError.invalidParams({ cursor: params.cursor }, error.message);
        throw error;
      }
    })
    .onRequest(methods.agent.session.close, async ({ params }) => {
      // Shared: this client stops watching; the session, its turn and its log go on for the others.
      if (sharing) {
        await sharing.detach(params.sessionId);
        return {};
      }
      live.remove(params.sessionId);
      // The workspace before the log: a copy still being made is finished (and logged) or removed first.
      await isolation?.release(params.sessionId);
      await persistence.release(params.sessionId);
      return {};
    });
}
