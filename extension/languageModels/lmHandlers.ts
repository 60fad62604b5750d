// Lends the bundled agent the language models VS Code offers (GitHub Copilot
// and any other `vscode.lm` provider) through `_accord/lm/*`
// (protocol/accordMethods.ts). Only the bundled agent gets these handlers and
// the capability: a third-party agent must never spend the person's Copilot
// quota through Accord. VS Code asks the person for consent on first use.
import * as vscode from 'vscode';
import { RequestError, type ClientApp } from '@agentclientprotocol/sdk/unstable';
import type { ZodMiniType } from 'zod/mini';
import {
  LM_CAPABILITY_KEY,
  LM_LIMITS,
  LM_METHODS,
  lmChatParams,
  lmModelInfo,
  type LmChatParams,
  type LmChatResult,
  type LmMessage,
  type LmModelInfo,
  type LmStreamPart,
} from '../../protocol/accordMethods';

/** `clientCapabilities._meta` for the bundled agent when VS Code has the Language Model API. */
export function languageModelsMeta(): Record<string, unknown> {
  return languageModelApiPresent() ? { [LM_CAPABILITY_KEY]: { version: 1 } } : {};
}

export function languageModelApiPresent(): boolean {
  return typeof vscode.lm?.selectChatModels === 'function';
}

/** Every chat model VS Code offers now, in the protocol's shape (names past the limits are left out). */
export async function listLanguageModels(): Promise<LmModelInfo[]> {
  if (!languageModelApiPresent()) return [];
  const models = await vscode.lm.selectChatModels();
  return models
    .map((m) => lmModelInfo.safeParse({ id: m.id, vendor: m.vendor, name: m.name, family: m.family, ...(m.maxInputTokens > 0 ? { maxInputTokens: m.maxInputTokens } : {}) }))
    .flatMap((r) => (r.success ? [r.data] : []))
    .slice(0, LM_LIMITS.models);
}

function parser<T>(schema: ZodMiniType<T>) {
  return (params: unknown): T => {
    const parsed = schema.safeParse(params);
    if (parsed.success) return parsed.data;
    throw RequestError.invalidParams({}, `Invalid params: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ')}`);
  };
}

export function registerLanguageModelHandlers(app: ClientApp, log: (message: string) => void): ClientApp {
  return app
    .onRequest(LM_METHODS.models, (p: unknown) => p, async () => ({ models: await listLanguageModels() }))
    .onRequest(LM_METHODS.chat, parser(lmChatParams), async ({ params, signal, agent }) => {
      const send = (parts: LmStreamPart[]) => agent.notify(LM_METHODS.parts, { streamId: params.streamId, parts });
      return chat(params, send, signal, log);
    });
}

async function chat(params: LmChatParams, send: (parts: LmStreamPart[]) => Promise<void>, signal: AbortSignal, log: (message: string) => void): Promise<LmChatResult> {
  const [model] = await vscode.lm.selectChatModels({ vendor: params.vendor, id: params.model });
  if (!model) throw RequestError.invalidParams({ model: params.model }, vscode.l10n.t('VS Code offers no model "{0}" from {1} now.', params.model, params.vendor));
  const source = new vscode.CancellationTokenSource();
  const cancel = () => source.cancel();
  signal.addEventListener('abort', cancel, { once: true });
  const messages = params.messages.map(toChatMessage);
  let parts = 0;
  let output = '';
  try {
    const response = await model.sendRequest(
      messages,
      {
        justification: vscode.l10n.t('Accord’s agent answers your prompts with this model.'),
        ...(params.tools.length > 0
          ? { tools: params.tools, toolMode: params.toolMode === 'required' ? vscode.LanguageModelChatToolMode.Required : vscode.LanguageModelChatToolMode.Auto }
          : {}),
      },
      source.token,
    );
    for await (const part of response.stream) {
      if (signal.aborted) break;
      let sent: LmStreamPart | undefined;
      if (part instanceof vscode.LanguageModelTextPart) {
        if (part.value) sent = { type: 'text', text: part.value };
        output += part.value;
      } else if (part instanceof vscode.LanguageModelToolCallPart) {
        const input = part.input !== null && typeof part.input === 'object' && !Array.isArray(part.input) ? (part.input as Record<string, unknown>) : { input: part.input };
        sent = { type: 'tool_call', callId: part.callId, name: part.name, input };
        output += JSON.stringify(input);
      }
      if (sent) {
        parts++;
        await send([sent]);
      }
    }
    if (signal.aborted) throw RequestError.requestCancelled();
    return { parts, usage: await estimateUsage(model, messages, params, output), estimated: true };
  } catch (error) {
    if (signal.aborted || error instanceof vscode.CancellationError) throw RequestError.requestCancelled();
    if (error instanceof RequestError) throw error;
    const message = describe(error, model);
    log(`language model request failed: ${message}`);
    throw RequestError.internalError({}, message);
  } finally {
    signal.removeEventListener('abort', cancel);
    source.dispose();
  }
}

