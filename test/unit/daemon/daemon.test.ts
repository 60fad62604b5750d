// The per-user daemon as real processes: `accord acp` starts it when none
// answers, concurrent starts leave one daemon, its socket is private, a
// foreign or loose socket is refused, it exits when idle, and the bridge
// serves in-process when the socket cannot be used.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { unsafeReason } from '../../../agent/daemon/address';
import { childAgent, tempDir } from '../agent/harness';
import { daemonWorld, ensureBuilt, pidAlive, plantedListener, waitFor } from './fixtures';

before(() => ensureBuilt());

describe('accord daemon lifecycle', () => {
  const world = daemonWorld('accord-daemon-');
  after(() => world.cleanup());

  test('the first bridge starts the daemon on a 0600 socket in a 0700 directory; status lists it; stop ends it', { timeout: 120_000 }, async () => {
    const bridge = await world.bridge();
    const info = bridge.connection;
    assert.ok(info);
    const run = join(world.home, 'run');
    assert.equal(statSync(run).mode & 0o777, 0o700);
    assert.equal(statSync(join(run, 'daemon.sock')).mode & 0o777, 0o600);
    const pid = world.daemonPid();
    assert.ok(pid && pidAlive(pid), 'the daemon runs');
    assert.notEqual(pid, bridge.child.pid, 'the daemon is its own process');
    // Clients that kill their agent's whole process tree (acpx does) must not reach the daemon.
    const ancestors = (p: number): number[] => {
      const chain: number[] = [];
      for (let at = p; at > 1; ) {
        const stat = readFileSync(`/proc/${at}/stat`, 'utf8');
        at = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        chain.push(at);
      }
      return chain;
    };
    assert.ok(!ancestors(pid!).includes(bridge.child.pid!), 'the daemon is not a descendant of the bridge that started it');
    const status = await world.cli(['daemon', 'status', '--json']);
    assert.equal(status.code, 0, status.stderr);
    const parsed = JSON.parse(status.stdout);
    assert.equal(parsed.running, true);
    assert.equal(parsed.pid, pid);
    assert.equal(parsed.clients, 1);
    await bridge.close();
    const stopped = await world.cli(['daemon', 'stop']);
    assert.equal(stopped.code, 0, stopped.stderr);
    await waitFor('the daemon to exit', () => !pidAlive(pid!));
    const again = await world.cli(['daemon', 'status']);
    assert.equal(again.code, 3, 'status says none runs');
    assert.match(again.stdout, /No Accord daemon is running/);
  });

  test('the launcher (a shell on POSIX) leaves the daemon no ignored SIGINT: Ctrl-C and kill -INT still stop it', { timeout: 120_000 }, async () => {
    await world.stopDaemon();
    const bridge = await world.bridge();
    const pid = world.daemonPid();
    assert.ok(pid && pidAlive(pid), 'the daemon runs');
    // A shell starts an asynchronous command with SIGINT and SIGQUIT ignored; Node resets that at start-up.
    const ignored = BigInt(`0x${/^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0'}`);
    assert.equal(ignored & ((1n << 1n) | (1n << 2n)), 0n, 'neither SIGINT (2) nor SIGQUIT (3) is ignored');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.ok(environ.includes('MALLOC_ARENA_MAX=2'), "glibc's arenas are capped for the long-lived daemon");
    await bridge.close();
    process.kill(pid!, 'SIGINT');
    await waitFor('the daemon to exit on SIGINT', () => !pidAlive(pid!));
    const status = await world.cli(['daemon', 'status']);
    assert.equal(status.code, 3, 'status says none runs');
  });

  test('a daemon that cannot start is reported with its log, never waited for until the deadline', { timeout: 120_000 }, async () => {
    await world.stopDaemon();
    // The launcher runs the daemon from a bundle path that does not exist: the shell echoes a pid that dies at once.
    const { connectOrStart } = await import('../../../agent/daemon/connect');
    const { addressAt } = await import('../../../agent/daemon/address');
    const dir = join(world.home, 'broken-run');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const logPath = join(world.home, 'broken-daemon.log');
    await assert.rejects(
      connectOrStart(addressAt(join(dir, 'daemon.sock')), { cliPath: join(world.home, 'no-such-agent.js'), explicit: true, logPath, timeoutMs: 100_000 }),
      /exited before listening/,
    );
    assert.match(readFileSync(logPath, 'utf8'), /no-such-agent\.js/, "the daemon log has the runtime's own complaint");
  });

  test('four bridges starting at once leave exactly one daemon', { timeout: 120_000 }, async () => {
    await world.stopDaemon();
    const bridges = await Promise.all([0, 1, 2, 3].map(() => world.bridge()));
    const pid = world.daemonPid();
    assert.ok(pid && pidAlive(pid));
    const status = JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout);
    assert.equal(status.pid, pid);
    assert.equal(status.clients, 4, 'every bridge reached the same daemon');
    const log = readFileSync(join(world.home, 'daemon.log'), 'utf8');
    const listening = log.split('\n').filter((line) => line.includes(`(pid ${pid}) listening`));
    assert.equal(listening.length, 1);
    const others = [...log.matchAll(/\(pid (\d+)\) listening/g)].map((m) => Number(m[1])).filter((p) => p !== pid);
    for (const other of others) assert.equal(pidAlive(other), false, 'a daemon that lost the race is gone');
    for (const bridge of bridges) await bridge.close();
  });

  test('a bridge of another version says so, is served, and the daemon restarts once idle', { timeout: 120_000 }, async () => {
    await world.stopDaemon();
    const current = await world.bridge();
    const old = world.daemonPid()!;
    const other = await world.bridge([], { ACCORD_BRIDGE_VERSION_FOR_TESTS: '9.9.9' });
    await waitFor('the mismatch message', () => /the running daemon is version [\d.]+(-dev)?, this bridge is 9\.9\.9/.test(other.stderr.join('')));
    const status = JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout);
    assert.equal(status.retiring, true, 'the daemon steps down once idle');
    assert.equal(pidAlive(old), true, 'not while clients are attached');
    await other.close();
    await current.close();
    await waitFor('the old daemon to exit once idle', () => !pidAlive(old));
    const next = await world.bridge();
    assert.notEqual(world.daemonPid(), old, 'the next bridge started a fresh daemon');
    await next.close();
  });

  test('accord --help documents every spelling', async () => {
    const help = await world.cli(['--help']);
    assert.equal(help.code, 0);
    for (const spelling of [
      'accord acp [agent options] [--daemon <address>]',
      'accord acp serve',
      'dist/accord acp',
      'node dist/agent.js acp',
      'accord agent [agent options] stdio',
      '--always-approve',
      '--durable-requests',
      '--model <id>',
      '--project <dir>',
      'accord daemon [--listen <address>] [--idle-exit <duration>] [--client-stall <duration>]',
      'accord daemon status',
      'accord daemon stop',
      'accord agent [agent options] serve --bind 127.0.0.1:2419 [--secret <token>]',
      'accord serve',
      'ACCORD_AGENT_SECRET',
      'accord.bearer.<secret>',
      '--allow-origin',
      'accord agent [agent options] headless --relay-url wss://',
      'accord -p "<prompt>" [--cwd <dir>] [--model <id>] [--format text|json] [--always-approve]',
      'accord sessions',
      'accord login',
    ]) {
      assert.ok(help.stdout.includes(spelling), `--help mentions ${spelling}`);
    }
  });

  test('exits by itself once idle for --idle-exit', { timeout: 120_000 }, async () => {
    await world.stopDaemon();
    const bridge = await world.bridge([], { ACCORD_DAEMON_IDLE_EXIT: '1s' });
    const pid = world.daemonPid()!;
    await bridge.close();
    await waitFor('the idle daemon to exit', () => !pidAlive(pid));
    assert.match(readFileSync(join(world.home, 'daemon.log'), 'utf8'), /idle for 1 s; exiting/);
  });
});

