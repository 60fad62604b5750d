// Drives the agent through the SDK's own ACP v2 client: in memory (the
// version router in front of the logged agent, as `accord acp` serves it) or
// as the built `dist/agent.js acp` child over stdio. Records every update,
// answers permission requests with a per-test policy, and can drop the
// connection at any point (a client that lost its network).
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import type { AgentApp, AnyMessage } from '@agentclientprotocol/sdk/unstable';
import { serveVersions } from '../../../agent/acp/versions';
import { agentBundle } from './harness';

export type V2Policy = (request: v2.RequestPermissionRequest, signal: AbortSignal) => Promise<v2.RequestPermissionResponse>;
export const allowOnceV2: V2Policy = async () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } });

export interface V2Harness {
  connection: v2.ClientConnection;
  updates: v2.UpdateSessionNotification[];
  permissionRequests: v2.RequestPermissionRequest[];
  permissions: { policy: V2Policy };
  waitForUpdate(predicate: (n: v2.UpdateSessionNotification) => boolean): Promise<v2.UpdateSessionNotification>;
  /** `capabilities`: the client's v2 capabilities (e.g. `_meta` offering `_accord/lm/*`). */
  initialize(protocolVersion?: number, capabilities?: v2.ClientCapabilities): Promise<v2.InitializeResponse>;
  /** Resolves with the stop reason of the session's next idle state_update after `from` updates. */
  idleAfter(sessionId: string, from: number): Promise<string>;
  close(): Promise<void>;
}

/**
 * A connected pair of in-memory message streams: what the agent reads, what
 * the client reads. `end()` is the client hanging up: the agent reads the end
 * of its input (closing the SDK client's connection alone does not say so).
 */
export function streamPair(): { agent: v2.Stream; client: v2.Stream; end(): void } {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  const source = toAgent.readable.getReader();
  let hangUp: () => void = () => undefined;
  const hungUp = new Promise<{ done: true; value: undefined }>((resolve) => (hangUp = () => resolve({ done: true, value: undefined })));
  const agentReads = new ReadableStream<AnyMessage>({
    async pull(controller) {
      const next = await Promise.race([source.read(), hungUp]);
      if (next.done) {
        controller.close();
        void source.cancel().catch(() => undefined);
      } else controller.enqueue(next.value);
    },
    cancel: (reason) => source.cancel(reason),
  });
  return { agent: { readable: agentReads, writable: toClient.writable }, client: { readable: toClient.readable, writable: toAgent.writable }, end: () => hangUp() };
}

/** Adds handlers to the test's v2 client (e.g. `_accord/lm/*`), before the catch-all ones. */
export type V2ClientSetup = (app: v2.ClientApp) => v2.ClientApp;

function harnessOver(stream: v2.Stream, cleanup: () => Promise<void>, configure: V2ClientSetup = (app) => app): V2Harness {
  const updates: v2.UpdateSessionNotification[] = [];
  const permissionRequests: v2.RequestPermissionRequest[] = [];
  const permissions = { policy: allowOnceV2 };
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  const app = configure(v2.client({ name: 'accord-v2-test' }))
    .onNotification(v2.methods.client.session.update, ({ params }) => {
      updates.push(params);
      notify();
    })
    .onRequest(v2.methods.client.session.requestPermission, ({ params, signal }) => {
      permissionRequests.push(params);
      notify();
      return permissions.policy(params, signal);
    })
    .onNotification('*', () => undefined);
  const connection = app.connect(stream);
  const harness: V2Harness = {
    connection,
    updates,
    permissionRequests,
    permissions,
    async waitForUpdate(predicate) {
      for (;;) {
        const found = updates.find(predicate);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    initialize: (protocolVersion = 2, capabilities = {}) =>
      connection.agent.request(v2.methods.agent.initialize, { protocolVersion, info: { name: 'accord-v2-test', version: '1' }, capabilities }),
    async idleAfter(sessionId, from) {
      const found = await harness.waitForUpdate(
        (n) => updates.indexOf(n) >= from && n.sessionId === sessionId && n.update.sessionUpdate === 'state_update' && (n.update as { state?: string }).state === 'idle',
      );
      return String((found.update as { stopReason?: unknown }).stopReason);
    },
    async close() {
      connection.close();
      await cleanup();
    },
  };
  return harness;
}

/** The v2 client in memory against `app` behind the version router. */
export function inMemoryV2(app: AgentApp, configure?: V2ClientSetup): V2Harness {
  const pair = streamPair();
  const served = serveVersions(app, pair.agent);
  return harnessOver(
    pair.client,
    async () => {
      pair.end();
      await served.closed;
    },
    configure,
  );
}

/** The v2 client over stdio against `dist/agent.js acp`: its own process (`--no-daemon`), or with `bridge` the bridge to the daemon. */
export function childV2(env: Record<string, string | undefined>, args: string[] = [], options: { bridge?: boolean; configure?: V2ClientSetup } = {}): V2Harness & { stderr: string[]; child: ChildProcess } {
  const child = spawn(process.execPath, [agentBundle, 'acp', ...args, ...(options.bridge ? [] : ['--no-daemon'])], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const stream = v2.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
  const harness = harnessOver(stream, async () => {
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }, options.configure);
  return Object.assign(harness, { stderr, child });
}

export function v2Updates(harness: V2Harness, sessionId: string, kind: string): any[] {
  return harness.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind).map((n) => n.update);
}
