// A new session's first turn need not wait for its isolated copy. session/new
// starts the session's log and the copy in the background; a model turn
// starts once the log has started and the copy's root and policy are known
// (the first request names the root; the policy says whether MCP tools must
// be in it). Only what runs in the copy waits for it: a tool call (turn.ts
// `untilReady`), a `!` line, a declared run, an approval's answer, the
// review methods. A copy that fails fails those with its reason and never
// falls back to the person's tree; session/cancel ends any of these waits.
// The other way round, a prompt that arrives while the copy is prepared
// holds the copy (and the sandbox's start) at its plan while its first model
// request is built and its model's first words stream in: their ~20 children
// would otherwise fork the agent then. The copy goes on as soon as the model
// leaves the agent idle, or at the latest 250 ms after the request
// (copyPacing.ts), or at once when the prompt needs it (holdCopy).
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import type { Session } from '../core/session';
import type { TurnDeps, WorkspaceDeps } from '../core/turn';
import type { LoadedPolicy } from '../policy/load';
import type { IsolatedSession, WorkspacePlan } from '../session/isolatedSession';
import type { SessionWorkspaces } from '../session/workspaces';
import type { SessionPersistence } from './sessionPersistence';
import type { SessionFlags } from './sharing';
import { SessionSetupError, setupFailure, untilReadyOr, workspaceFor } from './workspaceReady';
import { afterNextModelRequest } from '../models/requestSent';
import { defaultCopyPacing, QuietWatch } from './copyPacing';

export class EarlyStarts {
  /** Prompts waiting for their session's workspace; session/cancel ends the wait. */
  private readonly waiting = new WeakMap<Session, AbortController>();
  /** The log of a session created here, started in the background at session/new; a prompt waits for it. */
  private readonly logStarts = new WeakMap<Session, Promise<void>>();
  /** The project's policy of a session whose copy is still being made. */
  private readonly plannedPolicies = new WeakMap<Session, LoadedPolicy>();
  /** Sessions this connection created with a workspace of their own. */
  private readonly madeIsolated = new WeakSet<Session>();
  /** A prompt's hold on its session's copy (holdCopy): released once its model leaves the agent time (copyPacing.ts), or it needs the copy, or it ends. */
  private readonly holds = new WeakMap<Session, () => void>();

  constructor(
    private readonly isolation: SessionWorkspaces,
    private readonly persistence: SessionPersistence | undefined,
  ) {}

  /**
   * session/new's background work, from `after` on (once its answer is
   * out): the log first (a prompt may arrive before the copy), then the
   * copy, which the log names once made. Returns the copy's making (it
   * rejects with the reason it could not be made).
   */
  prepare(session: Session, inPlace: boolean, flags: SessionFlags, after: Promise<void>): Promise<IsolatedSession> {
    this.madeIsolated.add(session);
    const logStarted = after.then(() => this.persistence?.sessionCreated(session, { preparing: true, inPlace }, flags)).catch((error: unknown) => {
      throw new SessionSetupError(`Could not start the session's log: ${error instanceof Error ? error.message : String(error)}`);
    });
    logStarted.catch(() => undefined);
    this.logStarts.set(session, logStarted);
    const prepared = this.isolation.prepare(session.id, session.cwd, inPlace, flags.alwaysApprove, async (isolated) => {
      session.workIn(isolated.workspace.root);
      await logStarted;
      await this.persistence?.workspaceMade(session, isolated.workspace).catch((error: unknown) => {
        throw new SessionSetupError(`Could not record the session's workspace in its log: ${error instanceof Error ? error.message : String(error)}`);
      });
    }, logStarted); // after the log: a close meanwhile then finds it to close
    void this.isolation.plan(session.id).then((plan) => plan && this.planned(session, plan), () => undefined);
    return prepared;
  }

  /**
   * A prompt arrived while its session's copy is being prepared: the copy's
   * children (git, the sandbox's start) wait while this prompt's first model
   * request is built and sent and its model's first words come in, so they
   * do not fork the agent then. Released when the model leaves the agent
   * idle for a moment, or a while after the request at the latest (see
   * copyPacing.ts), by anything of the prompt that needs the copy
   * (beforePrompt's wait, a tool call's untilReady), or by `releaseCopy`
   * once the prompt's answer is out (app.ts), whichever comes first.
   */
  holdCopy(session: Session): void {
    if (!this.madeIsolated.has(session) || !this.isolation.isPreparing(session.id) || this.holds.has(session)) return;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const watch = new QuietWatch(this.isolation.settings.copyPacing ?? defaultCopyPacing, () => this.releaseCopy(session));
    const stopListening = afterNextModelRequest(() => watch.requestSent());
    // The record phase: a synchronous listener there costs the stream no promise (emitter.ts).
    const stopHearing = session.updates.subscribe(() => watch.said(), { phase: 'record' });
    this.holds.set(session, () => {
      stopListening();
      stopHearing();
      watch.stop();
      release();
    });
    this.isolation.holdUntil(session.id, released);
  }

