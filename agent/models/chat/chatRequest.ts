// The body of a chat completions request for a V3 call, field for field what
// @ai-sdk/openai-compatible's chat model sends (test/unit/models/leanChat*
// compares the two), for the calls the lean model takes (chatModel.ts
// `leanCovers`): no provider options of its own, no response format.
import {
  UnsupportedFunctionalityError,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Prompt,
  type SharedV3ProviderOptions,
  type SharedV3Warning,
} from '@ai-sdk/provider';
import { convertBase64ToUint8Array, convertToBase64, secureJsonParse, stringifyWithBigIntAndCycles } from '@ai-sdk/provider-utils';

type Json = Record<string, unknown>;

export function chatRequestBody(modelId: string, options: LanguageModelV3CallOptions, includeUsage: boolean): { body: Json; warnings: SharedV3Warning[] } {
  const warnings: SharedV3Warning[] = [];
  if (options.topK != null) warnings.push({ type: 'unsupported', feature: 'topK' });
  const { tools, toolChoice } = chatTools(options, warnings);
  const body: Json = {
    model: modelId,
    user: undefined,
    max_tokens: options.maxOutputTokens,
    temperature: options.temperature,
    top_p: options.topP,
    frequency_penalty: options.frequencyPenalty,
    presence_penalty: options.presencePenalty,
    response_format: undefined,
    stop: options.stopSequences,
    seed: options.seed,
    verbosity: undefined,
    messages: chatMessages(options.prompt),
    tools,
    tool_choice: toolChoice,
    stream: true,
    stream_options: includeUsage ? { include_usage: true } : undefined,
  };
  return { body, warnings };
}

function chatTools(options: LanguageModelV3CallOptions, warnings: SharedV3Warning[]): { tools: Json[] | undefined; toolChoice: unknown } {
  if (!options.tools?.length) return { tools: undefined, toolChoice: undefined };
  const tools: Json[] = [];
  for (const tool of options.tools) {
    if (tool.type === 'provider') {
      warnings.push({ type: 'unsupported', feature: `provider-defined tool ${tool.id}` });
      continue;
    }
    tools.push({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema, ...(tool.strict != null ? { strict: tool.strict } : {}) },
    });
  }
  const choice = options.toolChoice;
  if (choice == null) return { tools, toolChoice: undefined };
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return { tools, toolChoice: choice.type };
    case 'tool':
      return { tools, toolChoice: { type: 'function', function: { name: choice.toolName } } };
    default:
      throw new UnsupportedFunctionalityError({ functionality: `tool choice type: ${(choice as { type: string }).type}` });
  }
}

/** What a message or part carries under providerOptions.openaiCompatible goes into its JSON as is. */
const extra = (carrier: { providerOptions?: SharedV3ProviderOptions }): Json => (carrier.providerOptions?.openaiCompatible ?? {}) as Json;

export function chatMessages(prompt: LanguageModelV3Prompt): Json[] {
  const messages: Json[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', content: message.content, ...extra(message) });
        break;
      case 'user': {
        const [only] = message.content;
        if (message.content.length === 1 && only?.type === 'text') {
          messages.push({ role: 'user', content: only.text, ...extra(only) });
          break;
        }
        messages.push({ role: 'user', content: message.content.map(userPart), ...extra(message) });
        break;
      }
      case 'assistant': {
        let text = '';
        let reasoning = '';
        const toolCalls: Json[] = [];
        for (const part of message.content) {
          if (part.type === 'text') text += part.text;
          else if (part.type === 'reasoning') reasoning += part.text;
          else if (part.type === 'tool-call') {
            const thoughtSignature = part.providerOptions?.google?.thoughtSignature;
            toolCalls.push({
              id: part.toolCallId,
              type: 'function',
              function: { name: part.toolName, arguments: toolArguments(part.input) },
              ...extra(part),
              ...(thoughtSignature ? { extra_content: { google: { thought_signature: String(thoughtSignature) } } } : {}),
            });
          }
        }
        messages.push({
          role: 'assistant',
          content: toolCalls.length > 0 ? text || null : text,
          ...(reasoning.length > 0 ? { reasoning_content: reasoning } : {}),
          tool_calls: toolCalls.length > 0 ? toolCalls : undefined,
          ...extra(message),
        });
        break;
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type === 'tool-approval-response') continue;
          const output = part.output;
          let content: string;
          switch (output.type) {
            case 'text':
            case 'error-text':
              content = output.value;
              break;
            case 'execution-denied':
              content = output.reason ?? 'Tool call execution denied.';
              break;
            default:
              content = stringifyWithBigIntAndCycles(output.value);
          }
          messages.push({ role: 'tool', tool_call_id: part.toolCallId, content, ...extra(part) });
        }
        break;
      default:
        throw new Error(`Unsupported role: ${(message as { role: string }).role}`);
    }
  }
  return messages;
}

type UserPart = Extract<LanguageModelV3Prompt[number], { role: 'user' }>['content'][number];

function userPart(part: UserPart): Json {
  if (part.type === 'text') return { type: 'text', text: part.text, ...extra(part) };
  const { mediaType, data } = part;
  if (mediaType.startsWith('image/')) {
    const type = mediaType === 'image/*' ? 'image/jpeg' : mediaType;
    return { type: 'image_url', image_url: { url: data instanceof URL ? data.toString() : `data:${type};base64,${convertToBase64(data)}` }, ...extra(part) };
  }
  if (mediaType.startsWith('audio/')) {
    if (data instanceof URL) throw new UnsupportedFunctionalityError({ functionality: 'audio file parts with URLs' });
    const format = mediaType === 'audio/wav' ? 'wav' : mediaType === 'audio/mp3' || mediaType === 'audio/mpeg' ? 'mp3' : null;
    if (format === null) throw new UnsupportedFunctionalityError({ functionality: `audio media type ${mediaType}` });
    return { type: 'input_audio', input_audio: { data: convertToBase64(data), format }, ...extra(part) };
  }
  if (mediaType === 'application/pdf') {
    if (data instanceof URL) throw new UnsupportedFunctionalityError({ functionality: 'PDF file parts with URLs' });
    return { type: 'file', file: { filename: part.filename ?? 'document.pdf', file_data: `data:application/pdf;base64,${convertToBase64(data)}` }, ...extra(part) };
  }
  if (mediaType.startsWith('text/')) {
    const text = data instanceof URL ? data.toString() : new TextDecoder().decode(typeof data === 'string' ? convertBase64ToUint8Array(data) : data);
    return { type: 'text', text, ...extra(part) };
  }
  throw new UnsupportedFunctionalityError({ functionality: `file part media type ${mediaType}` });
}

/** A string that parses as JSON goes as it is; any other input is serialised. */
function toolArguments(input: unknown): string {
  if (typeof input === 'string') {
    try {
      secureJsonParse(input);
      return input;
    } catch {
      return JSON.stringify(input);
    }
  }
  return stringifyWithBigIntAndCycles(input);
}
