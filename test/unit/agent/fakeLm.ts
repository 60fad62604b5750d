// The editor's language models as a test client lends them (`_accord/lm/*`),
// served from a script the way extension/languageModels serves them from
// vscode.lm. Shared by the v1 (clientModels) and v2 (v2LanguageModels) tests;
// each wires the handlers into its own client app.
import type { LmChatParams, LmModelInfo, LmStreamPart } from '../../../protocol/accordMethods';
import { LM_METHODS } from '../../../protocol/accordMethods';

export type Step = (io: { send(parts: LmStreamPart[]): Promise<void>; signal: AbortSignal }) => Promise<void>;

export interface FakeLm {
  models: LmModelInfo[];
  requests: LmChatParams[];
  listed: number;
  script: Step[];
  aborted: number;
  /** Replaces the whole answer of the next chat (a broken or hostile client). */
  rawAnswer?: unknown;
  /** Set once the client's connection exists: the agent side it notifies parts to. */
  notifyAgent?: (method: string, params: unknown) => Promise<void>;
}

export const copilot: LmModelInfo[] = [
  { id: 'gpt-4o', vendor: 'copilot', name: 'GPT-4o', family: 'gpt-4o', maxInputTokens: 64_000 },
  { id: 'claude-sonnet-4', vendor: 'copilot', name: 'Claude Sonnet 4', family: 'claude-sonnet-4', maxInputTokens: 80_000 },
];

export const fakeLm = (): FakeLm => ({ models: copilot, requests: [], listed: 0, script: [], aborted: 0 });

/** `_accord/lm/models`: the scripted list. */
export const lmModels = (fake: FakeLm) => () => {
  fake.listed++;
  return { models: fake.models };
};

// Either SDK version's request context: the agent side is only notified.
type AgentSide = { notify(method: any, params: any): Promise<unknown> };

/** `_accord/lm/chat`: the next scripted step, its parts streamed as `_accord/lm/parts`, then estimated usage. */
export const lmChat = (fake: FakeLm) => async ({ params, signal, agent }: { params: LmChatParams; signal: AbortSignal; agent: AgentSide }) => {
  fake.requests.push(params);
  fake.notifyAgent = async (method, p) => void (await agent.notify(method, p));
  if (fake.rawAnswer !== undefined) return fake.rawAnswer;
  const step = fake.script.shift() ?? (async (io) => io.send([{ type: 'text', text: '(unscripted)' }]));
  let parts = 0;
  signal.addEventListener('abort', () => fake.aborted++, { once: true });
  await step({
    send: async (sent) => {
      parts += sent.length;
      await agent.notify(LM_METHODS.parts, { streamId: params.streamId, parts: sent });
    },
    signal,
  });
  return { parts, usage: { inputTokens: 900, outputTokens: 40 }, estimated: true };
};
