// Draws the panel session's turns as running, then ended, whoever starts
// them: a prompt from the panel, the answer to a durable approval (its
// continuation is a turn of its own), or a turn the agent runs for another
// client. No vscode here: the panel's turn states are unit-tested.
import { methods, type PromptRequest } from '@agentclientprotocol/sdk/unstable';
import type { AgentHost } from '../agents/agentHost';
import type { HostMessage, StopReason } from '../../webview/protocol';
import { durableAnswerMeta } from '../approvals/durableAnswers';
import type { CurrentSession, TurnHooks, TurnOutcome } from './sessionTypes';

type Connection = NonNullable<AgentHost['connection']>;

export interface PanelTurnsDeps {
  /** To the chat panel. */
  post(message: HostMessage): void;
  /** The session the panel shows. */
  current(): CurrentSession | undefined;
  turns?: TurnHooks;
  onTurnEnded(session: CurrentSession, stopReason: StopReason, error?: string): void;
  /** The agent did not take the answer to a durable approval (a notification). */
  answerRefused(host: AgentHost, error: unknown): void;
}

/** An answer sent while its session still ran a turn: the agent runs it once that turn has ended. */
interface QueuedAnswer {
  response: Promise<{ stopReason: StopReason }>;
  done(outcome: TurnOutcome | undefined): void;
}

export class PanelTurns {
  /** How the last turn ended (tests and notifications read it). */
  lastOutcome: TurnOutcome | undefined;
  /** The panel's session is running a turn this window did not send (its end comes as a notification). */
  private remoteTurn: string | undefined;
  /** The turn the agent's exit ended, to show again once the reloaded session has replaced the panel's transcript. */
  private lostTurn: { sessionId: string; error: string } | undefined;
  /** By session id, in the order they were sent. */
  private readonly queued = new Map<string, QueuedAnswer[]>();

  constructor(private readonly deps: PanelTurnsDeps) {}

  /**
   * Runs one turn of the panel's session: drawn as running until `body` says
   * how it ended. `failure` turns an error into the words the panel shows.
   */
  async run(session: CurrentSession, connection: Connection, body: () => Promise<StopReason>, failure: (error: unknown, reason: string) => string): Promise<TurnOutcome | undefined> {
    session.turnInFlight = true;
    this.lostTurn = undefined;
    this.deps.post({ type: 'turnStarted', epoch: session.epoch });
    try {
      const stopReason = await body();
      await this.deps.turns?.end(session);
      return this.end(session, stopReason);
    } catch (error) {
      await this.deps.turns?.end(session).catch(() => undefined);
      if (!session.turnInFlight) return this.lastOutcome; // already ended: the agent exited mid-turn
      const reason = error instanceof Error ? error.message : String(error);
      if (connection.signal.aborted || !session.host.connection) return this.lose(session, `${session.host.name} stopped during the turn; the turn was lost (${reason}).`);
      return this.end(session, 'error', failure(error, reason));
    }
  }

  /**
   * The person answered a durable approval (its turn ended `waiting`): the
   * answer goes on the session's next prompt. In the panel's session it is a
   * turn like any other (running, then its stop reason); in another session
   * it is sent without one. Answered before the asking turn's `waiting`
   * arrived, it is sent at once (the agent queues it behind that turn) and
   * drawn as running once that turn has ended.
   */
  async answerDurable(host: AgentHost, sessionId: string, requestId: string, optionId: string): Promise<TurnOutcome | undefined> {
    const connection = host.connection;
    const params: PromptRequest = { sessionId, prompt: [], _meta: durableAnswerMeta(requestId, optionId) };
    const refused = (error: unknown) => this.deps.answerRefused(host, error);
    if (!connection) return void refused(new Error(`${host.name} is not running; the approval stays pending and is asked again when it is.`));
    const session = this.deps.current();
    if (session?.host !== host || session.sessionId !== sessionId) {
      await connection.agent.request(methods.agent.session.prompt, params).catch(refused);
      return;
    }
    const send = () => connection.agent.request(methods.agent.session.prompt, params);
    if (session.turnInFlight) return this.queueBehind(session, send());
    return this.followAnswer(session, connection, send());
  }

