// The ACP v1 agent: maps protocol requests onto the core (sessions, turns,
// config) and forwards every session update to the client.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { agent, methods, PROTOCOL_VERSION, RequestError, type AgentApp, type AgentContext, type PromptRequest, type PromptResponse } from '@agentclientprotocol/sdk/unstable';
import { bangLine, runBangCommand } from '../core/bangCommand';
import { askBeforeChanges } from '../core/gate';
import type { Session } from '../core/session';
import { MemorySessionStore } from '../core/sessionStore';
import { systemPrompt } from '../core/systemPrompt';
import { answerPending, modelTools, runTurn, type TurnDeps, type WorkspaceDeps } from '../core/turn';
import type { DurableAnswer } from '../core/durable';
import { resumeDeclaredRun, RUN_GATE_TOOL, runLine, startDeclaredRun, type RunGateInput } from '../core/declaredRuns';
import type { AvailableCommand } from '../core/updates';
import type { DeclaredRun } from '../policy/schema';
import { askClient, durableAsker, promptAnswer, waitingMeta } from './durablePermissions';
import { runCompactCommand } from '../core/compactCommand';
import { DEFAULT_MAX_CHILDREN, taskTool } from '../core/children';
import { DEFAULT_COMPACT_AT } from '../core/compaction';
import { builtinCommands, slashCommand } from '../core/slashCommands';
import { refuseClientWidening, refuseSessionMcpServers } from '../policy/clientMeta';
import { snapshot } from '../session/isolated';
import type { StopReason } from '../core/updates';
import { defaultModelId, resolveModel } from '../models/resolve';
import { warmModel } from '../models/warm';
import { configOptionsFor } from './configOptions';
import { modeGate } from './modeGate';
import { modeStateOf, registerSettingsMethods } from './sessionSettings';
import { permissionAsker } from './permissions';
import { toUserContent } from './prompt';
import { notifyPromptStarted } from './promptStarted';
import { registerCallCancel } from './callCancel';
import { ClientFeatureBook, featuresOf } from './clientView';
import { registerChangesMethods } from './changesMethods';
import { methodsCapability } from '../../protocol/accordMethods';
import { ClientModelChannel } from './clientModels';
import { flagsMeta, TURN_ENDED_METHOD, TURN_STARTED_METHOD } from './sharing';
import { launchGrants } from './launchGrants';
import { EarlyStarts } from './earlyStart';
import { compactShare, positiveInt, wantsInPlace, NO_MODEL_MESSAGE, type AccordAgentOptions } from './agentOptions';
import { forwardUpdates } from './forwardUpdates';
import { startUpEnded } from '../cli/compileCache';

export { NO_MODEL_MESSAGE, WORKSPACE_META_KEY, type AccordAgentOptions } from './agentOptions';
export { forwardUpdates } from './forwardUpdates';

/** A prompt's meaning: a durable approval's answer, a declared run (`!name` or `/name`), a `!` command, `/compact`, or a model turn. */
type PromptKind =
  | { kind: 'answer'; answer: { requestId: string; optionId: DurableAnswer } }
  | { kind: 'declared'; name: string; args: string }
  | { kind: 'bang'; line: string }
  | { kind: 'compact'; args: string }
  | { kind: 'model'; content: ReturnType<typeof toUserContent> };

declare const ACCORD_VERSION: string;
const version = typeof ACCORD_VERSION === 'string' ? ACCORD_VERSION : '0.0.0-dev';





