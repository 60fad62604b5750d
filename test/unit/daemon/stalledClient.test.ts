// A client of the daemon that stops reading (a frozen editor window, a
// suspended `accord acp`, a hostile local process): the other clients of the
// same session must go on, and the daemon must not keep the stalled client's
// unread output without bound. Real daemon, real socket, real bridges.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { agentBundle, fakeModelFor, messageText } from '../agent/harness';
import { daemonWorld, ensureBuilt, waitFor } from './fixtures';

before(() => ensureBuilt());

/** Says hello, initializes, loads `sessionId`, then stops reading (it keeps the socket open). */
async function stalledClient(socketPath: string, version: string, sessionId: string, cwd: string): Promise<{ socket: Socket }> {
  const socket = connect(socketPath);
  socket.on('error', () => undefined);
  let heard = '';
  const loaded = new Promise<void>((resolve) => {
    socket.on('data', (chunk) => {
      heard += chunk.toString();
      if (/"id":2,"result"/.test(heard)) resolve();
    });
  });
  socket.write(`${JSON.stringify({ accord: 'hello', version, flags: {} })}\n`);
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/load', params: { sessionId, cwd, mcpServers: [] } })}\n`);
  await loaded;
  socket.removeAllListeners('data');
  socket.pause();
  return { socket };
}

describe('attack: a client that stops reading', () => {
  const model = fakeModelFor('accord-stalled-config-');
  const world = daemonWorld('accord-stalled-', () => model.env());
  after(() => world.cleanup());

  test("another client's turns on the same session finish and it sees all of them; the stalled client is let go once its unread output passes the bound", { timeout: 180_000 }, async () => {
    // The daemon lets a client go after 2 s without progress (30 s by default), so the test is short.
    const daemon = spawn(process.execPath, [agentBundle, 'daemon', '--client-stall', '2s'], { env: world.env, stdio: 'ignore', detached: true });
    daemon.unref();
    const socketPath = join(world.home, 'run', 'daemon.sock');
    await waitFor('the daemon to listen', () => existsSync(socketPath));
    const cwd = join(world.root, 'project');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'notes.txt'), 'draft\n');
    const a = await world.bridge();
    const { sessionId } = await a.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    const status = JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout) as { version: string };
    const stalled = await stalledClient(socketPath, status.version, sessionId, cwd);

    // Each turn streams 8 MiB in 64 KiB parts; the stalled client reads none of it.
    const part = (turn: number, i: number) => `${String(turn).padStart(2, '0')}:${String(i).padStart(4, '0')}:${'x'.repeat(64 * 1024 - 9)}`;
    const turns = 6;
    let expected = '';
    for (let turn = 0; turn < turns; turn++) {
      const parts = Array.from({ length: 128 }, (_, i) => part(turn, i));
      expected += parts.join('');
      model.server.script({ type: 'stream', parts: parts.map((text) => ({ text })) });
      const { stopReason } = await a.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: `turn ${turn}` }] });
      assert.equal(stopReason, 'end_turn');
    }
    await waitFor('A to have every chunk', () => messageText(a, sessionId).length === expected.length, 60_000);
    assert.equal(messageText(a, sessionId), expected);
    // 48 MiB went out while the stalled client read nothing: the daemon let it go instead of holding it all.
    const clients = async () => (JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout) as { clients: number }).clients;
    await waitFor('the daemon to let the stalled connection go (A stays)', async () => (await clients()) === 1, 60_000, 500);
    stalled.socket.destroy();
    await a.close();
  });
});
