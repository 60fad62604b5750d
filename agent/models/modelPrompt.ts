// The session's history (ModelMessage[], what the session log keeps and
// `session/load` replays) → the prompt a LanguageModelV3 takes. It converts
// exactly as the ai SDK's streamText does (ai 6: convertToLanguageModelPrompt),
// so a history written before this module existed reaches the model the same:
// test/unit/agent/modelStep.diff.test.ts holds the two side by side.
import { AISDKError, InvalidPromptError, type LanguageModelV3FilePart, type LanguageModelV3Message, type LanguageModelV3Prompt, type LanguageModelV3TextPart, type LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import {
  convertBase64ToUint8Array,
  convertUint8ArrayToBase64,
  DEFAULT_MAX_DOWNLOAD_SIZE,
  DownloadError,
  cancelResponseBody,
  fetchWithValidatedRedirects,
  isUrlSupported,
  readResponseWithSizeLimit,
  type DataContent,
  type ModelMessage,
  type ToolResultOutput,
} from '@ai-sdk/provider-utils';

type Downloaded = Map<string, { data: Uint8Array; mediaType: string | undefined }>;

/** The ai SDK's error for a tool call the history never answered; its message reaches the person through describeModelError. */
export class MissingToolResultsError extends AISDKError {
  constructor(readonly toolCallIds: string[]) {
    const many = toolCallIds.length > 1;
    super({ name: 'AI_MissingToolResultsError', message: `Tool result${many ? 's are' : ' is'} missing for tool call${many ? 's' : ''} ${toolCallIds.join(', ')}.` });
  }
}

/**
 * `supportedUrls`: the model's own list (LanguageModelV3.supportedUrls); a
 * URL in an image or file part that the model cannot take is downloaded
 * here (size-bounded, redirects checked), as the ai SDK does.
 */
export async function toModelPrompt(
  system: string | undefined,
  messages: readonly ModelMessage[],
  supportedUrls: Record<string, RegExp[]>,
  signal?: AbortSignal,
): Promise<LanguageModelV3Prompt> {
  checkMessages(messages);
  const downloaded = await downloadUnsupportedUrls(messages, supportedUrls, signal);
  const converted: LanguageModelV3Message[] = [
    ...(system != null ? [{ role: 'system' as const, content: system }] : []),
    ...messages.map((message) => convertMessage(message, downloaded)),
  ];

  // Consecutive tool messages become one (the provider sees one turn of results).
  const combined: LanguageModelV3Message[] = [];
  for (const message of converted) {
    const last = combined.at(-1);
    if (message.role !== 'tool' || last?.role !== 'tool') {
      combined.push(message);
      continue;
    }
    const lastPart = last.content.at(-1);
    if (lastPart != null && last.providerOptions != null) lastPart.providerOptions = mergeObjects(last.providerOptions, lastPart.providerOptions);
    last.content.push(...message.content);
    last.providerOptions = message.providerOptions;
  }

  // Every call the model made (and Accord runs) needs its result before the next user turn.
  const open = new Set<string>();
  for (const message of combined) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call' && !part.providerExecuted) open.add(part.toolCallId);
    } else if (message.role === 'tool') {
      for (const part of message.content) if (part.type === 'tool-result') open.delete(part.toolCallId);
    } else if (open.size > 0) {
      throw new MissingToolResultsError([...open]);
    }
  }
  if (open.size > 0) throw new MissingToolResultsError([...open]);
  return combined.filter((message) => message.role !== 'tool' || message.content.length > 0);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown) => typeof value === 'string';
const isData = (value: unknown) => isString(value) || value instanceof Uint8Array || value instanceof ArrayBuffer || value instanceof URL;
const outputKinds = new Set(['text', 'json', 'execution-denied', 'error-text', 'error-json', 'content']);
const toolResultOk = (part: Record<string, unknown>) => isString(part.toolCallId) && isString(part.toolName) && isObject(part.output) && outputKinds.has(part.output.type as string)
  && (part.output.type !== 'content' || Array.isArray(part.output.value));

