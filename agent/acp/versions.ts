// Which ACP version a connection speaks. The client asks for one version in
// `initialize`; Accord answers with the highest it speaks that is not newer:
// 1 → 1, 2 → 2, 3 or later → 2. v2 is a draft, so a client that asked for 1
// always gets 1. Asking for 0, or for something that is not a version number,
// fails with -32022 and `data: {requested, supported}` (the SDK's router would
// answer a non-number with -32602; the pre-screen below makes every
// unsupported request read the same). The connection stays open for another
// `initialize`, as the router's does.
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import type { AgentApp, AnyMessage, Stream } from '@agentclientprotocol/sdk/unstable';
import { sharedWriter } from './sharedWriter';
import { v2AgentFor } from './v2/facade';

export const SUPPORTED_VERSIONS = [1, 2] as const;
const MAX_PROTOCOL_VERSION = 0xffff;

/** Serves `stream` in the version its client asks for: `app` itself for v1, the v2 facade in front of it for v2. */
export function serveVersions(app: AgentApp, stream: Stream): { closed: Promise<void> } {
  const router = v2.agentProtocolRouter().withV1(app).withV2(v2AgentFor(app));
  return router.connect(prescreened({ readable: stream.readable, writable: sharedWriter(stream.writable) }));
}

function isVersion(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_PROTOCOL_VERSION;
}

/**
 * Until an initialize with a version number goes through, one that names no
 * version is answered here with -32022. After that, messages pass untouched
 * (a repeated initialize is the chosen version's to judge).
 */
function prescreened(stream: Stream): Stream {
  const reader = stream.readable.getReader();
  let screening = true;
  const readable = new ReadableStream<AnyMessage>({
    async pull(controller) {
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          controller.close();
          return;
        }
        const message = next.value as unknown as { method?: unknown; id?: unknown; params?: { protocolVersion?: unknown } };
        if (screening && message?.method === 'initialize' && message.id !== undefined) {
          const requested = message.params?.protocolVersion;
          if (!isVersion(requested)) {
            await answer(stream.writable, {
              jsonrpc: '2.0',
              id: message.id,
              error: { code: -32022, message: 'Unsupported protocol version', data: { requested: requested ?? null, supported: [...SUPPORTED_VERSIONS] } },
            } as unknown as AnyMessage);
            continue;
          }
          if (requested >= 1) screening = false;
        }
        controller.enqueue(next.value);
        return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { readable, writable: stream.writable };
}

async function answer(writable: WritableStream<AnyMessage>, message: AnyMessage): Promise<void> {
  const writer = writable.getWriter();
  try {
    await writer.write(message);
  } finally {
    writer.releaseLock();
  }
}
