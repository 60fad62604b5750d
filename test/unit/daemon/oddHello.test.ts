// Hellos nobody sends on purpose, on the real daemon socket: a first line with
// no end, flags of the wrong types, an env with names outside the allowlist,
// the daemon's own settings, `__proto__` and NUL. The connection gets a clear
// answer or is closed; the daemon keeps serving, and nothing a hello says
// widens a session or reaches the daemon's own settings.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { fakeModelFor } from '../agent/harness';
import { daemonWorld, ensureBuilt } from './fixtures';

before(() => ensureBuilt());

/** Sends `lines` on a fresh connection and collects what comes back until the daemon closes it or `until` matches. */
function exchange(socketPath: string, payload: string | Buffer, until?: RegExp): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    let text = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ text, closed });
    };
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (until?.test(text)) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(payload);
  });
}

describe('attack: odd hellos on the daemon socket', () => {
  const model = fakeModelFor('accord-oddhello-config-');
  const world = daemonWorld('accord-oddhello-', () => model.env());
  after(() => world.cleanup());

  test('an endless first line, a non-hello and wrong-typed flags get an answer or a close; the daemon serves on and nothing is widened', { timeout: 120_000 }, async () => {
    const a = await world.bridge();
    const status = JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout) as { version: string; pid: number };
    const socketPath = join(world.home, 'run', 'daemon.sock');

    // 1 MiB without a newline: closed once past 64 KiB, never buffered whole.
    assert.equal((await exchange(socketPath, Buffer.alloc(1024 * 1024, 'a'))).closed, true);
    // JSON that is not a hello.
    assert.match((await exchange(socketPath, '[1,2,3]\n')).text, /expected a hello line first/);
    assert.match((await exchange(socketPath, `${JSON.stringify({ accord: { toString: 1 } })}\n`)).text, /expected a hello line first/);

    // Flags of the wrong types, env names outside the allowlist, the daemon's own settings, __proto__ and NUL.
    const cwd = join(world.root, 'project');
    mkdirSync(cwd);
    const hello = `{"accord":"hello","version":${JSON.stringify(status.version)},"flags":{"alwaysApprove":"yes","durableRequests":1,"project":{"x":1},"model":7,"env":{"__proto__":{"ACCORD_MODEL":"x"},"ACCORD_SANDBOX":"on","ACCORD_HOME":"/tmp/elsewhere","PATH":"/evil","OPENAI_API_KEY":"a\\u0000b","ACCORD_x.y":"1"}}}\n`;
    const init = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;
    const create = `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd, mcpServers: [] } })}\n`;
    const { text } = await exchange(socketPath, hello + init + create, /"id":2,"(result|error)"/);
    const answer = text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as any).find((m) => m.id === 2);
    assert.ok(answer?.result?.sessionId, text.slice(0, 2000));
    assert.equal(answer.result._meta?.['accord/alwaysApprove'], undefined, 'a string "yes" widened the session');
    assert.equal(answer.result._meta?.['accord/durableRequests'], undefined, 'a number widened the session');
    assert.equal(({} as Record<string, unknown>).ACCORD_MODEL, undefined, 'the prototype was touched');

    // The daemon is the same process, still serving, with its own data directory.
    const after = JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout) as { pid: number };
    assert.equal(after.pid, status.pid);
    const { sessionId } = await a.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    assert.ok(sessionId);
    await a.close();
  });
});
