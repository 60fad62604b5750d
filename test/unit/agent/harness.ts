// Drives the real agent through the SDK's client: in memory, or as the built
// `dist/agent.js acp` child process over stdio. Records every update and
// answers permission requests with a per-test policy.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { after, before } from 'node:test';
import {
  client,
  methods,
  ndJsonStream,
  type AgentApp,
  type ClientApp,
  type ClientConnection,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type Stream,
} from '@agentclientprotocol/sdk/unstable';
import { createAccordAgent, type AccordAgentOptions } from '../../../agent/acp/app';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { builtinTools } from '../../../agent/tools/index';
import { startFakeModelServer, type FakeModelServer } from '../../fakeModelServer/index';

export type PermissionPolicy = (request: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>;

export const allowOnce: PermissionPolicy = async () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } });
export const rejectOnce: PermissionPolicy = async () => ({ outcome: { outcome: 'selected', optionId: 'reject_once' } });
/** Never answers until the agent withdraws the request. */
export const neverAnswer: PermissionPolicy = (_request, signal) =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve({ outcome: { outcome: 'cancelled' } }), { once: true }));

export interface Harness {
  connection: ClientConnection;
  updates: SessionNotification[];
  permissionRequests: RequestPermissionRequest[];
  permissions: { policy: PermissionPolicy };
  /** Extension notifications (`_accord/...`) the agent sent. */
  extNotifications: Array<{ method: string; params: unknown }>;
  /** Resolves once an update matching `predicate` has arrived. */
  waitForUpdate(predicate: (n: SessionNotification) => boolean): Promise<SessionNotification>;
  /** Initializes (with `clientCapabilities`, default none) and opens a session in `cwd`. */
  newSession(cwd: string, clientCapabilities?: Record<string, unknown>): Promise<string>;
  prompt(sessionId: string, text: string): Promise<string>;
  close(): Promise<void>;
}

/** Environment that reaches no real provider and probes no local server. */
export function isolatedEnv(extra: Record<string, string>, configDir: string): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: configDir, ACCORD_CONFIG_DIR: configDir, ACCORD_LOCAL_SERVERS: '', ...extra };
}

function clientApp(state: Pick<Harness, 'updates' | 'permissionRequests' | 'permissions' | 'extNotifications'>, notify: () => void) {
  return client({ name: 'accord-test' })
    .onNotification('*', ({ method, params }) => {
      state.extNotifications.push({ method, params });
      notify();
    })
    .onNotification(methods.client.session.update, ({ params }) => {
      state.updates.push(params);
      notify();
    })
    .onRequest(methods.client.session.requestPermission, ({ params, signal }) => {
      state.permissionRequests.push(params);
      notify();
      return state.permissions.policy(params, signal);
    });
}

function harnessFor(connect: (app: ReturnType<typeof clientApp>) => ClientConnection, cleanup: () => Promise<void>): Harness {
  const updates: SessionNotification[] = [];
  const permissionRequests: RequestPermissionRequest[] = [];
  const permissions = { policy: allowOnce };
  const extNotifications: Harness['extNotifications'] = [];
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  const connection = connect(clientApp({ updates, permissionRequests, permissions, extNotifications }, notify));
  const harness: Harness = {
    connection,
    updates,
    permissionRequests,
    permissions,
    extNotifications,
    async waitForUpdate(predicate) {
      for (;;) {
        const found = updates.find(predicate);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async newSession(cwd, clientCapabilities = {}) {
      await connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: clientCapabilities as never });
      const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
      return sessionId;
    },
    async prompt(sessionId, text) {
      const { stopReason } = await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
      return stopReason;
    },
    async close() {
      connection.close();
      await cleanup();
    },
  };
  return harness;
}

/** The test client over any ACP stream (e.g. a WebSocket to `accord serve`). */
export function harnessOverStream(stream: Stream, cleanup: () => Promise<void> = async () => {}): Harness {
  return harnessFor((app) => app.connect(stream), cleanup);
}

/** `configureClient` adds handlers to the test client (e.g. Accord's `_accord/lm/*` methods). */
export function inMemoryAgent(options: Partial<AccordAgentOptions> & { env: AccordAgentOptions['env'] }, configureClient?: (app: ClientApp) => ClientApp): Harness {
  const agentApp = createAccordAgent({ tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0, ...options });
  return harnessFor((app) => (configureClient ? configureClient(app) : app).connect(agentApp), async () => {});
}

/** Any agent app (e.g. the logged agent with isolated workspaces) behind the same test client. */
export function inMemoryApp(agentApp: AgentApp): Harness {
  return harnessFor((app) => app.connect(agentApp), async () => {});
}

