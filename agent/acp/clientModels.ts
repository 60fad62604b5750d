// One connection's access to its client's language models (`_accord/lm/*`,
// see protocol/accordMethods.ts): requests go out on the connection, streamed
// parts come back as notifications and are routed to the request they tag.
import { randomUUID } from 'node:crypto';
import { RequestError, type AgentApp, type AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { ZodMiniType } from 'zod/mini';
import type { ClientModelHost } from '../models/clientModel';
import { LM_METHODS, lmChatResult, lmModelsResult, lmPartsNotification, type LmModelInfo, type LmStreamPart } from '../../protocol/accordMethods';

interface OpenStream {
  onParts(parts: LmStreamPart[]): void;
  received: number;
  /** Set when the chat result said how many parts to expect and some are still on their way. */
  whenComplete?: { expected: number; resolve(): void };
}

/** How long the model list may take: the picker and session/new wait for it. */
const LIST_TIMEOUT_MS = 10_000;

function checked<T>(schema: ZodMiniType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Error(`The editor answered ${what} with something Accord cannot read: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'result'}: ${i.message}`).join('; ')}`);
}

export class ClientModelChannel {
  private readonly streams = new Map<string, OpenStream>();

  /** Routes `_accord/lm/parts` on `app` to the open requests of this connection. */
  register(app: AgentApp): AgentApp {
    return app.onNotification(LM_METHODS.parts, (params: unknown) => params, ({ params }) => {
      const parsed = lmPartsNotification.safeParse(params);
      // A part for no open request (late, after a cancel) or one that does not parse is dropped: nothing waits for it.
      if (!parsed.success) return;
      const stream = this.streams.get(parsed.data.streamId);
      if (!stream) return;
      stream.received += parsed.data.parts.length;
      stream.onParts(parsed.data.parts);
      if (stream.whenComplete && stream.received >= stream.whenComplete.expected) stream.whenComplete.resolve();
    });
  }

  /** The models `client` lends; undefined when it never offered them. */
  host(client: AgentContext, offered: boolean): ClientModelHost | undefined {
    if (!offered) return undefined;
    return {
      list: async (signal) => {
        const timeout = AbortSignal.timeout(LIST_TIMEOUT_MS);
        const result = await client.request(LM_METHODS.models, {}, { cancellationSignal: signal ? AbortSignal.any([signal, timeout]) : timeout, stopWaitingOnCancel: true });
        return checked(lmModelsResult, result, LM_METHODS.models).models;
      },
      chat: async (params, onParts, signal) => {
        const streamId = randomUUID();
        const stream: OpenStream = { onParts, received: 0 };
        this.streams.set(streamId, stream);
        try {
          const raw = await client.request(LM_METHODS.chat, { streamId, ...params }, signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {});
          const result = checked(lmChatResult, raw, LM_METHODS.chat);
          if (stream.received < result.parts) {
            // Notifications and the answer share one ordered stream; this only waits out handlers still running.
            await new Promise<void>((resolve) => {
              stream.whenComplete = { expected: result.parts, resolve };
              signal?.addEventListener('abort', () => resolve(), { once: true });
            });
          }
          if (signal?.aborted) throw signal.reason ?? RequestError.requestCancelled();
          return result;
        } finally {
          this.streams.delete(streamId);
        }
      },
    };
  }
}

export type { LmModelInfo };
