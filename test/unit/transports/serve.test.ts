// `accord serve` as a real process on a real port: only the secret's holder
// gets in (Bearer header or subprotocol), refused with a bare 401 before the
// upgrade otherwise, near-miss secrets included; a foreign Origin gets 403;
// a non-loopback bind needs a chosen secret; sessions survive reconnects.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { WebSocket } from 'ws';
import { secretMatches } from '../../../agent/transports/auth';
import { webSocketStream } from '../../../agent/transports/wsStream';
import { agentBundle, fakeModelFor, harnessOverStream, messageText, tempDir, type Harness } from '../agent/harness';
import { ensureBuilt, waitFor } from '../daemon/fixtures';

before(() => ensureBuilt());

const SECRET = 'correct-horse-battery-staple-0123456789';

/** Opens a WebSocket; resolves with it, or with the HTTP status it was refused with. */
function dial(url: string, options: { headers?: Record<string, string>; protocols?: string[] } = {}): Promise<{ socket?: WebSocket; status?: number; body?: string }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {} });
    socket.on('open', () => resolve({ socket }));
    socket.on('unexpected-response', (_req, response) => {
      let body = '';
      response.on('data', (c) => (body += c));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    socket.on('error', () => undefined);
  });
}

describe('accord serve', () => {
  const model = fakeModelFor('accord-serve-config-');
  const dir = tempDir('accord-serve-');
  let server: ChildProcess;
  let url = '';
  const harnesses: Harness[] = [];
  before(async () => {
    server = spawn(process.execPath, [agentBundle, 'serve', '--bind', '127.0.0.1:0', '--secret', SECRET, '--allow-origin', 'https://editor.example'], {
      env: { ...model.env(), ACCORD_HOME: join(dir.path, 'home'), ACCORD_SANDBOX: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    server.stdout!.on('data', (c) => (out += c));
    url = await waitFor('serve to listen', () => /listening on (ws:\/\/\S+)/.exec(out)?.[1]);
    assert.doesNotMatch(out, /secret \(shown once\)/, 'a chosen secret is never printed');
  });
  after(async () => {
    for (const h of harnesses) await h.close().catch(() => undefined);
    server.kill('SIGTERM');
    await new Promise((resolve) => (server.exitCode !== null ? resolve(null) : server.on('exit', resolve)));
    dir.remove();
  });

  async function client(options: Parameters<typeof dial>[1] = { headers: { Authorization: `Bearer ${SECRET}` } }): Promise<Harness> {
    const { socket, status } = await dial(url, options);
    assert.ok(socket, `connected (got ${status})`);
    const harness = harnessOverStream(webSocketStream(socket), async () => socket.close());
    harnesses.push(harness);
    await harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    return harness;
  }

  test('a missing, wrong or near-miss secret gets a bare 401 before the upgrade', { timeout: 60_000 }, async () => {
    const probes: Array<Record<string, string>> = [
      {},
      { Authorization: 'Bearer wrong' },
      { Authorization: `Bearer ${SECRET.slice(0, -1)}` }, // a prefix
      { Authorization: `Bearer ${SECRET}x` }, // one character more
      { Authorization: `Bearer ${SECRET.slice(0, -1)}X` }, // same length, last character off
      { Authorization: `Basic ${Buffer.from(`user:${SECRET}`).toString('base64')}` },
    ];
    for (const headers of probes) {
      const result = await dial(url, { headers });
      assert.equal(result.status, 401, JSON.stringify(headers));
      assert.equal(result.body, '', 'nothing else is said');
    }
    const wrongProtocol = await dial(url, { protocols: ['accord.bearer.nope'] });
    assert.equal(wrongProtocol.status, 401);
  });

  test('the comparison hashes first: any length compares without throwing and only the exact secret matches', () => {
    assert.equal(secretMatches(undefined, SECRET), false);
    assert.equal(secretMatches('', SECRET), false);
    assert.equal(secretMatches('x'.repeat(10_000), SECRET), false);
    assert.equal(secretMatches(SECRET, SECRET), true);
  });

  test('a good secret works as a Bearer header and as the accord.bearer subprotocol (echoed back)', { timeout: 60_000 }, async () => {
    const viaHeader = await client();
    assert.ok(viaHeader);
    const viaProtocol = await dial(url, { protocols: [`accord.bearer.${SECRET}`] });
    assert.ok(viaProtocol.socket);
    assert.equal(viaProtocol.socket.protocol, `accord.bearer.${SECRET}`);
    viaProtocol.socket.close();
  });

  test('a foreign Origin is refused with 403 even with the secret; same-origin and --allow-origin are let in', { timeout: 60_000 }, async () => {
    const auth = { Authorization: `Bearer ${SECRET}` };
    const foreign = await dial(url, { headers: { ...auth, Origin: 'https://evil.example' } });
    assert.equal(foreign.status, 403);
    const host = new URL(url).host;
    const same = await dial(url, { headers: { ...auth, Origin: `http://${host}` } });
    assert.ok(same.socket);
    same.socket.close();
    const allowed = await dial(url, { headers: { ...auth, Origin: 'https://editor.example' } });
    assert.ok(allowed.socket);
    allowed.socket.close();
  });

  test('state is kept across reconnects: a client that drops mid-turn comes back and loads the finished session', { timeout: 90_000 }, async () => {
    const cwd = join(dir.path, 'project');
    mkdirSync(cwd, { recursive: true });
    const first = await client();
    const { sessionId } = await first.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    model.server.script({ type: 'stream', parts: Array.from({ length: 20 }, (_, i) => ({ text: `s${i} ` })), delayMs: 25 });
    void first.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] }).catch(() => undefined);
    await first.waitForUpdate((n) => n.update.sessionUpdate === 'agent_message_chunk');
    await first.close();
    const second = await client();
    const expected = Array.from({ length: 20 }, (_, i) => `s${i} `).join('');
    await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    await waitFor('the whole reply', () => messageText(second, sessionId) === expected);
  });

  test('a non-loopback bind without a chosen secret is refused', { timeout: 30_000 }, async () => {
    const child = spawn(process.execPath, [agentBundle, 'serve', '--bind', '0.0.0.0:0'], { env: { PATH: process.env.PATH, HOME: dir.path, ACCORD_HOME: join(dir.path, 'h2') }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (c) => (err += c));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(err, /not loopback, without a secret you chose/);
  });
});