/** Which part types each role may hold, and what each needs to be sent at all. */
const partChecks: Record<string, Record<string, (part: Record<string, unknown>) => boolean>> = {
  user: {
    text: (part) => isString(part.text),
    image: (part) => isData(part.image),
    file: (part) => isData(part.data) && isString(part.mediaType),
  },
  assistant: {
    text: (part) => isString(part.text),
    file: (part) => isData(part.data) && isString(part.mediaType),
    reasoning: (part) => isString(part.text),
    'tool-call': (part) => isString(part.toolCallId) && isString(part.toolName),
    'tool-result': toolResultOk,
    'tool-approval-request': (part) => isString(part.approvalId) && isString(part.toolCallId),
  },
  tool: {
    'tool-result': toolResultOk,
    'tool-approval-response': (part) => isString(part.approvalId) && typeof part.approved === 'boolean',
  },
};

/**
 * The history is read back from the session log, so its shape is checked
 * before anything is sent (the ai SDK checked it against its zod schema):
 * a damaged history is a clear error, never a malformed request.
 */
function checkMessages(messages: readonly ModelMessage[]): void {
  if (messages.length === 0) throw new InvalidPromptError({ prompt: messages, message: 'messages must not be empty' });
  const fits = (message: unknown): boolean => {
    if (!isObject(message) || (message.providerOptions !== undefined && !isObject(message.providerOptions))) return false;
    if (message.role === 'system') return isString(message.content);
    const checks = partChecks[message.role as string];
    if (!checks) return false;
    if (isString(message.content)) return message.role !== 'tool';
    if (!Array.isArray(message.content)) return false;
    return message.content.every((part: unknown) => isObject(part) && (part.providerOptions === undefined || isObject(part.providerOptions)) && checks[part.type as string]?.(part) === true);
  };
  if (!messages.every(fits)) throw new InvalidPromptError({ prompt: messages, message: 'The messages do not match the ModelMessage[] schema.' });
}

function convertMessage(message: ModelMessage, downloaded: Downloaded): LanguageModelV3Message {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content, providerOptions: message.providerOptions };
    case 'user':
      if (typeof message.content === 'string') return { role: 'user', content: [{ type: 'text', text: message.content }], providerOptions: message.providerOptions };
      return {
        role: 'user',
        content: message.content.map((part) => convertUserPart(part, downloaded)).filter((part) => part.type !== 'text' || part.text !== ''),
        providerOptions: message.providerOptions,
      };
    case 'assistant': {
      if (typeof message.content === 'string') return { role: 'assistant', content: [{ type: 'text', text: message.content }], providerOptions: message.providerOptions };
      const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
      for (const part of message.content) {
        if (part.type === 'tool-approval-request') continue; // not sent back
        const providerOptions = part.providerOptions;
        switch (part.type) {
          case 'text':
            // An empty text part is dropped unless it carries provider options (a signature, say).
            if (part.text !== '' || providerOptions != null) content.push({ type: 'text', text: part.text, providerOptions });
            break;
          case 'file': {
            const { data, mediaType } = toDataContent(part.data);
            content.push({ type: 'file', data, filename: part.filename, mediaType: mediaType ?? part.mediaType, providerOptions });
            break;
          }
          case 'reasoning':
            content.push({ type: 'reasoning', text: part.text, providerOptions });
            break;
          case 'tool-call':
            content.push({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, providerExecuted: part.providerExecuted, providerOptions });
            break;
          case 'tool-result':
            content.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: toolResultOutput(part.output, downloaded), providerOptions });
            break;
        }
      }
      return { role: 'assistant', content, providerOptions: message.providerOptions };
    }
    case 'tool': {
      const content: Extract<LanguageModelV3Message, { role: 'tool' }>['content'] = [];
      for (const part of message.content) {
        if (part.type === 'tool-result') {
          content.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: toolResultOutput(part.output, downloaded), providerOptions: part.providerOptions });
        } else if (part.type === 'tool-approval-response' && part.providerExecuted) {
          content.push({ type: 'tool-approval-response', approvalId: part.approvalId, approved: part.approved, reason: part.reason });
        }
      }
      return { role: 'tool', content, providerOptions: message.providerOptions };
    }
    default:
      throw new AISDKError({ name: 'AI_InvalidMessageRoleError', message: `Invalid message role: '${(message as { role?: unknown }).role}'. Must be one of: "system", "user", "assistant", "tool".` });
  }
}

type UserPart = Exclude<Extract<ModelMessage, { role: 'user' }>['content'], string>[number];

