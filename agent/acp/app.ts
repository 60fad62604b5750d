// The ACP v1 agent: maps protocol requests onto the core (sessions, turns,
// config) and forwards every session update to the client.
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { agent, methods, PROTOCOL_VERSION, RequestError, type AgentApp, type AgentCapabilities, type AgentContext, type SessionNotification } from '@agentclientprotocol/sdk';
import { askBeforeChanges, type PermissionGate } from '../core/gate';
import type { Session } from '../core/session';
import { MemorySessionStore, type SessionStore } from '../core/sessionStore';
import { systemPrompt } from '../core/systemPrompt';
import { runTurn } from '../core/turn';
import type { CommandRunner, Tool } from '../tools/tool';
import type { Env } from '../models/credentials';
import { defaultModelId, resolveModel } from '../models/resolve';
import { applyConfigOption, ConfigValueError, configOptionsFor } from './configOptions';
import { permissionAsker } from './permissions';
import { toUserContent } from './prompt';
import type { SessionPersistence } from './sessionLog';

declare const ACCORD_VERSION: string;
const version = typeof ACCORD_VERSION === 'string' ? ACCORD_VERSION : '0.0.0-dev';

export interface AccordAgentOptions {
  env: Env;
  tools: readonly Tool<any>[];
  commands: CommandRunner;
  gate?: PermissionGate;
  store?: SessionStore;
  /** Cap on model requests per turn; default ACCORD_MAX_TURN_REQUESTS or 50. */
  maxTurnRequests?: number;
  /** Retries per model request (the ai SDK honours retry-after); default 2. */
  maxRetries?: number;
  /** Drop a model stream silent this long; default ACCORD_STREAM_IDLE_TIMEOUT_MS or 5 minutes. */
  streamIdleTimeoutMs?: number;
  /**
   * Capabilities added by handlers registered on the returned app (e.g. the
   * session log's `loadSession`, `sessionCapabilities.list`). Advertise only
   * what those handlers really serve.
   */
  extraCapabilities?: Pick<AgentCapabilities, 'loadSession' | 'sessionCapabilities'>;
  /** Records sessions (the session log); without it sessions live in memory only. */
  persistence?: SessionPersistence;
}

/** Forwards a session's updates to `client` until sending fails (the connection is gone). Returns the unsubscribe. */
export function forwardUpdates(session: Session, client: AgentContext): () => void {
  const unsubscribe = session.updates.subscribe((update) => {
    const notification: SessionNotification = { sessionId: session.id, update };
    return client.notify(methods.client.session.update, notification).catch((error: unknown) => {
      unsubscribe();
      console.error(`accord: stopped sending updates for session ${session.id}: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  return unsubscribe;
}

export const NO_MODEL_MESSAGE = [
  'No model is configured, so Accord cannot answer yet. Configure one of these, then send your message again:',
  '- set ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment Accord starts from (optionally ACCORD_MODEL=provider:model, e.g. anthropic:claude-sonnet-4-5);',
  '- run `accord login anthropic` (or `accord login openai`) in a terminal to store a key;',
  '- in VS Code, run the command "Accord: Set API Key";',
  '- or start a local OpenAI-compatible server (Ollama on 127.0.0.1:11434, LM Studio on :1234, llama.cpp on :8080), or set ACCORD_MODEL=openai-compatible:http://host:port/v1#model.',
].join('\n');

function positiveInt(text: string | undefined): number | undefined {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export function createAccordAgent(options: AccordAgentOptions): AgentApp {
  const { env } = options;
  const store = options.store ?? new MemorySessionStore();
  const gate = options.gate ?? askBeforeChanges;
  const persistence = options.persistence;
  const maxTurnRequests = options.maxTurnRequests ?? positiveInt(env.ACCORD_MAX_TURN_REQUESTS) ?? 50;
  const maxRetries = options.maxRetries ?? 2;
  const streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? positiveInt(env.ACCORD_STREAM_IDLE_TIMEOUT_MS) ?? 300_000;

  const sessionOrThrow = (sessionId: string): Session => {
    const session = store.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  return agent({ name: 'accord' })
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: true, embeddedContext: true, audio: false },
        ...options.extraCapabilities,
      },
      agentInfo: { name: 'accord', title: 'Accord', version },
      authMethods: [],
    }))
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      const cwd = params.cwd;
      const isDirectory = isAbsolute(cwd) && (await stat(cwd).then((s) => s.isDirectory(), () => false));
      if (!isDirectory) {
        throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path to an existing directory; got "${cwd}".`);
      }
      const session = store.create(cwd, { model: await defaultModelId(env), reasoningEffort: 'medium' });
      try {
        await persistence?.sessionCreated(session);
      } catch (error) {
        store.remove(session.id);
        throw RequestError.internalError({ cwd }, `Could not start the session's log: ${error instanceof Error ? error.message : String(error)}`);
      }
      forwardUpdates(session, client);
      const configOptions = await configOptionsFor(session, env);
      // After the response, so the client already knows the session id. Accord has no slash commands yet.
      setTimeout(() => void session.updates.emit({ sessionUpdate: 'available_commands_update', availableCommands: [] }), 0);
      return { sessionId: session.id, configOptions };
    })
    .onRequest(methods.agent.session.setConfigOption, async ({ params }) => {
      const session = sessionOrThrow(params.sessionId);
      try {
        await applyConfigOption(session, env, params.configId, params.value);
      } catch (error) {
        if (error instanceof ConfigValueError) throw RequestError.invalidParams({ configId: params.configId }, error.message);
        throw error;
      }
      persistence?.configChanged(session);
      const configOptions = await configOptionsFor(session, env);
      await session.updates.emit({ sessionUpdate: 'config_option_update', configOptions });
      return { configOptions };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const session = sessionOrThrow(params.sessionId);
      if (session.turnRunning) {
        throw RequestError.invalidRequest({ sessionId: session.id }, 'A turn is already running in this session; cancel it or wait for it to end.');
      }
      persistence?.turnStarted(session, params.prompt);
      const permissions = permissionAsker(client, session.id);
      const stopReason = await runTurn(session, toUserContent(params.prompt), {
        model: async (s) => {
          if (!s.settings.model) throw new Error(NO_MODEL_MESSAGE);
          return resolveModel(s.settings.model, env);
        },
        tools: options.tools,
        gate,
        permissions: persistence ? persistence.permissions(session, permissions) : permissions,
        commands: options.commands,
        maxTurnRequests,
        maxRetries,
        streamIdleTimeoutMs,
        systemPrompt,
      });
      await persistence?.turnEnded(session, stopReason);
      return { stopReason };
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      store.get(params.sessionId)?.cancel();
    });
}
