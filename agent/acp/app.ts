// The ACP v1 agent: maps protocol requests onto the core (sessions, turns,
// config) and forwards every session update to the client.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { agent, methods, PROTOCOL_VERSION, RequestError, type AgentApp, type AgentCapabilities, type AgentContext, type PromptRequest, type PromptResponse } from '@agentclientprotocol/sdk/unstable';
import { bangLine, runBangCommand } from '../core/bangCommand';
import { askBeforeChanges, type PermissionGate } from '../core/gate';
import type { Session } from '../core/session';
import { MemorySessionStore, type SessionStore } from '../core/sessionStore';
import { systemPrompt } from '../core/systemPrompt';
import { answerPending, runTurn, type TurnDeps, type WorkspaceDeps } from '../core/turn';
import type { DurableAnswer } from '../core/durable';
import { resumeDeclaredRun, RUN_GATE_TOOL, runLine, startDeclaredRun, type RunGateInput } from '../core/declaredRuns';
import type { AvailableCommand } from '../core/updates';
import type { DeclaredRun } from '../policy/schema';
import type { LoadedPolicy } from '../policy/load';
import type { WorkspacePlan } from '../session/isolatedSession';
import { askClient, durableAsker, promptAnswer, waitingMeta, type DurableRequests } from './durablePermissions';
import { runCompactCommand } from '../core/compactCommand';
import { DEFAULT_MAX_CHILDREN, taskTool } from '../core/children';
import { DEFAULT_COMPACT_AT } from '../core/compaction';
import { builtinCommands, slashCommand } from '../core/slashCommands';
import { refuseClientWidening, refuseSessionMcpServers } from '../policy/clientMeta';
import { snapshot } from '../session/isolated';
import type { CommandRunner, Tool } from '../tools/tool';
import type { StopReason } from '../core/updates';
import type { Env } from '../models/credentials';
import { defaultModelId, resolveModel } from '../models/resolve';
import { warmModel } from '../models/warm';
import { configOptionsFor } from './configOptions';
import { modeGate } from './modeGate';
import { modeStateOf, registerSettingsMethods } from './sessionSettings';
import { permissionAsker } from './permissions';
import { toUserContent } from './prompt';
import { notifyPromptStarted } from './promptStarted';
import { registerCallCancel } from './callCancel';
import { ClientFeatureBook, featuresOf, forClient, type ClientFeatures } from './clientView';
import { registerChangesMethods } from './changesMethods';
import { methodsCapability } from '../../protocol/accordMethods';
import { ClientModelChannel } from './clientModels';
import type { SessionPersistence } from './sessionLog';
import { logOffsetOf } from '../log/offsets';
import type { SessionWorkspaces } from '../session/workspaces';
import { flagsMeta, TURN_ENDED_METHOD, TURN_STARTED_METHOD, type SessionSharing } from './sharing';
import { launchGrants } from './launchGrants';
import { SessionSetupError, setupFailure, untilReadyOr, workspaceFor } from './workspaceReady';

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
  /**
   * Per-session isolated workspaces (sandboxed runner, policy gate, `_accord/...`
   * review methods). Without it sessions work directly in their cwd with
   * `commands` and `gate`.
   */
  isolation?: SessionWorkspaces;
  /** Receives the function listing a session's commands (built-ins and declared runs), for the session log's load. */
  commandsFor?(list: (session: Session) => AvailableCommand[]): void;
  /** `--durable-requests`: approvals do not block the turn (see durablePermissions.ts); absent: they do. */
  durable?: DurableRequests;
  /** Child sessions one session runs at once; default ACCORD_MAX_CHILDREN or 3. */
  maxChildren?: number;
  /** Auto-compaction threshold as a share of the context window; default ACCORD_COMPACT_AT (percent) or 80%. */
  compactAt?: number;
  /** Filled at `initialize`: what this connection's client can read (shared with the session log's load). */
  clientFeatures?: ClientFeatureBook;
  /**
   * Sessions shared with other connections (the daemon): updates, approvals
   * and session lifetime go through this connection's view. Without it the
   * connection owns its sessions.
   */
  sharing?: SessionSharing;
}

/** `session/new` `_meta` key choosing where a session works: "isolated" (default) or "in-place". */
export const WORKSPACE_META_KEY = 'accord/workspace';

