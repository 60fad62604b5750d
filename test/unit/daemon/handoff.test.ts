// The one-shot hand-off socket (agent/daemon/handoff.ts) a launcher relays on:
// one connection, then gone; gone after its time too; only for a hello of the
// daemon's own version that asks for it with `handoff: true`.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { openHandoff } from '../../../agent/daemon/handoff';
import { handshake } from '../../../agent/daemon/connect';
import { tempDir } from '../agent/harness';
import { daemonWorld, ensureBuilt } from './fixtures';

const version = (JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version: string }).version;

/** Resolves with the connected socket, or the error code of a refused connect. */
function dial(path: string): Promise<Socket | string> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => resolve(socket));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('openHandoff: one connection, then nothing', () => {
  const dir = tempDir('accord-handoff-');
  after(() => dir.remove());
  const run = join(dir.path, 'run');
  mkdirSync(run, { mode: 0o700 });

  test('a 0600 socket with 128 random bits in its name; the first connection is handed over and the path removed at once', async () => {
    const handoff = (await openHandoff(run))!;
    assert.match(handoff.path, /\/handoff-[0-9a-f]{32}\.sock$/);
    assert.equal(statSync(handoff.path).mode & 0o777, 0o600);
    const client = await dial(handoff.path);
    assert.ok(typeof client !== 'string');
    const taken = await handoff.taken;
    assert.ok(taken, 'the connection is handed over');
    assert.equal(existsSync(handoff.path), false, 'unlinked as soon as it was taken');
    taken.destroy();
    client.destroy();
  });

  test('attack: connecting a second time finds nothing', async () => {
    const handoff = (await openHandoff(run))!;
    const first = await dial(handoff.path);
    const taken = await handoff.taken;
    const second = await dial(handoff.path);
    assert.equal(second, 'ENOENT');
    taken?.destroy();
    if (typeof first !== 'string') first.destroy();
  });

  test('attack: two clients racing for it: exactly one is served, the other is closed unread', async () => {
    const handoff = (await openHandoff(run))!;
    const [a, b] = await Promise.all([dial(handoff.path), dial(handoff.path)]);
    const taken = (await handoff.taken)!;
    taken.write('served\n');
    const outcome = (s: Socket | string) => {
      if (typeof s === 'string') return Promise.resolve('refused');
      return new Promise<string>((resolve) => {
        s.on('data', (c) => String(c).includes('\n') && resolve(String(c)));
        s.on('error', () => resolve('closed'));
        s.on('end', () => resolve('closed'));
      }).finally(() => s.destroy());
    };
    // The loser is refused, or (accepted in the same turn of the loop) closed unread.
    const results = (await Promise.all([outcome(a), outcome(b)])).sort();
    taken.destroy();
    assert.equal(results.filter((r) => r === 'served\n').length, 1, String(results));
    assert.ok(results.every((r) => ['served\n', 'closed', 'refused'].includes(r)), String(results));
  });

  test('attack: after its time it is gone, and `taken` says nobody came', async () => {
    const handoff = (await openHandoff(run, 50))!;
    assert.equal(await handoff.taken, undefined);
    assert.equal(existsSync(handoff.path), false);
    assert.equal(await dial(handoff.path), 'ENOENT');
  });

  test('a directory too long for a socket gets no hand-off (the launcher takes its Node path)', async () => {
    const long = join(run, 'x'.repeat(70));
    mkdirSync(long, { mode: 0o700 });
    assert.equal(await openHandoff(long), undefined);
  });
});

describe('the daemon answers a hand-off hello', () => {
  before(() => ensureBuilt());
  const world = daemonWorld('accord-handoff-daemon-');
  after(() => world.cleanup());
  const daemonSocket = () => join(world.home, 'run', 'daemon.sock');
  const hello = async (line: object) => {
    const socket = (await dial(daemonSocket())) as Socket;
    return handshake<Record<string, unknown>>(socket, line as never, 10_000).finally(() => socket.destroy());
  };

  before(async () => {
    await (await world.bridge()).close();
  });

  test('a hello of its own version with handoff: true gets a path in its private directory, served as a bridge would be', async () => {
    const welcome = await hello({ accord: 'hello', version, handoff: true, flags: { env: {} } });
    assert.deepEqual(Object.keys(welcome), ['accord', 'version', 'pid', 'handoff'], 'the key order the launcher matches');
    assert.equal(welcome.handoff, join(world.home, 'run', `handoff-${(welcome.handoff as string).slice(-37, -5)}.sock`));
    const relay = (await dial(welcome.handoff as string)) as Socket;
    relay.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
    const answer = await new Promise<string>((resolve) => relay.once('data', (c) => resolve(String(c))));
    assert.match(answer, /^\{"jsonrpc":"2.0","id":1,"result":\{"protocolVersion":1/, 'no second welcome: ACP from the first byte');
    relay.destroy();
  });

  test('attack: a hello of another version gets a plain welcome (no path) and does not retire the daemon', async () => {
    const welcome = await hello({ accord: 'hello', version: '9.9.9', handoff: true, flags: {} });
    assert.equal(welcome.handoff, undefined);
    const status = JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout);
    assert.equal(status.retiring, false);
  });

  test('attack: hostile hand-off fields: handoff not exactly true is an ordinary hello; odd flags are dropped as for a bridge', async () => {
    for (const handoff of ['true', 1, { path: '/tmp/x' }]) {
      const welcome = await hello({ accord: 'hello', version, handoff, flags: {} });
      assert.equal(welcome.handoff, undefined, JSON.stringify(handoff));
    }
    const welcome = await hello({ accord: 'hello', version, handoff: true, flags: { alwaysApprove: 'yes', project: 42, env: { ACCORD_HOME: '/elsewhere', 'ACCORD_A"B': 'x' } } });
    assert.equal(typeof welcome.handoff, 'string');
    const relay = (await dial(welcome.handoff as string)) as Socket;
    relay.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
    assert.match(await new Promise<string>((resolve) => relay.once('data', (c) => resolve(String(c)))), /"id":1,"result"/);
    relay.destroy();
  });
});