  /** Ends the session's hold on its copy (see holdCopy); nothing if there is none. */
  releaseCopy(session: Session): void {
    const release = this.holds.get(session);
    this.holds.delete(session);
    release?.();
  }

  /**
   * Before a prompt runs: "run" once it may (a model turn early; anything
   * else once the whole workspace is ready), "cancelled" on session/cancel.
   * Throws the setup failure, or session-not-found for a copy closed meanwhile.
   */
  async beforePrompt(session: Session, isModelTurn: () => boolean): Promise<'run' | 'cancelled'> {
    const wait = new AbortController();
    this.waiting.set(session, wait);
    try {
      const early = this.madeIsolated.has(session) && !this.isolation.isReady(session.id) ? await this.earlyStart(session, isModelTurn, wait.signal) : 'wait';
      if (early !== 'wait') return early;
      this.releaseCopy(session); // it waits for the copy: the copy must not wait for it
      const ready = await workspaceFor(this.isolation, session.id, wait.signal);
      if (ready === 'cancelled') return 'cancelled';
      // Made for a copy that is gone (closed meanwhile): never run in the person's tree instead.
      if (!ready && this.madeIsolated.has(session)) throw RequestError.sessionNotFound(session.id);
      return 'run';
    } finally {
      this.waiting.delete(session);
    }
  }

  /** session/cancel: a prompt waiting for the workspace ends. */
  cancel(session: Session): void {
    this.waiting.get(session)?.abort();
  }

  /** The policy of the session's workspace, or the one its copy is being made under. */
  policyOf(session: Session): LoadedPolicy | undefined {
    return this.isolation.get(session.id)?.policy ?? this.plannedPolicies.get(session);
  }

  /**
   * A session whose copy is still being made: its calls wait for `ready`
   * (what they run through then), and until then would be refused.
   */
  notReadyDeps(session: Session, ready: () => WorkspaceDeps): Pick<TurnDeps, 'gate' | 'commands' | 'untilReady'> | undefined {
    if (this.isolation.isReady(session.id) || !this.madeIsolated.has(session)) return undefined;
    return {
      ...refused(session),
      untilReady: async () => {
        this.releaseCopy(session);
        const made = await this.isolation.ready(session.id).catch((error: unknown) => {
          throw new Error(setupFailure(session.id, error).message);
        });
        if (!made) throw new Error(`Session ${session.id} was closed while its workspace was being prepared.`);
        return ready();
      },
    };
  }

  private async earlyStart(session: Session, isModelTurn: () => boolean, signal: AbortSignal): Promise<'run' | 'wait' | 'cancelled'> {
    const plan = await untilReadyOr(this.isolation.plan(session.id), session.id, signal);
    if (plan === 'cancelled') return 'cancelled';
    if (!plan) throw RequestError.sessionNotFound(session.id);
    this.planned(session, plan);
    // MCP servers' tools are part of the first request: such a policy waits for them.
    const declaresMcp = plan.policy.status !== 'invalid' && plan.policy.policy.mcpServers.length > 0;
    if (declaresMcp || !isModelTurn()) return 'wait';
    const logged = await untilReadyOr(this.logStarts.get(session) ?? Promise.resolve(), session.id, signal);
    return logged === 'cancelled' ? 'cancelled' : 'run';
  }

  /** The first request names the root; "/" finds the declared runs. */
  private planned(session: Session, plan: WorkspacePlan): void {
    if (this.isolation.isReady(session.id)) return;
    session.workIn(plan.root);
    this.plannedPolicies.set(session, plan.policy);
  }
}

/** What calls would run through before the copy exists: they never do (turn.ts waits first); anything that tried is refused. */
function refused(session: Session): Pick<TurnDeps, 'gate' | 'commands'> {
  const refusal = `Session ${session.id}: its workspace is not ready yet.`;
  return {
    gate: { decide: () => 'deny', why: () => refusal },
    commands: {
      run: async () => {
        throw new Error(refusal);
      },
    },
  };
}
