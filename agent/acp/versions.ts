// Which ACP version a connection speaks. The client asks for one version in
// `initialize`; Accord answers with the highest it speaks that is not newer:
// 1 → 1, 2 → 2, 3 or later → 2. v2 is a draft, so a client that asked for 1
// always gets 1. Asking for 0, or for something that is not a version number,
// fails with -32022 and `data: {requested, supported}` (the SDK's router would
// answer a non-number with -32602; the pre-screen below makes every
// unsupported request read the same). The connection stays open for another
// `initialize`, as the router's does.
//
// A connection whose first message is an initialize asking for 1 goes to the
// v1 app directly, which is what the router would do with it (the app itself
// rejects any other request until an initialize succeeds). Everything else
// (v2 and newer, 0, a notification or another request first) goes through
// the SDK's router, loaded then (v2/route.ts): it and the v2 SDK build v2
// schemas at load that a v1 client never needs.
import type { AgentApp, AnyMessage, Stream } from '@agentclientprotocol/sdk/unstable';
import { sharedWriter } from './sharedWriter';

export const SUPPORTED_VERSIONS = [1, 2] as const;
const MAX_PROTOCOL_VERSION = 0xffff;

/** Serves `stream` in the version its client asks for: `app` itself for v1, the v2 facade in front of it for v2. */
export function serveVersions(app: AgentApp, stream: Stream): { closed: Promise<void> } {
  const screened = prescreened({ readable: stream.readable, writable: sharedWriter(stream.writable) });
  const reader = screened.readable.getReader();
  const closed = (async () => {
    let first: FirstRead;
    try {
      first = await reader.read();
    } catch (failed) {
      first = { failed };
    }
    // Gone before saying anything (or the input failed): the output ends as the router would end it, without loading it.
    if ('failed' in first || first.done) {
      reader.releaseLock();
      await endOutput(screened.writable, 'failed' in first ? { failed: first.failed } : undefined);
      return;
    }
    const routed: Stream = { readable: putBack(first.value, reader), writable: screened.writable };
    if (opensV1(first.value)) {
      await app.connect(routed).closed;
      return;
    }
    if (process.env.ACCORD_TRACE_BUNDLES === '1') process.stderr.write('accord: loading module acp-v2\n');
    const { routeVersions } = await import('./v2/route');
    await routeVersions(app, routed).closed;
  })();
  return { closed };
}

/** Closes the output, or aborts it with the input's failure; like the router, never throws (the connection is over either way). */
async function endOutput(writable: WritableStream<AnyMessage>, failure: { failed: unknown } | undefined): Promise<void> {
  if (writable.locked) return;
  const writer = writable.getWriter();
  try {
    if (failure) await writer.abort(failure.failed);
    else await writer.close();
  } catch {
    // Already closed or errored.
  } finally {
    writer.releaseLock();
  }
}

type FirstRead = { done: false; value: AnyMessage } | { done: true; value?: AnyMessage } | { failed: unknown };

/** An initialize request asking for exactly 1, with an id v1 accepts: the router would hand it to the v1 app as is. */
function opensV1(message: AnyMessage): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
  if (method !== 'initialize' || (typeof id !== 'string' && typeof id !== 'number')) return false;
  return typeof params === 'object' && params !== null && !Array.isArray(params) && (params as { protocolVersion?: unknown }).protocolVersion === 1;
}

/** `reader`'s stream again, starting with the message already read from it. */
function putBack(first: AnyMessage, reader: ReadableStreamDefaultReader<AnyMessage>): ReadableStream<AnyMessage> {
  let pending: AnyMessage | undefined = first;
  return new ReadableStream<AnyMessage>({
    async pull(controller) {
      if (pending !== undefined) {
        controller.enqueue(pending);
        pending = undefined;
        return;
      }
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
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