export interface ChildHarness extends Harness {
  child: ChildProcess;
  stdout: Buffer[];
  stderr: string[];
}

/** Tests run from the repository root (npm test, node --test). */
export const agentBundle = join(process.cwd(), 'dist/agent.js');

/** For the enclosing `describe`: builds dist/ first when there is none (a fresh clone), since these tests run the bundle. */
export function ensureAgentBundle(): void {
  before(() => {
    // agent-openai-compatible.js: a dist from before the lazy bundles (esbuild.mjs) is rebuilt too.
    if (!['agent.js', 'agent-core.js', 'agent-openai-compatible.js'].every((name) => existsSync(join(process.cwd(), 'dist', name)))) spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'ignore' });
  });
}

/**
 * Runs `dist/agent.js acp --no-daemon` with `probe` (CommonJS source) preloaded,
 * sends initialize, waits `settleMs` after the answer (the agent's loop runs on),
 * ends its input and resolves with its stderr once it exited: a probe reports
 * what the process did (e.g. from process.moduleLoadList) on stderr.
 */
export async function probeAroundInitialize(probe: string, settleMs = 0): Promise<string> {
  const dir = tempDir('accord-probe-');
  try {
    const preload = join(dir.path, 'probe.cjs');
    writeFileSync(preload, probe);
    const env = { ...isolatedEnv({ ACCORD_HOME: join(dir.path, 'data') }, join(dir.path, 'config')), NODE_OPTIONS: `--require ${preload}` };
    const child = spawn(process.execPath, [agentBundle, 'acp', '--no-daemon'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const answered = new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
    const answer = await answered;
    if (!/"id":1,"result":\{"protocolVersion":1/.test(answer)) throw new Error(`initialize was not answered: ${answer.slice(0, 500)}`);
    if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
    child.stdin!.end();
    await exited;
    return stderr;
  } finally {
    dir.remove();
  }
}

/**
 * `dist/agent.js acp` as a child. By default it serves in its own process
 * (`--no-daemon`); `bridge: true` runs it as the bridge to the per-user daemon
 * (test/unit/daemon/fixtures.ts stops the daemon it starts); `launcher` runs
 * that executable instead (dist/accord).
 */
export function childAgent(env: Record<string, string | undefined>, args: string[] = [], options: { bridge?: boolean; launcher?: string } = {}): ChildHarness {
  // `launcher`: an executable run as `<launcher> acp ...args` (dist/accord, or a symlink to it), as an editor runs it.
  const child = options.launcher
    ? spawn(options.launcher, ['acp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, [agentBundle, 'acp', ...args, ...(options.bridge ? [] : ['--no-daemon'])], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  const stderr: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const harness = harnessFor(
    (app) => app.connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>)),
    async () => {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  );
  return Object.assign(harness, { child, stdout, stderr });
}

/**
 * A fake model server for the enclosing `describe` and an agent environment
 * pointing at it, with a config dir of its own (no stored keys leak in). The
 * config dir is a temp folder removed after the `describe`: tests may keep
 * their projects and data dirs under it too.
 */
export function fakeModelFor(configPrefix: string): { readonly server: FakeModelServer; readonly configDir: string; env(): Record<string, string | undefined> } {
  let server: FakeModelServer | undefined;
  const config = tempDir(configPrefix);
  before(async () => {
    server = await startFakeModelServer();
  });
  after(async () => {
    await server?.close();
    config.remove();
  });
  const started = (): FakeModelServer => {
    if (!server) throw new Error('the fake model server starts in before()');
    return server;
  };
  return {
    get server() {
      return started();
    },
    configDir: config.path,
    env: () => isolatedEnv({ ACCORD_MODEL: `openai-compatible:${started().baseUrl}#fake` }, config.path),
  };
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function updatesOf(harness: Harness, sessionId: string, kind: string): any[] {
  return harness.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind).map((n) => n.update);
}

export function messageText(harness: Harness, sessionId: string, kind = 'agent_message_chunk'): string {
  return updatesOf(harness, sessionId, kind).map((u) => u.content.text).join('');
}

/**
 * What an isolated session's workspace setup reports (sandbox, policy and MCP
 * problems, workspace): session/new answers before it exists, so it arrives
 * as a `session_info_update` `_meta` once the copy is ready.
 */
export async function preparedMeta(harness: Harness, sessionId: string): Promise<Record<string, any>> {
  const found = await harness.waitForUpdate(
    (n) => n.sessionId === sessionId && n.update.sessionUpdate === 'session_info_update' && (n.update as { _meta?: Record<string, unknown> })._meta?.['accord/workspace'] !== undefined,
  );
  return (found.update as { _meta: Record<string, any> })._meta;
}