function toChatMessage(message: LmMessage): vscode.LanguageModelChatMessage {
  if (message.role === 'user') {
    return vscode.LanguageModelChatMessage.User(message.content.flatMap((part): Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart> => {
      if (part.type === 'text') return [new vscode.LanguageModelTextPart(part.text)];
      if (part.type === 'tool_result') return [new vscode.LanguageModelToolResultPart(part.callId, [new vscode.LanguageModelTextPart(part.isError ? `Error: ${part.text}` : part.text)])];
      return [];
    }));
  }
  return vscode.LanguageModelChatMessage.Assistant(message.content.flatMap((part): Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> => {
    if (part.type === 'text') return [new vscode.LanguageModelTextPart(part.text)];
    if (part.type === 'tool_call') return [new vscode.LanguageModelToolCallPart(part.callId, part.name, part.input)];
    return [];
  }));
}

/**
 * VS Code's API reports no usage, so the model's own tokenizer estimates it
 * (`countTokens`); the agent marks the gauge as an estimate. A provider that
 * cannot count gets a characters/4 guess instead of a failed turn.
 */
async function estimateUsage(model: vscode.LanguageModelChat, messages: vscode.LanguageModelChatMessage[], params: LmChatParams, output: string): Promise<LmChatResult['usage']> {
  const count = async (text: string | vscode.LanguageModelChatMessage, fallback: string) => {
    try {
      const n = await model.countTokens(text);
      return Number.isInteger(n) && n >= 0 ? n : Math.ceil(fallback.length / 4);
    } catch {
      return Math.ceil(fallback.length / 4);
    }
  };
  const inputs = await Promise.all(messages.map((m, i) => count(m, JSON.stringify(params.messages[i]))));
  const toolsText = params.tools.length > 0 ? JSON.stringify(params.tools) : '';
  const inputTokens = inputs.reduce((a, b) => a + b, 0) + (toolsText ? await count(toolsText, toolsText) : 0);
  const outputTokens = output ? await count(output, output) : 0;
  return { inputTokens, outputTokens };
}

function describe(error: unknown, model: vscode.LanguageModelChat): string {
  if (error instanceof vscode.LanguageModelError) {
    if (error.code === vscode.LanguageModelError.NoPermissions.name) {
      return vscode.l10n.t('VS Code did not allow Accord to use {0}. Send your message again and choose "Allow" when VS Code asks, or pick another model.', model.name);
    }
    if (error.code === vscode.LanguageModelError.Blocked.name) return vscode.l10n.t('{0} refused the request for now (quota or rate limit). Try again later, or pick another model.', model.name);
    if (error.code === vscode.LanguageModelError.NotFound.name) return vscode.l10n.t('{0} is no longer available in VS Code. Pick another model.', model.name);
  }
  return vscode.l10n.t('{0} failed: {1}', model.name, error instanceof Error ? error.message.split('\n')[0]! : String(error));
}