export function createAccordAgent(options: AccordAgentOptions): AgentApp {
  const { env } = options;
  const store = options.store ?? new MemorySessionStore();
  const gate = options.gate ?? askBeforeChanges;
  const persistence = options.persistence;
  const maxTurnRequests = options.maxTurnRequests ?? positiveInt(env.ACCORD_MAX_TURN_REQUESTS) ?? 50;
  const maxRetries = options.maxRetries ?? 2;
  const streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? positiveInt(env.ACCORD_STREAM_IDLE_TIMEOUT_MS) ?? 300_000;
  const isolation = options.isolation;
  const early = isolation ? new EarlyStarts(isolation, persistence) : undefined;
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


  const sessionOrThrow = (sessionId: string): Session => {
    const session = store.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  /** Where a session's tools work and what they run through: its isolated workspace, or the app-wide defaults. */
  const sessionDeps = (session: Session): Pick<TurnDeps, 'tools' | 'gate' | 'commands' | 'commandContext' | 'beforeChange' | 'untilReady'> => {
    const isolated = isolation?.get(session.id);
    // Its copy is still being made: the model may start; every call waits for the copy and never runs in the person's tree.
    const notReady = early?.notReadyDeps(session, () => readyDeps(session));
    if (notReady) return { tools: options.tools, ...notReady };
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


  /** What a session's calls run through once its copy is ready. */
  const readyDeps = (session: Session): WorkspaceDeps => {
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
      // Released once the answer is on its way (below): the log and the copy start then.
      let answered: () => void = () => undefined;
      const afterAnswer = new Promise<void>((resolve) => (answered = resolve));
      void afterAnswer.then(() => {
        warmModel(session.settings.model, env);
        // The tools' JSON schemas, made once per process, before the first request needs them (part of the warm-up).
        if (env.ACCORD_WARM_MODEL !== 'off') void modelTools(options.tools).catch(() => undefined);
      });
      if (early) {
        early
          .prepare(session, inPlace, flags, afterAnswer)
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
      try {
        if (sharing) await sharing.attach(session, client, flags, features.current);
        else forwardUpdates(session, client, features.current);
        const configOptions = await configOptionsFor(session, env, modelsOf(client));
        // After the response, so the client already knows the session id.
        setTimeout(() => void session.updates.emit({ sessionUpdate: 'available_commands_update', availableCommands: commandsOf(session) }), 0);
        const meta = flagsMeta(flags);
        return { sessionId: session.id, configOptions, modes: modeStateOf(session), ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
      } finally {
        // The background work starts once the answer is out (also after a failure: nothing waits forever). The
        // answer is handed to the output in this turn of the event loop; the output sends it at once when idle,
        // else from a setImmediate queued after this one (acp/batchedOutput.ts): a single setImmediate here ran the
        // warm-up's bundle loads before that send, and the client waited for them (~9 ms of each session/new).
        setImmediate(() => setImmediate(answered));
      }
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      // The agent's compile cache, if this start writes one, holds what starting needs and not the turn (cli/compileCache.ts).
      startUpEnded();
      const session = sessionOrThrow(params.sessionId);
      // A prompt sent during a turn waits and runs next; a cancel meanwhile ends it unrun.
      // `waiting` (durable approvals) is Accord's extension of v1's stop reasons.
      return session.enqueue(() => runPromptInWorkspace(session, params, client), () => ({ stopReason: 'cancelled' as const })) as Promise<PromptResponse>;
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      const session = store.get(params.sessionId);
      if (session) early?.cancel(session);
      session?.cancel();
    });

  /** The project's declared runs (from the policy the session's workspace loaded); none without isolation or with a broken policy. */
  function runsOf(session: Session): Record<string, DeclaredRun> {
    const policy = early?.policyOf(session);
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

  /** A model turn may start before the session's copy is ready; anything else waits for it (earlyStart.ts). */
  async function runPromptInWorkspace(session: Session, params: PromptRequest, client: AgentContext): Promise<{ stopReason: StopReason; _meta?: Record<string, unknown> }> {
    // A copy still being made waits while this prompt's model answers (earlyStart.ts holdCopy, copyPacing.ts).
    early?.holdCopy(session);
    try {
      if (early && (await early.beforePrompt(session, () => isModelTurn(session, params))) === 'cancelled') return { stopReason: 'cancelled' };
      return await runPrompt(session, params, client);
    } finally {
      // After the answer is out: the copy's first steps run in the microtasks its release starts and would hold
      // up the answer, which the output sends from a setImmediate queued after this one (as session/new's background).
      if (early) setImmediate(() => setImmediate(() => early.releaseCopy(session)));
    }
  }

  /** The prompt is for the model (not a `!` line, a slash command, or a durable approval's answer). */
  function isModelTurn(session: Session, params: PromptRequest): boolean {
    try {
      return promptKind(session, params).kind === 'model';
    } catch {
      return false; // refused in runPrompt, with its reason
    }
  }

  /** What a prompt asks for; throws for a durable answer that names no pending request or option (it never approves). */
  function promptKind(session: Session, params: PromptRequest): PromptKind {
    const answer = sharing?.durable(session) || (durable && !sharing) ? promptAnswer(session, params._meta) : undefined;
    if (answer) return { kind: 'answer', answer };
    const content = toUserContent(params.prompt);
    const line = bangLine(content);
    if (line !== undefined) {
      const declared = runLine(line);
      return declared ? { kind: 'declared', name: declared.name, args: declared.argsText } : { kind: 'bang', line };
    }
    const command = slashCommand(content, commandsOf(session));
    if (command?.name === 'compact') return { kind: 'compact', args: command.args };
    if (command) return { kind: 'declared', name: command.name, args: command.args };
    return { kind: 'model', content };
  }

  async function runPrompt(session: Session, params: PromptRequest, client: AgentContext): Promise<{ stopReason: StopReason; _meta?: Record<string, unknown> }> {
    // Refused before anything is recorded or run: a bad answer never approves.
    const prompt = promptKind(session, params);
    // Queued before turnStarted emits the title, so the client hears of its prompt in log order (run once the offset is set).
    const started: { offset?: number } = {};
    void session.updates.barrier(async () => notifyPromptStarted(client, session.id, params._meta, started.offset));
    const promptOffset = (started.offset = persistence?.turnStarted(session, params.prompt));
    sharing?.promptStarted(session, params.prompt, promptOffset);
    const turnDeps = depsFor(session, client);
    let stopReason: StopReason;
    switch (prompt.kind) {
      case 'answer': {
        const { requestId, optionId } = prompt.answer;
        // The first answer wins: withdraw the dialogs.
        const shared = sharing?.durable(session);
        if (shared) shared.settled(requestId, optionId);
        else durable?.outstanding.settle(requestId);
        stopReason = await resolveApproval(session, requestId, optionId, turnDeps);
        break;
      }
      case 'declared':
        stopReason = await startDeclaredRun(session, prompt.name, prompt.args, { ...turnDeps, runs: runsOf(session) });
        break;
      case 'bang':
        stopReason = await runBangCommand(session, prompt.line, turnDeps);
        break;
      case 'compact':
        stopReason = await runCompactCommand(session, prompt.args, turnDeps);
        break;
      case 'model':
        stopReason = await runTurn(session, prompt.content, turnDeps);
    }
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
