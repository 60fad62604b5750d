// The extension's own connection to the daemon (extension/agents/daemonLink.ts),
// against a real daemon from dist/: it starts one when none answers, speaks
// ACP on the socket with the flags a bridge would pass, ends like the bridge
// when the daemon dies (and the next link starts a new daemon that loads the
// session), says so on a version mismatch, and refuses every socket the
// bridge refuses, and every listener that is not the daemon.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { methods, ndJsonStream } from '@agentclientprotocol/sdk/unstable';
import { reply } from '../../fakeModelServer/index';
import { DaemonLink, type LinkCommand, type LinkOptions } from '../../../extension/agents/daemonLink';
import { agentBundle, fakeModelFor, harnessOverStream, tempDir, type Harness } from '../agent/harness';
import { daemonWorld, ensureBuilt, pidAlive, plantedListener, waitFor } from '../daemon/fixtures';

before(() => ensureBuilt());

const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

interface Linked extends Harness {
  link: DaemonLink;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function linked(env: Record<string, string | undefined>, args: string[] = [], options: LinkOptions = {}, cwd?: string): Linked {
  const command: LinkCommand = { command: process.execPath, args: [agentBundle, 'acp', ...args], env: strings(env), cwd };
  const link = new DaemonLink(command, { version, ...options });
  let stderr = '';
  link.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => link.once('exit', (code, signal) => resolve({ code, signal })));
  const harness = harnessOverStream(
    ndJsonStream(Writable.toWeb(link.stdin) as WritableStream<Uint8Array>, Readable.toWeb(link.stdout) as ReadableStream<Uint8Array>),
    async () => {
      link.stdin.end();
      await exited;
    },
  );
  return Object.assign(harness, { link, stderr: () => stderr, exited });
}

const strings = (env: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));