function convertUserPart(part: UserPart, downloaded: Downloaded): LanguageModelV3TextPart | LanguageModelV3FilePart {
  if (part.type === 'text') return { type: 'text', text: part.text, providerOptions: part.providerOptions };
  const converted = toDataContent(part.type === 'image' ? part.image : part.data);
  let mediaType = converted.mediaType ?? part.mediaType;
  let data: Uint8Array | string | URL = converted.data;
  if (data instanceof URL) {
    const file = downloaded.get(data.toString());
    if (file) {
      data = file.data;
      mediaType ??= file.mediaType;
    }
  }
  const originalUrl = data instanceof URL && converted.originalUrl != null ? { originalUrl: converted.originalUrl } : {};
  if (part.type === 'image') {
    // What the bytes say wins over what the sender said (a PNG sent as image/jpeg is sent as PNG).
    if (!(data instanceof URL)) mediaType = imageTypeOf(data) ?? mediaType;
    return { type: 'file', mediaType: mediaType ?? 'image/*', filename: undefined, data, ...originalUrl, providerOptions: part.providerOptions };
  }
  if (mediaType == null) throw new Error('Media type is missing for file part');
  return { type: 'file', mediaType, filename: part.filename, data, ...originalUrl, providerOptions: part.providerOptions };
}

function toolResultOutput(output: ToolResultOutput, downloaded: Downloaded): LanguageModelV3ToolResultOutput {
  if (output.type !== 'content') return output;
  return {
    type: 'content',
    value: output.value.map((item) => {
      if (item.type === 'image-url' || item.type === 'file-url') {
        const file = downloaded.get(new URL(item.url).toString());
        if (!file) return item;
        return item.type === 'image-url'
          ? { type: 'image-data' as const, data: toBase64(file.data), mediaType: file.mediaType ?? 'image/*', providerOptions: item.providerOptions }
          : { type: 'file-data' as const, data: toBase64(file.data), mediaType: file.mediaType ?? 'application/octet-stream', providerOptions: item.providerOptions };
      }
      if (item.type !== 'media') return item;
      // The ai SDK 5 form of tool media.
      return item.mediaType.startsWith('image/')
        ? { type: 'image-data' as const, data: item.data, mediaType: item.mediaType }
        : { type: 'file-data' as const, data: item.data, mediaType: item.mediaType };
    }),
  };
}

/** Bytes, base64 text, a data: URL (split into its type and base64) or another URL. */
function toDataContent(content: DataContent | URL): { data: Uint8Array | string | URL; mediaType: string | undefined; originalUrl?: string } {
  if (content instanceof Uint8Array) return { data: content, mediaType: undefined };
  if (content instanceof ArrayBuffer) return { data: new Uint8Array(content), mediaType: undefined };
  let originalUrl: string | undefined;
  if (typeof content === 'string') {
    try {
      const url = new URL(content);
      originalUrl = url.toString() !== content ? content : undefined;
      content = url;
    } catch {
      // not a URL: base64 text
    }
  }
  if (content instanceof URL && content.protocol === 'data:') {
    const [header, base64] = content.toString().split(',');
    const mediaType = header?.split(';')[0]?.split(':')[1];
    if (mediaType == null || base64 == null) throw new AISDKError({ name: 'InvalidDataContentError', message: `Invalid data URL format in content ${content.toString()}` });
    return { data: base64, mediaType };
  }
  return { data: content, mediaType: undefined, ...(originalUrl != null ? { originalUrl } : {}) };
}

const toBase64 = (data: Uint8Array | string) => (typeof data === 'string' ? data : convertUint8ArrayToBase64(data));

/** Image signatures as the ai SDK checks them: the first bytes, `null` matching any byte. */
const imageSignatures: ReadonlyArray<readonly [string, ReadonlyArray<number | null>]> = [
  ['image/gif', [0x47, 0x49, 0x46]],
  ['image/png', [0x89, 0x50, 0x4e, 0x47]],
  ['image/jpeg', [0xff, 0xd8]],
  ['image/webp', [0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50]],
  ['image/bmp', [0x42, 0x4d]],
  ['image/tiff', [0x49, 0x49, 0x2a, 0x00]],
  ['image/tiff', [0x4d, 0x4d, 0x00, 0x2a]],
  ['image/avif', [0x00, 0x00, 0x00, 0x20, 0x66, 0x74, 0x79, 0x70, 0x61, 0x76, 0x69, 0x66]],
  ['image/heic', [0x00, 0x00, 0x00, 0x20, 0x66, 0x74, 0x79, 0x70, 0x68, 0x65, 0x69, 0x63]],
];
const SNIFF_BYTES = 18;
const MAX_ID3_TAG_BYTES = 128 * 1024;
const MAX_SIGNATURE_BYTES = 12;

