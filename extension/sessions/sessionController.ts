// The panel's session: new, load (replay rendered once), prompt, cancel and
// config options, over whichever agent the session belongs to. This part
// runs turns: a prompt, the answer to a durable approval, a Stop, the agent
// exiting mid-turn. One turn at a time per session (ACP v1 leaves concurrent
// prompts undefined).
import * as vscode from 'vscode';
import { methods } from '@agentclientprotocol/sdk/unstable';
import type { AgentHost } from '../agents/agentHost';
import type { StopReason, WebviewMessageOf } from '../../webview/protocol';
import { promptBlocks } from './promptBlocks';
import { SessionOpening } from './sessionOpening';
import type { TurnOutcome } from './sessionTypes';

export type { CurrentSession, SessionControllerDeps, TurnHooks, TurnOutcome } from './sessionTypes';

export class SessionController extends SessionOpening {
  /** The first prompt of a session being created for it. */
  private startingPrompt: { cancelled: boolean } | undefined;

  /** Another client (or this window before a reload) runs a turn in the panel's session. */
  remoteTurnStarted(host: AgentHost, sessionId: string): void {
    this.turns.remoteStarted(host, sessionId);
  }

  /** That turn ended (the agent's `_accord/turn_ended`). */
  remoteTurnEnded(host: AgentHost, sessionId: string, stopReason: StopReason): void {
    this.turns.remoteEnded(host, sessionId, stopReason);
  }

  /** Runs one turn; resolves with how it ended (undefined when no turn started). */
  async prompt(host: AgentHost, message: WebviewMessageOf<'sendPrompt'>): Promise<TurnOutcome | undefined> {
    let session = this.currentValue;
    if (session && session.epoch !== message.epoch) return; // typed into a session the panel no longer shows
    if (!session || session.host !== host) {
      // The panel already shows "Working…" and Stop: a Stop while the session starts keeps the prompt from being sent.
      const waiting = { cancelled: false };
      this.startingPrompt = waiting;
      try {
        session = await this.newSession(host);
      } finally {
        if (this.startingPrompt === waiting) this.startingPrompt = undefined;
      }
      if (!session) return this.notSent('error', vscode.l10n.t('The prompt was not sent: {0} has no session.', host.name));
      if (waiting.cancelled) return this.notSent('cancelled');
    }
    if (session.turnInFlight) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Accord is still working on the previous prompt. Cancel it (Escape) or wait.'));
      return;
    }
    const connection = session.host.connection;
    if (!connection) return this.turns.end(session, 'error', `${session.host.name} is not running.`);
    // The panel drew the prompt itself and the agent's echo is not relayed; a rebuilt panel needs it from the journal.
    const own = (content: Record<string, unknown>) =>
      this.recordEmitter.fire({ type: 'sessionUpdate', epoch: session.epoch, sessionId: session.sessionId, update: { sessionUpdate: 'user_message_chunk', content } });
    own({ type: 'text', text: message.text });
    for (const m of message.mentions) {
      const uri = vscode.Uri.file(m.path);
      own({ type: 'resource_link', uri: (m.range ? uri.with({ fragment: `L${m.range.startLine}-L${m.range.endLine}` }) : uri).toString(), name: m.name });
    }
    const shown = session;
    return this.turns.run(
      shown,
      connection,
      async () => {
        const note = await this.deps.turns?.begin(shown);
        const prompt = [...(note ? [{ type: 'text' as const, text: note }] : []), ...promptBlocks(shown, message)];
        return (await connection.agent.request(methods.agent.session.prompt, { sessionId: shown.sessionId, prompt })).stopReason;
      },
      (error, reason) => {
        this.fail(shown.host, 'session/prompt', error);
        return `The turn ended with an error: ${reason}`;
      },
    );
  }

  /** The person answered a durable approval: see PanelTurns.answerDurable. */
  answerDurable(host: AgentHost, sessionId: string, requestId: string, optionId: string): Promise<TurnOutcome | undefined> {
    return this.turns.answerDurable(host, sessionId, requestId, optionId);
  }

  /** Cancels the current turn: pending approvals answer `cancelled`, then `session/cancel`. */
  async cancelTurn(): Promise<void> {
    if (this.startingPrompt) this.startingPrompt.cancelled = true;
    const session = this.currentValue;
    if (!session?.turnInFlight) return;
    this.deps.approvals.cancelSession(session.sessionId);
    await session.host.connection?.agent.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
  }

  /** The agent process died: end the turn with a clear error; after a restart, reload the session if the agent can. */
  agentExited(host: AgentHost, message: string): void {
    if (this.viewHostValue === host) {
      this.lastFailure = { agentName: host.name.slice(0, 200), stage: 'exit', message: message.slice(0, 4000) };
      this.post({ type: 'agentFailure', failure: this.lastFailure });
    }
    const session = this.currentValue;
    if (session?.host !== host) return;
    this.deps.approvals.cancelSession(session.sessionId);
    if (session.turnInFlight) this.turns.lose(session, `${message} The turn was lost.`);
  }

  /** The panel showed a prompt as running that never reached the agent: end it there, saying why. */
  private notSent(stopReason: 'error' | 'cancelled', error?: string): undefined {
    this.post({ type: 'turnEnded', epoch: this.epochValue, stopReason, ...(error ? { error: error.slice(0, 4000) } : {}) });
    return undefined;
  }

}
