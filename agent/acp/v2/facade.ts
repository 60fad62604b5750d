// ACP v2 for one connection, in front of the agent's v1 app. Every feature is
// implemented once, in the v1 app (sessions, turns, the log, the daemon's
// sharing); this side speaks v2 to the client and v1 to that app over an
// in-memory connection, translating requests one way and updates (through a
// SessionV2View per session) the other. What is new in v2 lives here: the
// prompt answered once inserted with the turn driven by `state_update`
// (prompts.ts), per-call cancel,
// `session/resume` with a replay cursor, permission requests with a title
// and a subject.
import * as v1 from '@agentclientprotocol/sdk/unstable';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { LogError, parseReplayFrom, folds, type ReplayCursor } from '../../log';
import { offsetCarried } from '../../log/offsets';
import { RUNNING_META_KEY } from '../sessionLogMethods';
import { REPLAY_CHECK_META } from '../replayCheck';
import { TURN_ENDED_METHOD, TURN_STARTED_METHOD } from '../sharing';
import { PROMPT_STARTED_METHOD } from '../promptStarted';
import { CALL_CANCEL_METHOD } from '../callCancel';
import { METHODS_META_KEY } from '../../../protocol/accordMethods';
import { InnerLink, type InnerHandlers } from './innerLink';
import { stopReasonV2, V2Prompts } from './prompts';
import { configOptionsV2, SessionV2View, TERMINAL_PREFIX, type V1Update, type V2Update } from './view';

declare const ACCORD_VERSION: string;
const version = typeof ACCORD_VERSION === 'string' ? ACCORD_VERSION : '0.0.0-dev';

type Json = Record<string, unknown>;

interface ViewedSession {
  view: SessionV2View;
  /** While a session/resume replays: which replayed updates are folded instead of sent. */
  resuming?: ReplayCursor;
}

