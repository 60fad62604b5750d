// An ai SDK language model (specification v3) whose requests the client
// answers: VS Code's Language Model API (GitHub Copilot and any other
// provider installed there), reached through `_accord/lm/*` (protocol/accordMethods.ts).
// The turn loop uses it like any other provider: streamed text, tool calls,
// cancellation through the abort signal, usage at the end.
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
  SharedV3Warning,
} from '@ai-sdk/provider';
import type { LmChatParams, LmChatResult, LmMessage, LmMessagePart, LmModelInfo, LmStreamPart, LmTool } from '../../protocol/accordMethods';
import { modelRequestSent } from './requestSent';
import { collectStream } from './collectStream';

/** The client's side of `_accord/lm/*`, as the agent core sees it (no protocol types). */
export interface ClientModelHost {
  list(signal?: AbortSignal): Promise<LmModelInfo[]>;
  /** Streams the answer into `onParts`; resolves once every part has been delivered. Rejects when `signal` aborts. */
  chat(params: Omit<LmChatParams, 'streamId'>, onParts: (parts: LmStreamPart[]) => void, signal?: AbortSignal): Promise<LmChatResult>;
}

export const CLIENT_PROVIDER = 'vscode-lm';

export function clientLanguageModel(host: ClientModelHost, vendor: string, model: string): LanguageModelV3 {
  const doStream = async (options: LanguageModelV3CallOptions) => {
    const warnings: SharedV3Warning[] = [];
    const { tools, toolMode } = toolsFor(options, warnings);
    const messages = toMessages(options.prompt, warnings);
    let textOpen = false;
    let toolCalls = 0;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start: (controller) => {
        controller.enqueue({ type: 'stream-start', warnings });
        const onParts = (parts: LmStreamPart[]) => {
          for (const part of parts) {
            if (part.type === 'text') {
              if (!part.text) continue;
              if (!textOpen) controller.enqueue({ type: 'text-start', id: 'text' });
              textOpen = true;
              controller.enqueue({ type: 'text-delta', id: 'text', delta: part.text });
            } else {
              toolCalls++;
              controller.enqueue({ type: 'tool-call', toolCallId: part.callId, toolName: part.name, input: JSON.stringify(part.input) });
            }
          }
        };
        const chat = host.chat({ vendor, model, messages, tools, toolMode }, onParts, options.abortSignal);
        modelRequestSent();
        chat.then(
          (result) => {
            if (textOpen) controller.enqueue({ type: 'text-end', id: 'text' });
            controller.enqueue({
              type: 'finish',
              usage: usageOf(result),
              finishReason: finishReason(toolCalls > 0 ? 'tool-calls' : 'stop'),
              providerMetadata: { [CLIENT_PROVIDER]: { estimatedUsage: result.estimated } },
            });
            controller.close();
          },
          (error: unknown) => {
            controller.enqueue({ type: 'error', error });
            controller.close();
          },
        );
      },
    });
    return { stream };
  };

  return {
    specificationVersion: 'v3',
    provider: CLIENT_PROVIDER,
    modelId: `${vendor}/${model}`,
    // Images and files are sent as text notes: VS Code's API takes text here.
    supportedUrls: {},
    doStream,
    async doGenerate(options) {
      const { stream } = await doStream(options);
      return collectStream(stream, { usage: usageOf(undefined), finishReason: finishReason('other') });
    },
  };
}

function finishReason(unified: LanguageModelV3FinishReason['unified']): LanguageModelV3FinishReason {
  return { unified, raw: unified };
}

function usageOf(result: LmChatResult | undefined): LanguageModelV3Usage {
  const input = result?.usage.inputTokens;
  const output = result?.usage.outputTokens;
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

function toolsFor(options: LanguageModelV3CallOptions, warnings: SharedV3Warning[]): { tools: LmTool[]; toolMode: 'auto' | 'required' } {
  const choice = options.toolChoice ?? { type: 'auto' };
  if (choice.type === 'none') return { tools: [], toolMode: 'auto' };
  let tools: LmTool[] = [];
  for (const tool of options.tools ?? []) {
    if (tool.type !== 'function') {
      warnings.push({ type: 'unsupported', feature: `provider tool ${tool.name}` });
      continue;
    }
    tools.push({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema as Record<string, unknown> });
  }
  if (choice.type === 'tool') tools = tools.filter((t) => t.name === choice.toolName);
  return { tools, toolMode: choice.type === 'auto' || tools.length === 0 ? 'auto' : 'required' };
}

/**
 * VS Code's chat messages have two roles: the system prompt becomes the first
 * user message, and tool results travel in user messages (as VS Code expects).
 */
function toMessages(prompt: LanguageModelV3Prompt, warnings: SharedV3Warning[]): LmMessage[] {
  const messages: LmMessage[] = [];
  const push = (role: LmMessage['role'], content: LmMessagePart[]) => {
    if (content.length === 0) return;
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...content);
    else messages.push({ role, content });
  };
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        push('user', [{ type: 'text', text: message.content }]);
        break;
      case 'user':
        push('user', message.content.map((part): LmMessagePart => {
          if (part.type === 'text') return { type: 'text', text: part.text };
          warnings.push({ type: 'unsupported', feature: `${part.mediaType} attachments` });
          return { type: 'text', text: `[${part.filename ?? 'An attachment'} (${part.mediaType}) was left out: models reached through VS Code take text only.]` };
        }));
        break;
      case 'assistant': {
        const content: LmMessagePart[] = [];
        const results: LmMessagePart[] = [];
        for (const part of message.content) {
          if (part.type === 'text' && part.text) content.push({ type: 'text', text: part.text });
          else if (part.type === 'tool-call') content.push({ type: 'tool_call', callId: part.toolCallId, name: part.toolName, input: inputObject(part.input) });
          else if (part.type === 'tool-result') results.push({ type: 'tool_result', callId: part.toolCallId, ...resultText(part.output) });
        }
        push('assistant', content);
        push('user', results);
        break;
      }
      case 'tool':
        push('user', message.content.flatMap((part): LmMessagePart[] =>
          part.type === 'tool-result' ? [{ type: 'tool_result', callId: part.toolCallId, ...resultText(part.output) }] : []));
        break;
    }
  }
  return messages;
}

function inputObject(input: unknown): Record<string, unknown> {
  if (typeof input === 'string') {
    try {
      return inputObject(JSON.parse(input));
    } catch {
      return { input };
    }
  }
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : { input };
}

function resultText(output: LanguageModelV3ToolResultOutput): { text: string; isError?: boolean } {
  switch (output.type) {
    case 'text':
      return { text: output.value };
    case 'json':
      return { text: JSON.stringify(output.value) };
    case 'error-text':
      return { text: output.value, isError: true };
    case 'error-json':
      return { text: JSON.stringify(output.value), isError: true };
    case 'execution-denied':
      return { text: `The person declined this call${output.reason ? `: ${output.reason}` : '.'}`, isError: true };
    case 'content':
      return { text: output.value.map((part) => (part.type === 'text' ? part.text : `[${part.type} left out]`)).join('\n') };
  }
}