describe('the daemon socket is the security boundary', () => {
  const dir = tempDir('accord-daemon-sock-');
  after(() => dir.remove());
  const env = (home: string) => ({ PATH: process.env.PATH, HOME: dir.path, ACCORD_CONFIG_DIR: dir.path, ACCORD_LOCAL_SERVERS: '', ACCORD_HOME: home });

  test('a socket others can reach is refused, never connected to', { timeout: 60_000 }, async () => {
    const home = join(dir.path, 'loose');
    mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
    const planted = await plantedListener(join(home, 'run', 'daemon.sock'), 0o666);
    try {
      const bridge = childAgent(env(home), [], { bridge: true });
      const code = await new Promise<number | null>((resolve) => bridge.child.on('exit', (c) => resolve(c)));
      assert.equal(code, 1);
      assert.match(bridge.stderr.join(''), /refusing the daemon socket: .*reachable by other users \(mode 666\)/);
      assert.equal(planted.connections(), 0);
    } finally {
      await planted.close();
    }
  });

  test('a directory others can enter is refused', { timeout: 60_000 }, async () => {
    const home = join(dir.path, 'opendir');
    mkdirSync(join(home, 'run'), { recursive: true });
    chmodSync(join(home, 'run'), 0o755);
    const planted = await plantedListener(join(home, 'run', 'daemon.sock'), 0o600);
    try {
      const result = childAgent(env(home), [], { bridge: true });
      const code = await new Promise<number | null>((resolve) => result.child.on('exit', (c) => resolve(c)));
      assert.equal(code, 1);
      assert.match(result.stderr.join(''), /must be 0700/);
      assert.equal(planted.connections(), 0);
    } finally {
      await planted.close();
    }
  });

  test("another user's socket or directory is refused (ownership check)", () => {
    const me = process.getuid!();
    const socketStats = { uid: me + 1, mode: 0o140600, isSymbolicLink: () => false, isDirectory: () => false, isSocket: () => true };
    assert.match(unsafeReason('socket', '/run/x.sock', socketStats, me)!, /belongs to user \d+, not to you/);
    const dirStats = { uid: me + 1, mode: 0o40700, isSymbolicLink: () => false, isDirectory: () => true, isSocket: () => false };
    assert.match(unsafeReason('directory', '/run', dirStats, me)!, /another user's daemon/);
    assert.match(unsafeReason('socket', '/run/x.sock', { ...socketStats, uid: me, isSymbolicLink: () => true }, me)!, /symbolic link/);
    assert.equal(unsafeReason('socket', '/run/x.sock', { ...socketStats, uid: me }, me), undefined);
  });

  test("as root, a real socket chowned to another user is refused", { skip: process.getuid?.() !== 0 ? 'needs root to chown' : false, timeout: 60_000 }, async () => {
    const { chownSync } = await import('node:fs');
    const home = join(dir.path, 'foreign');
    mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
    const planted = await plantedListener(join(home, 'run', 'daemon.sock'), 0o600);
    chownSync(join(home, 'run', 'daemon.sock'), 65534, 65534);
    try {
      const bridge = childAgent(env(home), [], { bridge: true });
      const code = await new Promise<number | null>((resolve) => bridge.child.on('exit', (c) => resolve(c)));
      assert.equal(code, 1);
      assert.match(bridge.stderr.join(''), /belongs to user 65534/);
      assert.equal(planted.connections(), 0);
    } finally {
      await planted.close();
    }
  });

  test('attack: a listener that never answers the hello is given up after a bounded wait, with a message naming why', { timeout: 90_000 }, async () => {
    const home = join(dir.path, 'silent');
    mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
    const planted = await plantedListener(join(home, 'run', 'daemon.sock'), 0o600, () => undefined); // accepts and never says a word
    try {
      const bridge = childAgent(env(home), [], { bridge: true });
      const code = await new Promise<number | null>((resolve) => bridge.child.on('exit', (c) => resolve(c)));
      assert.equal(code, 1, 'the editor sees the agent end and can say so, instead of waiting forever');
      assert.match(bridge.stderr.join(''), /did not answer within 15\.0 s; is it an Accord daemon\?/);
      assert.equal(planted.connections(), 1);
    } finally {
      await planted.close();
    }
  });

  test('when the socket cannot be used at all, the bridge serves in its own process', { timeout: 60_000 }, async () => {
    const blocker = join(dir.path, 'not-a-dir');
    writeFileSync(blocker, 'a file where the socket directory would go');
    const home = join(dir.path, 'fallback');
    const bridge = childAgent(env(home), ['--daemon', join(blocker, 'sub', 'daemon.sock')], { bridge: true });
    try {
      const init = await bridge.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      assert.equal(init.agentInfo?.name, 'accord');
      assert.match(bridge.stderr.join(''), /the daemon cannot be used .*serving in this process instead/);
    } finally {
      await bridge.close();
    }
  });
});
