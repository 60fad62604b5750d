// The `_accord/lm/*` extension methods: the client (Accord in VS Code) lends
// the agent the language models VS Code offers (`vscode.lm`, e.g. GitHub
// Copilot), which only the editor's process can call. Shared by the agent
// (acp/clientModels.ts) and the extension (extension/languageModels/), so both
// sides validate the same shapes.
//
//   agent → client  `_accord/lm/models` {}            → { models: LmModelInfo[] }
//   agent → client  `_accord/lm/chat`   LmChatParams  → LmChatResult
//   client → agent  `_accord/lm/parts`  { streamId, parts }   (zero or more, before the chat result)
//
// Cancelling `_accord/lm/chat` (`$/cancel_request`) cancels VS Code's request.
// The chat result counts the parts sent, so the agent never finishes a
// response before every part has arrived.
import { z } from 'zod';

/** `clientCapabilities._meta` key a client sets when it serves these methods. */
export const LM_CAPABILITY_KEY = 'accord/languageModels';

export const LM_METHODS = {
  models: '_accord/lm/models',
  chat: '_accord/lm/chat',
  parts: '_accord/lm/parts',
} as const;

/** Bounds that keep a confused or hostile peer from making the other side allocate without limit. */
export const LM_LIMITS = {
  models: 200,
  name: 200,
  messages: 5000,
  partsPerNotification: 1000,
  text: 4 * 1024 * 1024,
  tools: 256,
} as const;

const name = z.string().min(1).max(LM_LIMITS.name);
const text = z.string().max(LM_LIMITS.text);
const jsonObject = z.record(z.string(), z.unknown());

export const lmModelInfo = z.object({
  /** VS Code's model id (`LanguageModelChat.id`). */
  id: name,
  vendor: name,
  name: name,
  family: z.string().max(LM_LIMITS.name),
  /** Prompt tokens the model accepts: the context gauge's size. */
  maxInputTokens: z.number().int().positive().optional(),
});
export type LmModelInfo = z.infer<typeof lmModelInfo>;

export const lmModelsResult = z.object({ models: z.array(lmModelInfo).max(LM_LIMITS.models) });
export type LmModelsResult = z.infer<typeof lmModelsResult>;

export const lmMessagePart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text }),
  z.object({ type: z.literal('tool_call'), callId: name, name, input: jsonObject }),
  z.object({ type: z.literal('tool_result'), callId: name, text, isError: z.boolean().optional() }),
]);
export type LmMessagePart = z.infer<typeof lmMessagePart>;

export const lmMessage = z.object({ role: z.enum(['user', 'assistant']), content: z.array(lmMessagePart) });
export type LmMessage = z.infer<typeof lmMessage>;

export const lmTool = z.object({ name, description: z.string().max(64 * 1024), inputSchema: jsonObject });
export type LmTool = z.infer<typeof lmTool>;

export const lmChatParams = z.object({
  /** Chosen by the agent; tags the `_accord/lm/parts` notifications of this request. */
  streamId: name,
  vendor: name,
  model: name,
  messages: z.array(lmMessage).min(1).max(LM_LIMITS.messages),
  tools: z.array(lmTool).max(LM_LIMITS.tools),
  /** `required`: the model must call a tool (VS Code's LanguageModelChatToolMode.Required). */
  toolMode: z.enum(['auto', 'required']),
});
export type LmChatParams = z.infer<typeof lmChatParams>;

/** What the model streams back. */
export const lmStreamPart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text }),
  z.object({ type: z.literal('tool_call'), callId: name, name, input: jsonObject }),
]);
export type LmStreamPart = z.infer<typeof lmStreamPart>;

export const lmPartsNotification = z.object({ streamId: name, parts: z.array(lmStreamPart).min(1).max(LM_LIMITS.partsPerNotification) });
export type LmPartsNotification = z.infer<typeof lmPartsNotification>;

export const lmChatResult = z.object({
  /** How many parts the client sent for this request, over all its notifications. */
  parts: z.number().int().nonnegative(),
  usage: z.object({ inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() }),
  /** True when the counts are the client's estimate (VS Code's API reports no usage; `countTokens` estimates it). */
  estimated: z.boolean(),
});
export type LmChatResult = z.infer<typeof lmChatResult>;

/** True when the client's `initialize` capabilities say it serves `_accord/lm/*`. */
export function offersLanguageModels(meta: unknown): boolean {
  if (meta === null || typeof meta !== 'object') return false;
  const value = (meta as Record<string, unknown>)[LM_CAPABILITY_KEY];
  return value !== undefined && value !== null && value !== false;
}