/** A v2 agent app for one connection, serving it through `inner` (the v1 app, connected in memory). */
export function v2AgentFor(inner: v1.AgentApp): v2.AgentApp {
  const sessions = new Map<string, ViewedSession>();
  let outer: v2.AgentContext | undefined;
  let link: InnerLink | undefined;

  // Every update goes out through this one queue, in the order the view took them (one v1 update may
  // become several v2 ones; a state_update must not overtake the updates before it).
  let outbox: Promise<void> = Promise.resolve();
  const send = (sessionId: string, updates: V2Update[]): Promise<void> => {
    const sent = outbox.then(async () => {
      for (const update of updates) await outer?.notify(v2.methods.client.session.update, { sessionId, update } as never);
    });
    outbox = sent.catch(() => undefined);
    return sent;
  };
  const state = (sessionId: string, value: Json) => send(sessionId, [{ sessionUpdate: 'state_update', ...value }]);

  const viewOf = (sessionId: string, cwd = '/'): ViewedSession => {
    let viewed = sessions.get(sessionId);
    if (!viewed) {
      viewed = { view: new SessionV2View(cwd) };
      sessions.set(sessionId, viewed);
    }
    return viewed;
  };

  /** One update of the v1 app: through the session's view, folded while a resume replays what the client has. */
  const takeUpdate = async ({ sessionId, update }: { sessionId: string; update: V1Update }) => {
    const viewed = viewOf(sessionId);
    const shaped = viewed.view.take(update);
    if (viewed.resuming && folds(viewed.resuming, offsetCarried(update))) return;
    await send(sessionId, shaped);
  };

  /** A permission question of the v1 app, asked as v2 (title, subject); the view shapes the tool call as its updates. */
  const askPermission = async (params: v1.RequestPermissionRequest, signal: AbortSignal): Promise<v1.RequestPermissionResponse> => {
    const { sessionId, toolCall } = params;
    const viewed = viewOf(sessionId);
    const subject = viewed.view.permissionSubject(toolCall as unknown as Json);
    await state(sessionId, { state: 'requires_action' });
    try {
      const answer = await outer!.request(
        v2.methods.client.session.requestPermission,
        {
          sessionId,
          title: typeof toolCall.title === 'string' && toolCall.title !== '' ? toolCall.title : 'Allow this tool call?',
          subject: { type: 'tool_call', toolCall: subject },
          options: params.options,
          ...(params._meta ? { _meta: params._meta } : {}),
        } as never,
        { cancellationSignal: signal },
      );
      return { outcome: knownOutcome(answer.outcome as Json, params.options) } as v1.RequestPermissionResponse;
    } catch {
      return { outcome: { outcome: 'cancelled' } } as v1.RequestPermissionResponse;
    } finally {
      await state(sessionId, { state: 'running' }).catch(() => undefined);
    }
  };

  const handlers: InnerHandlers = {
    async notification(method, params) {
      if (method === v1.methods.client.session.update) return takeUpdate(params as { sessionId: string; update: V1Update });
      if (method === PROMPT_STARTED_METHOD) return prompts.started(params);
      // A turn another client started or ended is v2's state_update; Accord's other notifications go through unchanged.
      const { sessionId, stopReason } = (params ?? {}) as { sessionId?: unknown; stopReason?: unknown };
      if (method === TURN_STARTED_METHOD && typeof sessionId === 'string') return state(sessionId, { state: 'running' });
      if (method === TURN_ENDED_METHOD && typeof sessionId === 'string') return state(sessionId, { state: 'idle', ...stopReasonV2(String(stopReason)) });
      const forwarded = outbox.then(() => outer?.notify(method as `_${string}`, params));
      outbox = forwarded.catch(() => undefined);
      await forwarded;
    },
    async request(method, params, signal) {
      if (method === v1.methods.client.session.requestPermission) return askPermission(params as v1.RequestPermissionRequest, signal);
      // Accord's own requests to the client (none today) go through unchanged.
      return outer!.request(method as `_${string}`, params, { cancellationSignal: signal });
    },
  };

  const innerAgent = (): InnerLink => (link ??= new InnerLink(inner, handlers));
  const prompts = new V2Prompts({ send, state, inner: innerAgent });

  const app = v2
    .agent({ name: 'accord' })
    .onConnect((conn) => {
      outer = conn.client;
      void conn.closed.finally(() => link?.close());
    })
    .onRequest(v2.methods.agent.initialize, async ({ params }) => {
      const answer = await innerAgent().request<v1.InitializeResponse>(v1.methods.agent.initialize, {
        protocolVersion: 1,
        // v2 clients read compaction updates with no capability; child sessions show as their task card.
        // Accord's own offers (`_meta`, e.g. lending the editor's models for `_accord/lm/*`) are the same in both versions.
        clientCapabilities: { session: { compaction: {} }, ...(params.capabilities?._meta ? { _meta: params.capabilities._meta } : {}) } as never,
        ...(params._meta ? { _meta: params._meta } : {}),
      });
      const capabilities = answer.agentCapabilities ?? {};
      return {
        protocolVersion: 2,
        info: { name: 'accord', title: 'Accord', version },
        capabilities: {
          session: {
            prompt: { image: {}, embeddedContext: {} },
          },
          ...(capabilities._meta ? { _meta: advertisedToV2(capabilities._meta) } : {}),
        },
        authMethods: [],
      } as v2.InitializeResponse;
    })
    .onRequest(v2.methods.agent.session.new, async ({ params }) => {
      const answer = await innerAgent().request<v1.NewSessionResponse>(v1.methods.agent.session.new, {
        cwd: params.cwd,
        mcpServers: (params.mcpServers ?? []) as never,
        ...(params._meta ? { _meta: params._meta } : {}),
      });
      sessions.set(answer.sessionId, { view: new SessionV2View(params.cwd) });
      return { sessionId: answer.sessionId, configOptions: configOptionsV2(answer.configOptions as never) as never, ...(answer._meta ? { _meta: answer._meta } : {}) };
    })
    .onRequest(v2.methods.agent.session.resume, async ({ params }) => {
      let cursor: ReplayCursor;
      try {
        cursor = parseReplayFrom(params.replayFrom);
      } catch (error) {
        throw v2.RequestError.invalidParams({ replayFrom: params.replayFrom }, (error as Error).message);
      }
      // A fresh view folds part of the log (after N) or nothing (start), so ids and paths come back the same.
      // No cursor is v1's resume: no replay at all (a message still streaming continues under a new id).
      const viewed: ViewedSession = { view: new SessionV2View(params.cwd), resuming: cursor };
      sessions.set(params.sessionId, viewed);
      try {
        const reopen = {
          sessionId: params.sessionId,
          cwd: params.cwd,
          mcpServers: (params.mcpServers ?? []) as never,
          _meta: { ...(params._meta ?? {}), ...(cursor.kind === 'after' ? { [REPLAY_CHECK_META]: cursor.offset } : {}) },
        };
        const answer: { configOptions?: unknown; _meta?: Record<string, unknown> | null } =
          cursor.kind === 'none'
            ? await innerAgent().request<v1.ResumeSessionResponse>(v1.methods.agent.session.resume, reopen)
            : await innerAgent().request<v1.LoadSessionResponse>(v1.methods.agent.session.load, reopen);
        delete viewed.resuming;
        const meta = (answer._meta ?? {}) as Json;
        const workspace = meta['accord/workspace'] as Json | undefined;
        viewed.view.workspaceAt(typeof workspace?.root === 'string' ? workspace.root : undefined);
        // Before the response: where the session is now (a turn another client started may be running).
        await state(params.sessionId, meta[RUNNING_META_KEY] === true ? { state: 'running' } : { state: 'idle' });
        return { configOptions: configOptionsV2(answer.configOptions as never) as never, ...(answer._meta ? { _meta: answer._meta } : {}) };
      } catch (error) {
        sessions.delete(params.sessionId);
        if (error instanceof LogError) throw v2.RequestError.invalidParams({ sessionId: params.sessionId }, error.message);
        throw error;
      }
    })
    .onRequest(v2.methods.agent.session.prompt, async ({ params }) => {
      const viewed = sessions.get(params.sessionId);
      if (!viewed) throw sessionNotFound(params.sessionId);
      return prompts.prompt(viewed.view, params);
    })
    .onNotification(v2.methods.agent.session.cancel, async ({ params }) => {
      await innerAgent().notify(v1.methods.agent.session.cancel, { sessionId: params.sessionId });
    })
    .onRequest(v2.methods.agent.session.setConfigOption, async ({ params }) => {
      const { sessionId, configId, value } = params as { sessionId: string; configId: string; value: unknown; type?: string };
      const request = (params as { type?: string }).type === 'boolean' ? { sessionId, configId, type: 'boolean', value } : { sessionId, configId, value };
      const answer = await innerAgent().request<v1.SetSessionConfigOptionResponse>(v1.methods.agent.session.setConfigOption, request);
      return { configOptions: configOptionsV2(answer.configOptions as never) as never };
    })
    // One call stopped, the turn goes on (the v1 app's `_accord/tool_call/cancel`; -32602 once the call has ended).
    .onRequest(v2.methods.agent.toolCall.cancel, async ({ params }) => {
      if (!sessions.has(params.sessionId)) throw sessionNotFound(params.sessionId);
      await innerAgent().request(CALL_CANCEL_METHOD, { sessionId: params.sessionId, toolCallId: params.toolCallId });
      return {};
    })
    // An agent-owned terminal is its command's tool call (`terminal-<toolCallId>`): cancelling it stops that call.
    .onRequest(v2.methods.agent.terminal.cancel, async ({ params }) => {
      if (!sessions.has(params.sessionId)) throw sessionNotFound(params.sessionId);
      const toolCallId = params.terminalId.startsWith(TERMINAL_PREFIX) ? params.terminalId.slice(TERMINAL_PREFIX.length) : '';
      if (!toolCallId) throw v2.RequestError.invalidParams({ terminalId: params.terminalId }, `There is no terminal ${params.terminalId} in this session.`);
      await innerAgent().request(CALL_CANCEL_METHOD, { sessionId: params.sessionId, toolCallId });
      return {};
    })
    .onRequest(v2.methods.agent.session.list, async ({ params }) => {
      const answer = await innerAgent().request<v1.ListSessionsResponse>(v1.methods.agent.session.list, {
        ...(params.cwd ? { cwd: params.cwd } : {}),
        ...(params.cursor ? { cursor: params.cursor } : {}),
      });
      return answer as never;
    })
    .onRequest(v2.methods.agent.session.close, async ({ params }) => {
      await innerAgent().request(v1.methods.agent.session.close, { sessionId: params.sessionId });
      sessions.delete(params.sessionId);
      return {};
    })
    // Accord's extension methods (`_accord/...`) are the same in both versions.
    .onRequest('*', async ({ method, params }) => innerAgent().request(method, params))
    .onNotification('*', async ({ method, params }) => {
      await innerAgent().notify(method, params);
    });
  return app;
}

/** The method list the v1 app advertised, less what this facade consumes itself (v2 clients never receive it). */
function advertisedToV2(meta: Json | null | undefined): Json | undefined {
  if (!meta) return undefined;
  const list = meta[METHODS_META_KEY];
  if (list === null || typeof list !== 'object') return meta;
  const { [PROMPT_STARTED_METHOD]: _consumed, ...rest } = list as Json;
  return { ...meta, [METHODS_META_KEY]: rest };
}

function sessionNotFound(sessionId: string): v2.RequestError {
  return new v2.RequestError(-32002, 'Resource not found', { sessionId });
}

/** Only an option the agent offered counts as chosen: an unknown or malformed outcome is never an approval. */
function knownOutcome(outcome: Json | undefined, offered: ReadonlyArray<{ optionId: string }>): Json {
  if (outcome?.outcome === 'selected' && offered.some((o) => o.optionId === outcome.optionId)) return { outcome: 'selected', optionId: outcome.optionId };
  return { outcome: 'cancelled' };
}