describe('the extension connects to the daemon itself', () => {
  const model = fakeModelFor('accord-direct-config-');
  const world = daemonWorld('accord-direct-', () => model.env());
  after(() => world.cleanup());
  const texts = (h: Harness, sessionId: string) =>
    h.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk').map((n) => (n.update as { content: { text: string } }).content.text);

  test('starts the daemon when none answers, runs a turn on the socket with its flags, and leaves the daemon running when it ends', { timeout: 120_000 }, async () => {
    await world.stopDaemon();
    const cwd = join(world.root, 'project-happy');
    mkdirSync(cwd);
    const a = linked(world.env, ['--durable-requests', '--always-approve'], {}, cwd);
    await a.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const pid = world.daemonPid();
    assert.ok(pid && pidAlive(pid), 'the daemon runs');
    assert.equal(a.link.daemonPid, pid, 'the welcome named the daemon that holds the lock');
    const created = await a.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    assert.equal(created._meta?.['accord/alwaysApprove'], true, 'the flags passed at connect reach the session');
    model.server.script(reply.text('Hello from the daemon.'));
    assert.equal(await a.prompt(created.sessionId, 'hi'), 'end_turn');
    assert.equal(texts(a, created.sessionId).join(''), 'Hello from the daemon.');
    const status = JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout) as { clients: number; retiring: boolean };
    assert.equal(status.clients, 1);
    assert.equal(status.retiring, false, 'the same version: the daemon stays');
    await a.close();
    assert.deepEqual(await a.exited, { code: 0, signal: null }, 'the client ended: status 0, as the bridge');
    assert.equal(a.stderr(), '', 'nothing to report');
    assert.ok(pidAlive(pid!), 'the daemon outlives its client');
  });

  test('kill() drops the connection (exit with the signal) and the daemon carries on', { timeout: 120_000 }, async () => {
    const a = linked(world.env);
    await a.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const pid = a.link.daemonPid!;
    assert.equal(a.link.kill(), true);
    assert.deepEqual(await a.exited, { code: null, signal: 'SIGTERM' });
    await waitFor('the daemon to see the client gone', async () => JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout).clients === 0);
    assert.ok(pidAlive(pid));
  });

  test('the daemon killed mid-turn: the link ends with status 1 as the bridge did; the next link starts a new daemon that loads the session', { timeout: 180_000 }, async () => {
    const cwd = join(world.root, 'project-crash');
    mkdirSync(cwd);
    const a = linked(world.env, ['--durable-requests'], {}, cwd);
    await a.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await a.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    // 10 s of stream: the kill comes long before its end, however loaded the machine.
    model.server.script({ type: 'stream', parts: Array.from({ length: 200 }, (_, i) => ({ text: `c${i} ` })), delayMs: 50 });
    void a.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'stream a lot' }] }).catch(() => undefined);
    await waitFor('chunks to flow', () => texts(a, sessionId).length >= 20);
    const first = a.link.daemonPid!;
    process.kill(first, 'SIGKILL');
    assert.deepEqual(await a.exited, { code: 1, signal: null }, 'what AgentHost sees: the agent exited with code 1, so it restarts it');
    assert.match(a.stderr(), /the daemon closed the connection/);
    const seen = texts(a, sessionId);
    // The kernel may close the killed daemon's connections before its listening socket: a link made in
    // that moment reaches the dying daemon and ends with status 1 too (AgentHost then restarts it).
    await waitFor('the killed daemon to be gone', () => !pidAlive(first));

    // As AgentHost does after a status 1: a link that ends before its initialize is answered is made
    // again (a new daemon's start can meet what the killed one left, a moment longer on a loaded machine).
    let b = linked(world.env, ['--durable-requests'], {}, cwd);
    for (let attempt = 1; ; attempt++) {
      const answered = await b.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} }).then(() => true, () => false);
      if (answered) break;
      const ended = await b.exited;
      assert.ok(attempt < 3 && ended.code === 1, `the link after the kill: ${JSON.stringify(ended)}, stderr: ${b.stderr()}`);
      b = linked(world.env, ['--durable-requests'], {}, cwd);
    }
    assert.notEqual(b.link.daemonPid, first, 'a new daemon serves');
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] }).catch((error: unknown) => {
      throw new Error(`session/load after the kill: ${String(error)}; stderr: ${b.stderr()}`);
    });
    const replayed = texts(b, sessionId);
    assert.deepEqual(replayed.slice(0, seen.length), seen, 'the load gives back every chunk the client saw, in order');
    assert.match(replayed.at(-1)!, /This turn was interrupted/);
    await b.close();
  });

  test('a daemon of another version: served, said on stderr, and it retires once idle', { timeout: 120_000 }, async () => {
    const current = linked(world.env);
    await current.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const old = current.link.daemonPid!;
    const other = linked(world.env, [], { version: '9.9.9' });
    const init = await other.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(init.agentInfo?.name, 'accord', 'the connection is served as it is');
    assert.match(other.stderr(), /the running daemon is version [\d.]+(-dev)?, this extension is 9\.9\.9/);
    const status = JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout) as { retiring: boolean };
    assert.equal(status.retiring, true);
    await other.close();
    await current.close();
    await waitFor('the old daemon to exit once idle', () => !pidAlive(old));
  });

  test('when the daemon cannot be used at all, the agent is served in a process of its own', { timeout: 120_000 }, async () => {
    const blocker = join(world.root, 'not-a-dir');
    writeFileSync(blocker, 'a file where the socket directory would go');
    const a = linked(world.env, ['--daemon', join(blocker, 'sub', 'daemon.sock')]);
    const init = await a.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(init.agentInfo?.name, 'accord');
    assert.match(a.stderr(), /the daemon cannot be used .*serving in a process of its own instead/);
    await a.close();
    assert.equal((await a.exited).code, 0);
  });
});