function wantsInPlace(meta: unknown): boolean {
  const value = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>)[WORKSPACE_META_KEY] : undefined;
  if (value === undefined || value === 'isolated') return false;
  if (value === 'in-place') return true;
  throw RequestError.invalidParams({ [WORKSPACE_META_KEY]: value }, `_meta["${WORKSPACE_META_KEY}"] must be "isolated" or "in-place"; got ${JSON.stringify(value)}.`);
}

/** Forwards a session's updates to `client` until sending fails (the connection is gone). Returns the unsubscribe. */
export function forwardUpdates(session: Session, client: AgentContext, features: ClientFeatures): () => void {
  const unsubscribe = session.updates.subscribe(async (update) => {
    try {
      for (const notification of forClient(session.id, update, features, logOffsetOf(update))) await client.notify(methods.client.session.update, notification);
    } catch (error) {
      unsubscribe();
      console.error(`accord: stopped sending updates for session ${session.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  return unsubscribe;
}

export const NO_MODEL_MESSAGE = [
  'No model is configured, so Accord cannot answer yet. Configure one of these, then send your message again:',
  '- set ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY in the environment Accord starts from (optionally ACCORD_MODEL=provider:model, e.g. anthropic:claude-sonnet-4-5);',
  '- in VS Code, use a model VS Code offers (GitHub Copilot): pick it in the model picker;',
  '- run `accord login anthropic` (or `accord login openai`) in a terminal to store a key;',
  '- in VS Code, run the command "Accord: Set API Key";',
  '- or start a local OpenAI-compatible server (Ollama on 127.0.0.1:11434, LM Studio on :1234, llama.cpp on :8080), or set ACCORD_MODEL=openai-compatible:http://host:port/v1#model.',
].join('\n');

/**
 * What a session's calls would run through before its copy exists: they
 * never do (turn.ts waits for `untilReady` first); if anything did, it is
 * refused rather than run in the person's tree.
 */
function notReady(session: Session): Pick<TurnDeps, 'gate' | 'commands'> {
  const refusal = `Session ${session.id}: its workspace is not ready yet.`;
  return {
    gate: { decide: () => 'deny', why: () => refusal },
    commands: { run: async () => { throw new Error(refusal); } },
  };
}

/** ACCORD_COMPACT_AT: a percentage in (0, 100]. */
function compactShare(text: string | undefined): number | undefined {
  const n = Number(text);
  return text && Number.isFinite(n) && n > 0 && n <= 100 ? n / 100 : undefined;
}

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
  const isolation = options.isolation;
  const features = options.clientFeatures ?? new ClientFeatureBook();
  const durable = options.durable;
  // Set below, once the helpers exist; the session log asks it for a loaded session's commands.
  let commandsFor: (session: Session) => AvailableCommand[] = () => [...builtinCommands];
  options.commandsFor?.((session) => commandsFor(session));
  const maxChildren = options.maxChildren ?? positiveInt(env.ACCORD_MAX_CHILDREN) ?? DEFAULT_MAX_CHILDREN;
  const compactAt = options.compactAt ?? compactShare(env.ACCORD_COMPACT_AT) ?? DEFAULT_COMPACT_AT;
  const sharing = options.sharing;
  // The editor's language models (VS Code's `vscode.lm`), when this connection's client lends them.
  const clientModels = new ClientModelChannel();
  // A turn with no client of its own (resumed by a durable answer) cannot borrow one's models.
  const modelsOf = (client: AgentContext | undefined) => (client ? clientModels.host(client, features.current.languageModels) : undefined);

  /** Prompts waiting for their session's workspace; session/cancel ends the wait. */
  const waiting = new WeakMap<Session, AbortController>();
  /** The log of a session created here, started in the background at session/new; a prompt waits for it. */
  const logStarts = new WeakMap<Session, Promise<void>>();
  /** The project's policy of a session whose copy is still being made. */
  const plannedPolicies = new WeakMap<Session, LoadedPolicy>();
  /** Sessions this connection created with a workspace of their own. */
  const madeIsolated = new WeakSet<Session>();

  const sessionOrThrow = (sessionId: string): Session => {
    const session = store.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  /** Where a session's tools work and what they run through: its isolated workspace, or the app-wide defaults. */
  const sessionDeps = (session: Session): Pick<TurnDeps, 'tools' | 'gate' | 'commands' | 'commandContext' | 'beforeChange' | 'untilReady'> => {
    const isolated = isolation?.get(session.id);
    // Its copy is still being made: the model may start; every call waits for the copy and never runs in the person's tree.
    if (!isolated && isolation && madeIsolated.has(session)) return { tools: options.tools, ...notReady(session), untilReady: () => workspaceDepsOf(isolation, session) };
    if (!isolated) return { tools: options.tools, gate, commands: options.commands };
    const { workspace } = isolated;
    return {
      tools: [...options.tools, ...isolated.mcpTools],
      // In `auto` mode the session's edits of its own copy wait for the person's review, which is their approval; in `ask` and in place they ask.
      gate: modeGate(session, isolated.gate, workspace.mode === 'in-place'),
      commands: isolated.runner,
      commandContext: isolated.commandContext,
      // In place, the person's tree is the workspace: every change gets a "before" to diff and discard against.
      ...(workspace.mode === 'in-place' ? { beforeChange: async (toolName: string) => void (await snapshot(workspace, `before ${toolName}`)) } : {}),
    };
  };

  /** What a session's calls run through once its copy is ready; rejects with the reason it could not be made. */
  const workspaceDepsOf = async (workspaces: SessionWorkspaces, session: Session): Promise<WorkspaceDeps> => {
    const ready = await workspaces.ready(session.id).catch((error: unknown) => {
      throw new Error(setupFailure(session.id, error).message);
    });
    if (!ready) throw new Error(`Session ${session.id} was closed while its workspace was being prepared.`);
    const { gate: readyGate, commands, commandContext, beforeChange } = sessionDeps(session);
    return { gate: readyGate, commands, ...(commandContext ? { commandContext } : {}), ...(beforeChange ? { beforeChange } : {}) };
  };

  const app = agent({ name: 'accord' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      features.current = featuresOf(params.clientCapabilities);
      return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: true, embeddedContext: true, audio: false },
        ...options.extraCapabilities,
        // Every `_accord/*` method with its schema version (protocol/accordMethods.ts); the review methods need isolation.
        _meta: methodsCapability({ workspaces: isolation !== undefined }),
      },
      agentInfo: { name: 'accord', title: 'Accord', version },
      authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      // A session that names no directory works in the connection's project (`accord acp --project`).
      const cwd = sharing?.project && (params.cwd === '' || params.cwd === '.') ? sharing.project : params.cwd;
      const isDirectory = isAbsolute(cwd) && (await stat(cwd).then((s) => s.isDirectory(), () => false));
      if (!isDirectory) {
        throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path to an existing directory; got "${cwd}".`);
      }
      const widening = refuseClientWidening(params._meta, launchGrants(sharing, isolation));
      if (widening) throw RequestError.invalidParams({ _meta: params._meta }, widening);
      const mcpRefusal = refuseSessionMcpServers(params.mcpServers);
      if (mcpRefusal) throw RequestError.invalidParams({ mcpServers: params.mcpServers.map((s) => s.name) }, mcpRefusal);
      const inPlace = wantsInPlace(params._meta);
      const sessionId = randomUUID();
      const flags = sharing?.flags ?? {};
      const session = store.create(cwd, { model: sharing?.model ?? (await defaultModelId(env)), reasoningEffort: 'medium' }, sessionId);
      warmModel(session.settings.model, env);
      if (isolation) {
        madeIsolated.add(session);
        // Answer now: the log starts, and the copy, its sandbox and MCP servers are made, in the background.
        // The log comes first (a prompt may arrive before the copy); it names the copy once made.
        const logStarted = (persistence?.sessionCreated(session, { preparing: true, inPlace }, flags) ?? Promise.resolve()).catch((error: unknown) => {
          throw new SessionSetupError(`Could not start the session's log: ${error instanceof Error ? error.message : String(error)}`);
        });
        logStarted.catch(() => undefined);
        logStarts.set(session, logStarted);
        const prepared = isolation.prepare(sessionId, cwd, inPlace, flags.alwaysApprove, async (isolated) => {
          session.workIn(isolated.workspace.root);
          await logStarted;
          await persistence?.workspaceMade(session, isolated.workspace).catch((error: unknown) => {
            throw new SessionSetupError(`Could not record the session's workspace in its log: ${error instanceof Error ? error.message : String(error)}`);
          });
        });
        // The first model request names the root before the copy exists.
        void isolation.plan(sessionId).then((plan) => plan && planned(session, plan), () => undefined);
        prepared
          // What session/new's _meta used to carry (sandbox, policy and MCP problems, workspace), once known.
          .then(async (isolated) => {
            await session.updates.emit({ sessionUpdate: 'session_info_update', _meta: isolated.meta } as never);
            // The policy's declared runs are known now: the "/" menu offers them too.
            if (Object.keys(runsOf(session)).length > 0) await session.updates.emit({ sessionUpdate: 'available_commands_update', availableCommands: commandsOf(session) });
          }, () => undefined);
      } else {
        try {
          await persistence?.sessionCreated(session, undefined, flags);
        } catch (error) {
          store.remove(session.id);
          throw RequestError.internalError({ cwd }, `Could not start the session's log: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (sharing) await sharing.attach(session, client, flags, features.current);
      else forwardUpdates(session, client, features.current);
      const configOptions = await configOptionsFor(session, env, modelsOf(client));
      // After the response, so the client already knows the session id.
      setTimeout(() => void session.updates.emit({ sessionUpdate: 'available_commands_update', availableCommands: commandsOf(session) }), 0);
      const meta = flagsMeta(flags);
      return { sessionId: session.id, configOptions, modes: modeStateOf(session), ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const session = sessionOrThrow(params.sessionId);
      // A prompt sent during a turn waits and runs next; a cancel meanwhile ends it unrun.
      // `waiting` (durable approvals) is Accord's extension of v1's stop reasons.
      return session.enqueue(() => runPromptInWorkspace(session, params, client), () => ({ stopReason: 'cancelled' as const })) as Promise<PromptResponse>;
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      const session = store.get(params.sessionId);
      if (session) waiting.get(session)?.abort();
      session?.cancel();
    });

  /** The root and policy known before the copy is made: the first request names the root, and "/" finds the declared runs. */
  function planned(session: Session, plan: WorkspacePlan): void {
    if (isolation?.isReady(session.id)) return;
    session.workIn(plan.root);
    plannedPolicies.set(session, plan.policy);
  }

  /** The project's declared runs (from the policy the session's workspace loaded); none without isolation or with a broken policy. */
  function runsOf(session: Session): Record<string, DeclaredRun> {
    const policy = isolation?.get(session.id)?.policy ?? plannedPolicies.get(session);
    return policy && policy.status !== 'invalid' ? policy.policy.runs : {};
  }

  /** Everything the "/" menu offers: the built-in commands, then the declared runs. */
  function commandsOf(session: Session): AvailableCommand[] {
    const runs = Object.entries(runsOf(session))
      .filter(([name]) => !builtinCommands.some((c) => c.name === name))
      .map(([name, run]): AvailableCommand => {
        const takesArgs = [...run.steps, ...(run.onFailure ?? [])].some((step) => step.argv.includes('{args}'));
        return {
          name,
          description: run.description ?? `Declared run: ${run.steps.map((step) => step.name).join(' → ')}`,
          ...(takesArgs ? { input: { hint: 'arguments' } } : {}),
        };
      });
    return [...builtinCommands, ...runs];
  }
  commandsFor = commandsOf;

  /** Answers a pending durable approval: a model tool call's, or a declared run's gate. */
  async function resolveApproval(session: Session, requestId: string, optionId: DurableAnswer, turnDeps: TurnDeps): Promise<StopReason> {
    const pending = session.pendingPermissions.get(requestId);
    if (pending?.toolName === RUN_GATE_TOOL) {
      session.pendingPermissions.delete(requestId);
      await turnDeps.observer?.answered?.(pending, optionId);
      return resumeDeclaredRun(session, pending.input as RunGateInput, optionId === 'allow_once', { ...turnDeps, runs: runsOf(session) });
    }
    return answerPending(session, requestId, optionId, turnDeps);
  }

  /** `client`: the connection's client; undefined only for a shared session (the daemon asks through its brokers). */
  function depsFor(session: Session, client: AgentContext | undefined): TurnDeps {
    const own = (): AgentContext => {
      if (!client) throw new Error('accord: a session of this connection has no client to ask');
      return client;
    };
    // A shared session (the daemon) asks every attached client through its brokers.
    const blocking = sharing ? sharing.permissions(session) : permissionAsker(own(), session.id);
    const shared = sharing?.durable(session);
    const asker = shared
      ? shared.asker
      : durable && !sharing
        ? durableAsker(own(), session, durable.outstanding, (requestId, optionId) => answeredByClient(session, client, requestId, optionId))
        : blocking;
    const record = (a: typeof asker) => (persistence ? persistence.permissions(session, a) : a);
    const turnDeps: TurnDeps = {
      permissions: record(asker),
      // A child session's approval cannot outlive the child: it is asked and waited for, durable or not.
      childPermissions: record(blocking),
      maxTurnRequests,
      maxRetries,
      streamIdleTimeoutMs,
      ...sessionDeps(session),
      ...(persistence ? { observer: persistence.observer(session) } : {}),
      model: async (s) => {
        if (!s.settings.model) throw new Error(NO_MODEL_MESSAGE);
        return resolveModel(s.settings.model, env, modelsOf(client));
      },
      systemPrompt,
      compactAt,
    };
    // The model can hand work to child sessions; they use these same deps, minus the task tool itself.
    turnDeps.tools = [...turnDeps.tools, taskTool(session, () => turnDeps, { maxChildren })];
    return turnDeps;
  }

  /** The client answered a durable request itself: if no prompt answered it first, the turn goes on (outside any prompt). */
  function answeredByClient(session: Session, client: AgentContext | undefined, requestId: string, optionId: DurableAnswer): void {
    if (!session.pendingPermissions.has(requestId)) return;
    void session.enqueue(async () => {
      if (!session.pendingPermissions.has(requestId)) return;
      persistence?.turnStarted(session, []);
      // No prompt request carries this turn: every client watching learns it runs, and how it ended.
      const notice = (method: string, params: Record<string, unknown>) => void client?.notify(method, { sessionId: session.id, ...params }).catch(() => undefined);
      if (sharing) sharing.backgroundTurn(session, { started: true });
      else notice(TURN_STARTED_METHOD, {});
      let stopReason: StopReason = 'cancelled';
      try {
        stopReason = await resolveApproval(session, requestId, optionId, depsFor(session, client));
        await session.updates.barrier(async () => undefined);
        await persistence?.turnEnded(session, stopReason);
      } finally {
        if (sharing) sharing.backgroundTurn(session, { ended: stopReason });
        else notice(TURN_ENDED_METHOD, { stopReason });
      }
    }, () => undefined).catch((error: unknown) => console.error(`accord: answering approval ${requestId}: ${error instanceof Error ? error.message : String(error)}`));
  }

  /**
   * A model turn starts as soon as its session's log has started and the
   * copy's root and policy are known: only its tool calls wait for the copy
   * (turn.ts `untilReady`). Everything else (a `!` line, a declared run, a
   * slash command, an approval's answer) and a turn whose policy declares
   * MCP servers (their tools are part of the first request) wait for the
   * whole workspace. session/cancel ends either wait.
   */
  async function runPromptInWorkspace(session: Session, params: PromptRequest, client: AgentContext): Promise<{ stopReason: StopReason; _meta?: Record<string, unknown> }> {
    if (isolation) {
      const wait = new AbortController();
      waiting.set(session, wait);
      try {
        const early = madeIsolated.has(session) && !isolation.isReady(session.id) ? await earlyStart(isolation, session, params, wait.signal) : 'wait';
        if (early === 'cancelled') return { stopReason: 'cancelled' };
        if (early === 'wait') {
          const ready = await workspaceFor(isolation, session.id, wait.signal);
          if (ready === 'cancelled') return { stopReason: 'cancelled' };
          // Made for a copy that is gone (closed meanwhile): never run in the person's tree instead.
          if (!ready && madeIsolated.has(session)) throw RequestError.sessionNotFound(session.id);
        }
      } finally {
        waiting.delete(session);
      }
    }
    return runPrompt(session, params, client);
  }

  /** 'start': the turn may begin before the copy is ready; 'wait': it needs the whole workspace first. */
  async function earlyStart(workspaces: SessionWorkspaces, session: Session, params: PromptRequest, signal: AbortSignal): Promise<'start' | 'wait' | 'cancelled'> {
    const plan = await untilReadyOr(workspaces.plan(session.id), session.id, signal);
    if (plan === 'cancelled') return 'cancelled';
    if (!plan) throw RequestError.sessionNotFound(session.id);
    planned(session, plan);
    const declaresMcp = plan.policy.status !== 'invalid' && plan.policy.policy.mcpServers.length > 0;
    if (declaresMcp || !isModelTurn(session, params)) return 'wait';
    const logged = await untilReadyOr(logStarts.get(session) ?? Promise.resolve(), session.id, signal);
    return logged === 'cancelled' ? 'cancelled' : 'start';
  }

  /** The prompt is for the model (not a `!` line, a slash command, or a durable approval's answer). */
  function isModelTurn(session: Session, params: PromptRequest): boolean {
    const content = toUserContent(params.prompt);
    if (bangLine(content) !== undefined || slashCommand(content, commandsOf(session))) return false;
    if (!(sharing?.durable(session) || (durable && !sharing))) return true;
    try {
      return promptAnswer(session, params._meta) === undefined;
    } catch {
      return false; // refused in runPrompt, with its reason
    }
  }

  async function runPrompt(session: Session, params: PromptRequest, client: AgentContext): Promise<{ stopReason: StopReason; _meta?: Record<string, unknown> }> {
    // Refused before anything is recorded or run: a bad answer never approves.
    const shared = sharing?.durable(session);
    const answer = shared || (durable && !sharing) ? promptAnswer(session, params._meta) : undefined;
    // Queued before turnStarted emits the title, so the client hears of its prompt in log order (run once the offset is set).
    const started: { offset?: number } = {};
    void session.updates.barrier(async () => notifyPromptStarted(client, session.id, params._meta, started.offset));
    const promptOffset = (started.offset = persistence?.turnStarted(session, params.prompt));
    sharing?.promptStarted(session, params.prompt, promptOffset);
    const content = toUserContent(params.prompt);
    const turnDeps = depsFor(session, client);
    const line = bangLine(content);
    const declared = line !== undefined ? runLine(line) : undefined;
    const command = line === undefined ? slashCommand(content, commandsOf(session)) : undefined;
    const runDeps = { ...turnDeps, runs: runsOf(session) };
    let stopReason: StopReason;
    if (answer) {
      // The first answer wins: withdraw the dialogs.
      if (shared) shared.settled(answer.requestId, answer.optionId);
      else durable?.outstanding.settle(answer.requestId);
      stopReason = await resolveApproval(session, answer.requestId, answer.optionId, turnDeps);
    } else if (declared) stopReason = await startDeclaredRun(session, declared.name, declared.argsText, runDeps);
    else if (line !== undefined) stopReason = await runBangCommand(session, line, turnDeps);
    else if (command?.name === 'compact') stopReason = await runCompactCommand(session, command.args, turnDeps);
    else if (command) stopReason = await startDeclaredRun(session, command.name, command.args, runDeps);
    else stopReason = await runTurn(session, content, turnDeps);
    // The response follows every update of its turn: an update still queued (a late usage_update) would reach the client after it.
    await session.updates.barrier(async () => undefined);
    try {
      await persistence?.turnEnded(session, stopReason);
    } finally {
      sharing?.turnEnded(session, stopReason);
    }
    const meta = stopReason === 'waiting' ? waitingMeta(session) : undefined;
    return { stopReason, ...(meta ? { _meta: meta } : {}) };
  }

  // In the daemon, an answer from this connection's dialog continues the turn here (with this connection's settings).
  sharing?.answerDurableWith((session, requestId, optionId) => answeredByClient(session, undefined, requestId, optionId));
  if (durable && !sharing) {
    durable.reask = (session, client) => {
      for (const pending of session.pendingPermissions.values()) {
        askClient(client, session.id, pending.requestId, pending.toolCall, durable.outstanding, (requestId, optionId) => answeredByClient(session, client, requestId, optionId));
      }
    };
  }
  registerSettingsMethods(app, { env, sessionOf: sessionOrThrow, modelsOf, changed: (session) => persistence?.configChanged(session) });
  clientModels.register(app);
  registerCallCancel(app, sessionOrThrow);
  return isolation ? registerChangesMethods(app, isolation) : app;
}
