// `accord agent headless --relay-url`: the agent dials a small test relay,
// carries the secret as a Bearer header, serves ACP over that socket, and
// reconnects with backoff when the relay refuses or drops it; its sessions
// survive the reconnect.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { WebSocketServer, type WebSocket } from 'ws';
import { backoffDelay } from '../../../agent/transports/relay';
import { webSocketStream } from '../../../agent/transports/wsStream';
import { reply } from '../../fakeModelServer/index';
import { agentBundle, fakeModelFor, harnessOverStream, messageText, tempDir, type Harness } from '../agent/harness';
import { ensureBuilt, waitFor } from '../daemon/fixtures';

before(() => ensureBuilt());

const SECRET = 'relay-secret-for-tests-42';

/** The test relay: checks the agent's Bearer secret, refuses the first `refuseFirst` attempts with 401, hands over accepted sockets. */
class TestRelay {
  readonly server: Server;
  readonly sockets: WebSocket[] = [];
  readonly attempts: Array<{ authorization: string | undefined; status: number }> = [];
  refuseNext = 0;
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor() {
    this.server = createServer();
    this.server.on('upgrade', (request, socket, head) => {
      const authorization = request.headers.authorization;
      const ok = authorization === `Bearer ${SECRET}` && this.refuseNext === 0;
      if (this.refuseNext > 0) this.refuseNext--;
      this.attempts.push({ authorization, status: ok ? 101 : 401 });
      if (!ok) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => this.sockets.push(ws));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address() as { port: number };
    return `ws://127.0.0.1:${address.port}/agent`;
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('accord agent headless --relay-url', () => {
  const model = fakeModelFor('accord-relay-config-');
  const dir = tempDir('accord-relay-');
  const relay = new TestRelay();
  let agent: ChildProcess;
  let stderr = '';
  const clients: Harness[] = [];
  before(async () => {
    const url = await relay.listen();
    relay.refuseNext = 1; // the first attempt is refused: the agent must back off and retry
    agent = spawn(process.execPath, [agentBundle, 'agent', '--always-approve', 'headless', '--relay-url', url, '--secret', SECRET], {
      env: { ...model.env(), ACCORD_HOME: join(dir.path, 'home'), ACCORD_SANDBOX: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stderr!.on('data', (c) => (stderr += c));
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    agent.kill('SIGTERM');
    await new Promise((resolve) => (agent.exitCode !== null ? resolve(null) : agent.on('exit', resolve)));
    await relay.close();
    dir.remove();
  });

  const clientOn = async (socket: WebSocket) => {
    const harness = harnessOverStream(webSocketStream(socket), async () => socket.close());
    clients.push(harness);
    await harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    return harness;
  };

  test('retries after a refusal, carries the secret, serves ACP; after the relay drops it, reconnects and the session is still there', { timeout: 120_000 }, async () => {
    const first = await waitFor('the agent to get through', () => relay.sockets[0]);
    assert.equal(relay.attempts[0]!.status, 401);
    assert.match(stderr, /the relay refused the connection \(HTTP 401\)/);
    assert.ok(relay.attempts.every((a) => a.authorization === `Bearer ${SECRET}`), 'every attempt carries the secret');
    const a = await clientOn(first);
    const cwd = join(dir.path, 'project');
    mkdirSync(cwd);
    const created = await a.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    assert.equal((created._meta as any)['accord/alwaysApprove'], true, 'the agent options apply over the relay too');
    model.server.script(reply.text('Hello over the relay.'));
    const { stopReason } = await a.connection.agent.request(methods.agent.session.prompt, { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    assert.equal(stopReason, 'end_turn');
    assert.equal(messageText(a, created.sessionId), 'Hello over the relay.');

    first.terminate();
    const second = await waitFor('the agent to reconnect', () => relay.sockets[1]);
    const b = await clientOn(second);
    await b.connection.agent.request(methods.agent.session.load, { sessionId: created.sessionId, cwd, mcpServers: [] });
    assert.equal(messageText(b, created.sessionId), 'Hello over the relay.');
  });

  test('backoff grows from 250 ms to at most 30 s, with jitter', () => {
    assert.equal(backoffDelay(0, () => 1), 250);
    assert.equal(backoffDelay(0, () => 0), 125);
    assert.equal(backoffDelay(3, () => 1), 2000);
    assert.equal(backoffDelay(50, () => 1), 30_000);
    assert.equal(backoffDelay(50, () => 0), 15_000);
  });
});