describe('attack: the link trusts only a private socket of this user, and only a daemon behind it', () => {
  const dir = tempDir('accord-direct-sock-');
  after(() => dir.remove());
  const env = (home: string) => ({ PATH: process.env.PATH, HOME: dir.path, ACCORD_CONFIG_DIR: dir.path, ACCORD_LOCAL_SERVERS: '', ACCORD_HOME: home });

  /** A listener at `path` that is not the daemon: `answer` decides what it says to a connection. */
  async function refused(home: string, pattern: RegExp, options: LinkOptions = {}): Promise<string> {
    const a = linked(env(home), [], options);
    const initialized = a.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    initialized.catch(() => undefined);
    assert.deepEqual(await a.exited, { code: 1, signal: null });
    assert.match(a.stderr(), pattern);
    await assert.rejects(initialized, 'no initialize answer comes from a refused socket');
    return a.stderr();
  }

  const privateRun = (name: string) => {
    const home = join(dir.path, name);
    mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
    return home;
  };

  test('a socket others can reach is refused, never connected to', { timeout: 60_000 }, async () => {
    const home = privateRun('loose');
    const listener = await plantedListener(join(home, 'run', 'daemon.sock'), 0o666);
    try {
      await refused(home, /refusing the daemon socket: .*reachable by other users \(mode 666\)/);
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  test('a directory others can enter is refused', { timeout: 60_000 }, async () => {
    const home = join(dir.path, 'opendir');
    mkdirSync(join(home, 'run'), { recursive: true });
    chmodSync(join(home, 'run'), 0o755);
    const listener = await plantedListener(join(home, 'run', 'daemon.sock'), 0o600);
    try {
      await refused(home, /must be 0700/);
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  test('a symlinked socket is refused', { timeout: 60_000 }, async () => {
    const elsewhere = join(dir.path, 'elsewhere-sock');
    mkdirSync(elsewhere, { mode: 0o700 });
    const listener = await plantedListener(join(elsewhere, 'real.sock'), 0o600);
    const home = privateRun('linked-sock');
    symlinkSync(join(elsewhere, 'real.sock'), join(home, 'run', 'daemon.sock'));
    try {
      await refused(home, /daemon\.sock is a symbolic link/);
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  test('a symlinked socket directory is refused', { timeout: 60_000 }, async () => {
    const elsewhere = join(dir.path, 'elsewhere-dir');
    mkdirSync(elsewhere, { mode: 0o700 });
    const listener = await plantedListener(join(elsewhere, 'daemon.sock'), 0o600);
    const home = join(dir.path, 'linked-dir');
    mkdirSync(home);
    symlinkSync(elsewhere, join(home, 'run'));
    try {
      await refused(home, /run is a symbolic link/);
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  test("a socket owned by another user is refused", { skip: process.getuid?.() !== 0 ? 'needs root to chown' : false, timeout: 60_000 }, async () => {
    const home = privateRun('foreign');
    const listener = await plantedListener(join(home, 'run', 'daemon.sock'), 0o600);
    chownSync(join(home, 'run', 'daemon.sock'), 65534, 65534);
    try {
      await refused(home, /belongs to user 65534/);
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  test('a listener that answers the hello with something else is given up on with a clear error', { timeout: 60_000 }, async () => {
    const home = privateRun('bad-welcome');
    const listener = await plantedListener(join(home, 'run', 'daemon.sock'), 0o600, (socket) => socket.write('HTTP/1.1 400 Bad Request\r\n\r\n'));
    try {
      await refused(home, /answered something unexpected: HTTP\/1\.1 400/);
    } finally {
      await listener.close();
    }
  });

  test('an oversized first line is cut off at 64 KiB, not buffered without end', { timeout: 60_000 }, async () => {
    const home = privateRun('huge-welcome');
    const listener = await plantedListener(join(home, 'run', 'daemon.sock'), 0o600, (socket) => socket.write('x'.repeat(1024 * 1024)));
    try {
      await refused(home, /longer than 64 KiB/);
    } finally {
      await listener.close();
    }
  });

  test('a listener that never answers is waited for only so long, then named', { timeout: 60_000 }, async () => {
    const home = privateRun('silent');
    const listener = await plantedListener(join(home, 'run', 'daemon.sock'), 0o600, () => undefined);
    try {
      await refused(home, /no welcome from the daemon at \S+daemon\.sock: the daemon socket did not answer within 0\.3 s; is it an Accord daemon\?/, { welcomeTimeoutMs: 300 });
      assert.match(listener.heard(), /"accord":"hello"/, 'it got the hello (as the bridge sends it) and nothing was served');
    } finally {
      await listener.close();
    }
  });
});
