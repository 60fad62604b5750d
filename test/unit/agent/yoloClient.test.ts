// The always-approve example client of the agents Accord is built from,
// copied in shape: it spawns the agent with --always-approve, speaks
// newline-delimited JSON-RPC through readline (no SDK), sends `initialize`,
// then `session/new` with `_meta: {"yoloMode": true}`, then one prompt, and
// must get a reply. A yoloMode the launch did not grant is still refused
// (-32602, saying how to start the agent for automation), in the agent's own
// process and through the daemon, where the grant is per connection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { reply } from '../../fakeModelServer/index';
import { daemonWorld, ensureBuilt } from '../daemon/fixtures';
import { agentBundle, fakeModelFor } from './harness';

interface RpcMessage {
  id?: number | string;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

/** The example client: a child process, a readline over its stdout, ids counted up, notifications kept. */
class ExampleClient {
  readonly notifications: RpcMessage[] = [];
  readonly agentRequests: RpcMessage[] = [];
  readonly stderr: string[] = [];
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, (message: RpcMessage) => void>();
  private nextId = 0;
  private readonly closed: Promise<void>;

  constructor(args: string[], env: Record<string, string | undefined>) {
    this.child = spawn(process.execPath, [agentBundle, 'acp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
    this.closed = new Promise((resolve) => this.child.on('close', () => resolve()));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      if (!line.trim()) return;
      const message = JSON.parse(line) as RpcMessage;
      if (message.method === undefined && typeof message.id === 'number') this.pending.get(message.id)?.(message);
      else if (message.method !== undefined && message.id !== undefined) {
        // A yolo client never expects a question; it declines any it gets, and the test sees it.
        this.agentRequests.push(message);
        this.write({ jsonrpc: '2.0', id: message.id, result: { outcome: { outcome: 'cancelled' } } });
      } else this.notifications.push(message);
    });
  }

  send(method: string, params: unknown): Promise<RpcMessage> {
    const id = this.nextId++;
    const answered = new Promise<RpcMessage>((resolve) => this.pending.set(id, resolve));
    this.write({ jsonrpc: '2.0', id, method, params });
    return answered;
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.closed;
    clearTimeout(timer);
  }

  private write(message: unknown): void {
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }
}

before(() => ensureBuilt());

describe('the always-approve example client, unchanged', () => {
  const model = fakeModelFor('accord-yolo-config-');
  const world = daemonWorld('accord-yolo-', () => ({ ...model.env(), ACCORD_SANDBOX: 'off' }));
  const clients: ExampleClient[] = [];
  let project: string;
  before(() => {
    project = join(world.root, 'project');
    mkdirSync(project, { recursive: true });
  });
  after(async () => {
    for (const client of clients.splice(0)) await client.close();
    await world.cleanup();
  });

  const start = (args: string[]) => {
    const client = new ExampleClient(args, world.env);
    clients.push(client);
    return client;
  };

  /** initialize, then session/new with yoloMode, as the example client does. */
  async function yoloSession(client: ExampleClient): Promise<RpcMessage> {
    const init = await client.send('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
    assert.equal(init.result?.protocolVersion, 1, JSON.stringify(init));
    return client.send('session/new', { cwd: project, mcpServers: [], _meta: { yoloMode: true } });
  }

  for (const [name, args] of [
    ['through the daemon (the default launch)', ['--always-approve']],
    ['in its own process (--no-daemon)', ['--always-approve', '--no-daemon']],
  ] as const) {
    test(`spawned with --always-approve, ${name}: yoloMode is accepted, a command runs unasked and the prompt gets a reply`, { timeout: 120_000 }, async () => {
      const client = start([...args]);
      const created = await yoloSession(client);
      assert.equal(created.error, undefined, `session/new failed: ${JSON.stringify(created.error)}\n${client.stderr.join('')}`);
      const sessionId = created.result.sessionId as string;
      if (!(args as readonly string[]).includes('--no-daemon')) assert.equal(created.result._meta?.['accord/alwaysApprove'], true, 'the shared session says it runs with --always-approve');
      model.server.script(reply.tool('call_1', 'run_command', { argv: ['echo', 'yolo-ran'] }), reply.text('All done.'));
      const prompted = await client.send('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run echo' }] });
      assert.equal(prompted.error, undefined, JSON.stringify(prompted.error));
      assert.equal(prompted.result.stopReason, 'end_turn');
      const text = client.notifications
        .filter((n) => n.method === 'session/update' && n.params.sessionId === sessionId && n.params.update.sessionUpdate === 'agent_message_chunk')
        .map((n) => n.params.update.content.text)
        .join('');
      assert.equal(text, 'All done.');
      const output = JSON.stringify(client.notifications.filter((n) => n.params?.update?.sessionUpdate === 'tool_call_update'));
      assert.match(output, /yolo-ran/, 'the command ran');
      assert.deepEqual(client.agentRequests.map((r) => r.method), [], 'nothing was asked');
    });
  }

  test('attack: yoloMode from a client whose agent was started without --always-approve is refused with how to start it for automation', { timeout: 120_000 }, async () => {
    for (const args of [['--no-daemon'], []]) {
      const client = start(args);
      const refused = await yoloSession(client);
      assert.equal(refused.error?.code, -32602, `${args.join(' ') || 'bridge'}: ${JSON.stringify(refused)}`);
      assert.match(refused.error!.message, /"yoloMode"/);
      assert.match(refused.error!.message, /accord acp --always-approve/);
    }
  });

  test('attack: through the daemon the grant is per connection; another connection without the flag is refused, and other bypass keys stay refused even with it', { timeout: 120_000 }, async () => {
    const granted = start(['--always-approve']);
    assert.equal((await yoloSession(granted)).error, undefined);
    const plain = start([]);
    const refused = await yoloSession(plain);
    assert.equal(refused.error?.code, -32602, 'the daemon-wide state does not leak the other connection’s grant');
    for (const meta of [{ bypassPermissions: true }, { yoloMode: 'all' }, { 'vendor.dev': { permissionMode: 'bypassPermissions' } }, { dangerouslySkipPermissions: true }]) {
      const answer = await granted.send('session/new', { cwd: project, mcpServers: [], _meta: meta });
      assert.equal(answer.error?.code, -32602, `${JSON.stringify(meta)} asks for more than --always-approve grants`);
    }
  });
});