  private followAnswer(session: CurrentSession, connection: Connection, response: Promise<{ stopReason: StopReason }>): Promise<TurnOutcome | undefined> {
    return this.run(
      session,
      connection,
      async () => {
        await this.deps.turns?.resume?.(session);
        return (await response).stopReason;
      },
      (error, reason) => {
        this.deps.answerRefused(session.host, error);
        return `The answer to the approval was not taken: ${reason}`;
      },
    );
  }

  private queueBehind(session: CurrentSession, response: Promise<{ stopReason: StopReason }>): Promise<TurnOutcome | undefined> {
    // Handled when its turn is drawn; until then a refusal must not surface as an unhandled rejection.
    response.catch(() => undefined);
    return new Promise((done) => {
      const list = this.queued.get(session.sessionId) ?? [];
      list.push({ response, done });
      this.queued.set(session.sessionId, list);
    });
  }

  /** The turn before it ended: the agent now runs the next queued answer, drawn as the panel's running turn. */
  private startQueued(session: CurrentSession): void {
    const list = this.queued.get(session.sessionId);
    const next = list?.shift();
    if (list?.length === 0) this.queued.delete(session.sessionId);
    if (!next) return;
    const connection = session.host.connection;
    if (this.deps.current() !== session || !connection || connection.signal.aborted) {
      // The panel moved on (or the agent went): the answer still runs, or is asked again later, without a turn drawn.
      next.response.then(() => next.done(undefined), (error: unknown) => {
        if (connection && !connection.signal.aborted) this.deps.answerRefused(session.host, error);
        next.done(undefined);
      });
      return;
    }
    void this.followAnswer(session, connection, next.response).then(next.done);
  }

  /** Another client (or this window before a reload) runs a turn in the panel's session. */
  remoteStarted(host: AgentHost, sessionId: string): void {
    const session = this.deps.current();
    if (session?.host !== host || session.sessionId !== sessionId || session.turnInFlight) return;
    session.turnInFlight = true;
    this.remoteTurn = sessionId;
    this.deps.post({ type: 'turnStarted', epoch: session.epoch });
  }

  /** That turn ended (the agent's `_accord/turn_ended`). */
  remoteEnded(host: AgentHost, sessionId: string, stopReason: StopReason): void {
    const session = this.deps.current();
    if (session?.host !== host || session.sessionId !== sessionId || this.remoteTurn !== sessionId) return;
    this.remoteTurn = undefined;
    void this.deps.turns?.end(session);
    this.end(session, stopReason);
  }

  /** The panel shows another session: a remote turn of the last one is no longer drawn. */
  sessionChanged(): void {
    this.remoteTurn = undefined;
  }

  /** The agent stopped mid-turn: the turn ends as lost (and is said again after a reload, see `takeLost`). */
  lose(session: CurrentSession, error: string): TurnOutcome {
    this.lostTurn = { sessionId: session.sessionId, error };
    // Answers queued behind it died with the agent; the approval is asked again once it is back.
    this.queued.get(session.sessionId)?.forEach((answer) => answer.done(undefined));
    this.queued.delete(session.sessionId);
    return this.end(session, 'error', error);
  }

  /** The turn the agent's exit ended in `sessionId`, once. */
  takeLost(sessionId: string): { sessionId: string; error: string } | undefined {
    const lost = this.lostTurn?.sessionId === sessionId ? this.lostTurn : undefined;
    this.lostTurn = undefined;
    return lost;
  }

  end(session: CurrentSession, stopReason: StopReason, error?: string): TurnOutcome {
    session.turnInFlight = false;
    const outcome: TurnOutcome = { sessionId: session.sessionId, stopReason, ...(error ? { error } : {}) };
    this.lastOutcome = outcome;
    this.deps.post({ type: 'turnEnded', epoch: session.epoch, stopReason, ...(error ? { error: error.slice(0, 4000) } : {}) });
    this.deps.onTurnEnded(session, stopReason, error);
    this.startQueued(session);
    return outcome;
  }
}