/** Only a bounded prefix is decoded, whatever the image's size. */
function prefixOf(data: Uint8Array | string, maxBytes: number): Uint8Array {
  if (typeof data !== 'string') return data.length > maxBytes ? data.subarray(0, maxBytes) : data;
  const bytes = convertBase64ToUint8Array(data.substring(0, Math.min(data.length, Math.ceil(maxBytes / 3) * 4)));
  return bytes.length > maxBytes ? bytes.subarray(0, maxBytes) : bytes;
}

function imageTypeOf(data: Uint8Array | string): string | undefined {
  let bytes = prefixOf(data, SNIFF_BYTES);
  // An ID3 tag (audio) is skipped before the signatures are checked, as the ai SDK does for every kind.
  if (bytes.length > 10 && bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) {
    bytes = prefixOf(data, MAX_ID3_TAG_BYTES + MAX_SIGNATURE_BYTES);
    const size = ((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f);
    bytes = bytes.subarray(size + 10);
  }
  for (const [mediaType, prefix] of imageSignatures) {
    if (bytes.length >= prefix.length && prefix.every((byte, index) => byte === null || bytes[index] === byte)) return mediaType;
  }
  return undefined;
}

async function downloadUnsupportedUrls(messages: readonly ModelMessage[], supportedUrls: Record<string, RegExp[]>, signal?: AbortSignal): Promise<Downloaded> {
  const planned: Array<{ url: URL; mediaType: string | undefined }> = [];
  const plan = (data: DataContent | URL, mediaType: string | undefined) => {
    const converted = toDataContent(data).data;
    if (converted instanceof URL) planned.push({ url: converted, mediaType });
  };
  for (const message of messages) {
    if (message.role === 'user' && Array.isArray(message.content)) {
      for (const part of message.content) {
        if (part.type === 'image') plan(part.image, part.mediaType ?? 'image/*');
        else if (part.type === 'file') plan(part.data, part.mediaType);
      }
    }
    if ((message.role === 'tool' || message.role === 'assistant') && Array.isArray(message.content)) {
      for (const part of message.content) {
        if (part.type !== 'tool-result' || part.output.type !== 'content') continue;
        for (const item of part.output.value) {
          if (item.type === 'image-url') plan(new URL(item.url), 'image/*');
          else if (item.type === 'file-url') plan(new URL(item.url), item.mediaType);
        }
      }
    }
  }
  const downloaded: Downloaded = new Map();
  if (planned.length === 0) return downloaded;
  const files = await Promise.all(
    planned.map(({ url, mediaType }) =>
      mediaType != null && isUrlSupported({ url: url.toString(), mediaType, supportedUrls }) ? null : download(url, signal),
    ),
  );
  files.forEach((file, index) => {
    if (file) downloaded.set(planned[index]!.url.toString(), file);
  });
  return downloaded;
}

/** One URL's bytes, bounded in size, following only redirects that pass the SDK's checks. */
async function download(url: URL, signal?: AbortSignal): Promise<{ data: Uint8Array; mediaType: string | undefined }> {
  const text = url.toString();
  try {
    const response = await fetchWithValidatedRedirects({ url: text, headers: {}, ...(signal ? { abortSignal: signal } : {}) });
    if (!response.ok) {
      await cancelResponseBody(response);
      throw new DownloadError({ url: text, statusCode: response.status, statusText: response.statusText });
    }
    const data = await readResponseWithSizeLimit({ response, url: text, maxBytes: DEFAULT_MAX_DOWNLOAD_SIZE });
    return { data, mediaType: response.headers.get('content-type') ?? undefined };
  } catch (error) {
    if (DownloadError.isInstance(error)) throw error;
    throw new DownloadError({ url: text, cause: error });
  }
}

type Options = Record<string, any>;

/** Deep merge of provider options, skipping keys that would reach a prototype. */
function mergeObjects(base: Options | undefined, overrides: Options | undefined): Options | undefined {
  if (base === undefined) return overrides;
  if (overrides === undefined) return base;
  const result: Options = { ...base };
  for (const key in overrides) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    if (!Object.prototype.hasOwnProperty.call(overrides, key)) continue;
    const value = overrides[key];
    if (value === undefined) continue;
    const current = key in base ? base[key] : undefined;
    result[key] = isPlainValue(value) && isPlainValue(current) ? mergeObjects(current, value) : value;
  }
  return result;
}

const isPlainValue = (value: unknown): value is Options =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date) && !(value instanceof RegExp);
