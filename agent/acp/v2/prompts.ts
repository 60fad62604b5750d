// A v2 prompt, answered once it is in the conversation. The facade sends the
// v1 prompt with `_meta["accord/promptStarted"]` = a token; the app answers
// `_accord/prompt_started` once it has recorded the prompt (in log order:
// after the updates recorded before it, before its title and turn). Then the
// user_message goes out as `user-<offset of the record>`, the id a replay and
// the other clients of a shared session give it, and the prompt request is
// answered with that id. The v1 answer becomes the idle state_update, queued
// as it is read (InnerLink.requestSettled) so the next prompt's echo cannot
// overtake it. A prompt that never started is answered too: refused, with
// the request's error and nothing sent; cancelled (queued, or waiting for its
// workspace), with a live id, its echo and an idle `cancelled`.
import { randomUUID } from 'node:crypto';
import * as v1 from '@agentclientprotocol/sdk/unstable';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { PROMPT_STARTED_META } from '../../../protocol/accordMethods';
import type { InnerLink } from './innerLink';
import type { SessionV2View, V2Update } from './view';

type Json = Record<string, unknown>;
type Failure = { code?: number; message?: string; data?: unknown };
type Answer = { messageId: string } | { error: v2.RequestError };

/** A prompt sent to the v1 app and not yet in the conversation. */
interface Starting {
  sessionId: string;
  prompt: unknown[];
  view: SessionV2View;
  /** Set synchronously once inserted: the id its user_message went out with. */
  messageId?: string;
  answer(result: Answer): void;
}

export interface PromptDeps {
  /** The facade's one outgoing queue. */
  send(sessionId: string, updates: V2Update[]): Promise<void>;
  state(sessionId: string, value: Json): Promise<void>;
  inner(): InnerLink;
}

export class V2Prompts {
  private readonly starting = new Map<string, Starting>();

  constructor(private readonly deps: PromptDeps) {}

  /** session/prompt for a session whose view is `view`. */
  async prompt(view: SessionV2View, params: { sessionId: string; prompt: unknown[]; _meta?: Json | null }): Promise<{ messageId: string }> {
    const { sessionId, prompt } = params;
    const token = randomUUID();
    let answer!: (result: Answer) => void;
    const answered = new Promise<Answer>((resolve) => (answer = resolve));
    const waiting: Starting = { sessionId, prompt, view, answer };
    this.starting.set(token, waiting);
    this.deps.inner().requestSettled<v1.PromptResponse>(
      v1.methods.agent.session.prompt,
      { sessionId, prompt, _meta: { ...(params._meta ?? {}), [PROMPT_STARTED_META]: token } },
      (outcome) => {
        this.starting.delete(token);
        if (waiting.messageId !== undefined) {
          void ('answer' in outcome ? this.idle(sessionId, outcome.answer) : this.deps.state(sessionId, { state: 'idle', stopReason: 'error', error: errorData(outcome.error) })).catch(() => undefined);
          return;
        }
        if ('error' in outcome) return answer({ error: asRequestError(outcome.error) });
        // Never in the log: a live id.
        const messageId = view.liveMessageId('user');
        waiting.messageId = messageId;
        const echoed = this.deps.send(sessionId, view.userMessage(messageId, prompt));
        void Promise.allSettled([echoed, this.idle(sessionId, outcome.answer)]).then(() => answer({ messageId }));
      },
    );
    const result = await answered;
    if ('error' in result) throw result.error;
    return result;
  }

  /** `_accord/prompt_started` from the v1 app: the prompt is recorded at `offset` (absent without a log). */
  async started(params: unknown): Promise<void> {
    const { token, offset } = (params ?? {}) as { token?: unknown; offset?: unknown };
    const waiting = typeof token === 'string' ? this.starting.get(token) : undefined;
    if (!waiting || waiting.messageId !== undefined) return;
    const { sessionId, view } = waiting;
    const messageId = typeof offset === 'number' ? `user-${offset}` : view.liveMessageId('user');
    waiting.messageId = messageId;
    const echoed = this.deps.send(sessionId, view.userMessage(messageId, waiting.prompt));
    const running = this.deps.state(sessionId, { state: 'running' });
    // Answered once the client has the echo (it may have gone meanwhile: the answer then goes nowhere).
    await Promise.allSettled([echoed, running]);
    waiting.answer({ messageId });
  }

  private idle(sessionId: string, answer: v1.PromptResponse): Promise<void> {
    return this.deps.state(sessionId, { state: 'idle', ...stopReasonV2(answer.stopReason), ...(answer._meta ? { _meta: answer._meta } : {}) });
  }
}

/** v1's stop reasons are v2's; Accord's `waiting` (a durable approval pending) is an extension value. */
export function stopReasonV2(reason: string): Json {
  return ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled'].includes(reason) ? { stopReason: reason } : { stopReason: `_accord_${reason}` };
}

function errorData(error: Failure): Json {
  return { code: error.code ?? -32603, message: error.message ?? String(error), ...(error.data !== undefined ? { data: error.data } : {}) };
}

function asRequestError(error: Failure): v2.RequestError {
  return new v2.RequestError(error.code ?? -32603, error.message ?? String(error), error.data);
}
