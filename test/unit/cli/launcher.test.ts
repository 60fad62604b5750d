// dist/accord as an editor runs it: `accord acp` with the daemon running ends
// as socat on a one-shot hand-off socket (a 4 MB relay instead of a Node
// bridge); anything else, or any doubt about the socket, runs the Node entry,
// which starts the daemon, refuses unsafe sockets and handles versions.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { reply } from '../../fakeModelServer/index';
import { childAgent, fakeModelFor, messageText, tempDir, type ChildHarness } from '../agent/harness';
import { daemonWorld, ensureBuilt, pidAlive, plantedListener, waitFor } from '../daemon/fixtures';

const launcher = join(process.cwd(), 'dist/accord');
const version = (JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version: string }).version;
const socat = spawnSync('sh', ['-c', 'command -v socat']).status === 0;
const skip = process.platform !== 'linux' || !socat ? 'the fast path needs Linux and socat' : false;

before(() => ensureBuilt());

/** What the process is now: `socat` once the launcher has exec'd it, `node` on the Node path. */
const commOf = (pid: number) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim();

/** Processes (other than `except`) whose command line mentions `text`. */
function processesMentioning(text: string, except: number[] = []): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || except.includes(Number(entry)) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(text) && pidAlive(Number(entry))) found.push(`${entry}: ${cmdline}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const exited = (h: ChildHarness) =>
  new Promise<number | null>((resolve) => (h.child.exitCode !== null || h.child.signalCode !== null ? resolve(h.child.exitCode) : h.child.once('exit', (code) => resolve(code))));

describe('dist/accord acp with the daemon running: socat on a hand-off socket', { skip }, () => {
  const model = fakeModelFor('accord-launcher-config-');
  const world = daemonWorld('accord-launcher-', () => model.env());
  after(() => world.cleanup());
  const launched: ChildHarness[] = [];
  after(async () => {
    for (const h of launched) await h.close().catch(() => undefined);
  });
  const run = (args: string[] = [], extraEnv: Record<string, string> = {}, path = launcher) => {
    const h = childAgent({ ...world.env, ...extraEnv }, args, { launcher: path });
    launched.push(h);
    return h;
  };
  const clients = async () => JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout).clients as number;
  const project = () => {
    const dir = join(world.root, `project-${Math.random().toString(36).slice(2)}`);
    mkdirSync(dir);
    return dir;
  };

  test('with no daemon the launcher runs the Node bridge, which starts one; the next launcher is socat', { timeout: 120_000 }, async () => {
    const first = run();
    await first.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(commOf(first.child.pid!), 'node', 'no daemon answered: the Node path');
    assert.ok(world.daemonPid(), 'the Node bridge started the daemon');
    const second = run();
    await second.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(commOf(second.child.pid!), 'socat');
    await first.close();
    await second.close();
  });

  test('initialize, session/new and a streamed prompt through socat; two launchers share the daemon', { timeout: 120_000 }, async () => {
    const a = run();
    const b = run();
    const cwd = project();
    const sessionId = await a.newSession(cwd);
    await b.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(commOf(a.child.pid!), 'socat');
    assert.equal(commOf(b.child.pid!), 'socat');
    await waitFor('both connections in the daemon', async () => (await clients()) === 2);
    model.server.script(reply.text('Streamed through socat.', { delayMs: 1 }));
    assert.equal(await a.prompt(sessionId, 'hello'), 'end_turn');
    assert.equal(messageText(a, sessionId), 'Streamed through socat.');
    // B attaches to A's session over its own hand-off: the daemon serves both.
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    assert.match(messageText(b, sessionId), /Streamed through socat\./);
    await a.close();
    await b.close();
    assert.deepEqual(readdirSync(join(world.home, 'run')).filter((n) => n.startsWith('handoff-')), [], 'every hand-off path is gone');
  });

  test("the hello's env reaches the daemon: the model named in the launcher's env is the one prompted", { timeout: 120_000 }, async () => {
    const h = run([], { ACCORD_MODEL: `openai-compatible:${model.server.baseUrl}#from-the-launcher` });
    const sessionId = await h.newSession(project());
    assert.equal(commOf(h.child.pid!), 'socat');
    model.server.script(reply.text('ok'));
    const before = model.server.requests.length;
    await h.prompt(sessionId, 'which model?');
    assert.equal(model.server.requests[before]?.body?.model, 'from-the-launcher');
    await h.close();
  });

  test('stdin closed: socat ends, the daemon drops the connection, nothing is left running', { timeout: 60_000 }, async () => {
    const h = run();
    await h.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const pid = h.child.pid!;
    assert.equal(commOf(pid), 'socat');
    await waitFor('the connection in the daemon', async () => (await clients()) === 1);
    h.child.stdin!.end();
    assert.equal(await exited(h), 0);
    await waitFor('the daemon to drop it', async () => (await clients()) === 0);
    assert.deepEqual(processesMentioning(join(world.home, 'run', 'handoff-'), [world.daemonPid()!]), []);
  });

  test('SIGTERM to the launcher ends socat and the connection; nothing is left running', { timeout: 60_000 }, async () => {
    const h = run();
    await h.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(commOf(h.child.pid!), 'socat');
    await waitFor('the connection in the daemon', async () => (await clients()) === 1);
    h.child.kill('SIGTERM');
    await exited(h);
    assert.ok(!pidAlive(h.child.pid!));
    await waitFor('the daemon to drop it', async () => (await clients()) === 0);
    assert.deepEqual(processesMentioning(join(world.home, 'run', 'handoff-'), [world.daemonPid()!]), []);
  });

  test('the daemon killed (-9): socat ends on its own, with no process left; the next launcher starts a daemon again', { timeout: 120_000 }, async () => {
    const h = run();
    await h.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(commOf(h.child.pid!), 'socat');
    const pid = world.daemonPid()!;
    process.kill(pid, 'SIGKILL');
    // socat sees the end of the socket (exit status 0, unlike the Node bridge's 1: see agent/daemon/README.md).
    assert.equal(await exited(h), 0);
    await waitFor('the daemon to be gone', () => !pidAlive(pid));
    const next = run();
    await next.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(commOf(next.child.pid!), 'node', 'no daemon: the Node bridge, which starts one');
    await next.close();
  });

  test('arguments other than exactly `acp` take the Node path', { timeout: 60_000 }, async () => {
    const h = run(['--always-approve']);
    await h.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(commOf(h.child.pid!), 'node', 'a flag is the Node bridge\'s to send');
    await h.close();
    const versionOut = spawnSync(launcher, ['--version'], { env: world.env as NodeJS.ProcessEnv, encoding: 'utf8' });
    assert.equal(versionOut.stdout.trim(), version);
    const help = spawnSync(launcher, ['--help'], { env: world.env as NodeJS.ProcessEnv, encoding: 'utf8' });
    assert.match(help.stdout, /dist\/accord acp/);
  });

  test('attack: $0 through a chain of symlinks (relative and absolute, as npm link makes) still finds dist/', { timeout: 60_000 }, async () => {
    const bin = join(world.root, 'chain', 'bin');
    const lib = join(world.root, 'chain', 'lib', 'node_modules', 'accord');
    mkdirSync(bin, { recursive: true });
    mkdirSync(join(lib, '..'), { recursive: true });
    symlinkSync(process.cwd(), lib); // the package dir is itself a link (npm link)
    symlinkSync('../lib/node_modules/accord/dist/accord', join(bin, 'accord-1'));
    symlinkSync(join(bin, 'accord-1'), join(bin, 'accord'));
    const out = spawnSync(join(bin, 'accord'), ['--version'], { env: world.env as NodeJS.ProcessEnv, encoding: 'utf8' });
    assert.equal(out.stdout.trim(), version, out.stderr);
    const h = run([], {}, join(bin, 'accord'));
    await h.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(commOf(h.child.pid!), 'socat');
    await h.close();
  });

  test('attack: a launcher of another version takes the Node path; the daemon makes no hand-off for it and does not retire', { timeout: 60_000 }, async () => {
    const other = join(world.root, 'other-version');
    mkdirSync(other);
    writeFileSync(join(other, 'accord'), readFileSync(launcher, 'utf8').replace(`accord_version='${version}'`, "accord_version='9.9.9'"), { mode: 0o755 });
    symlinkSync(join(process.cwd(), 'dist', 'agent.js'), join(other, 'agent.js'));
    const pid = world.daemonPid();
    const h = run([], {}, join(other, 'accord'));
    await h.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(commOf(h.child.pid!), 'node');
    assert.deepEqual(readdirSync(join(world.home, 'run')).filter((n) => n.startsWith('handoff-')), []);
    const status = JSON.parse((await world.cli(['daemon', 'status', '--json'])).stdout);
    assert.equal(status.pid, pid, 'the same daemon serves it');
    assert.equal(status.retiring, false, 'the Node bridge of this build is of its version');
    await h.close();
  });
});

describe('dist/accord refuses what the Node bridge refuses: planted and stale sockets', { skip }, () => {
  const dir = tempDir('accord-launcher-sock-');
  after(() => dir.remove());
  const env = (home: string) => ({ PATH: process.env.PATH, HOME: dir.path, ACCORD_CONFIG_DIR: dir.path, ACCORD_LOCAL_SERVERS: '', ACCORD_HOME: home, ACCORD_SANDBOX: 'off' });
  const refusal = async (home: string, message: RegExp) => {
    const h = childAgent(env(home), [], { launcher });
    const code = await exited(h);
    assert.equal(code, 1, h.stderr.join(''));
    assert.match(h.stderr.join(''), message, 'the Node path reports it');
  };
  const planted = async (name: string, dirMode: number, sockMode: number) => {
    const home = join(dir.path, name);
    mkdirSync(join(home, 'run'), { recursive: true });
    chmodSync(join(home, 'run'), dirMode);
    return { home, listener: await plantedListener(join(home, 'run', 'daemon.sock'), sockMode) };
  };

  test('attack: a socket others can reach (0666) is never connected to', { timeout: 60_000 }, async () => {
    const { home, listener } = await planted('loose', 0o700, 0o666);
    try {
      await refusal(home, /reachable by other users \(mode 666\)/);
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  test('attack: a directory others can enter (0755) is never used', { timeout: 60_000 }, async () => {
    const { home, listener } = await planted('opendir', 0o755, 0o600);
    try {
      await refusal(home, /must be 0700/);
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  test('attack: a symlink where the socket should be (to a socket of ours elsewhere) is never followed', { timeout: 60_000 }, async () => {
    const home = join(dir.path, 'symlinked');
    mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
    const elsewhere = join(dir.path, 'elsewhere.sock');
    const listener = await plantedListener(elsewhere, 0o600);
    symlinkSync(elsewhere, join(home, 'run', 'daemon.sock'));
    try {
      await refusal(home, /symbolic link/);
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  test('attack: a symlinked socket directory is never entered', { timeout: 60_000 }, async () => {
    const home = join(dir.path, 'linkdir');
    const real = join(dir.path, 'realdir');
    mkdirSync(real, { mode: 0o700 });
    mkdirSync(home);
    symlinkSync(real, join(home, 'run'));
    const listener = await plantedListener(join(real, 'daemon.sock'), 0o600);
    try {
      await refusal(home, /symbolic link/);
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  test('attack: a regular file where the socket should be', { timeout: 60_000 }, async () => {
    const home = join(dir.path, 'regular');
    mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, 'run', 'daemon.sock'), '', { mode: 0o600 });
    await refusal(home, /is not a socket/);
  });

  test("attack: another user's socket (made with chown as root)", { skip: process.getuid?.() !== 0 ? 'needs root to chown' : false, timeout: 60_000 }, async () => {
    const { home, listener } = await planted('foreign', 0o700, 0o600);
    chownSync(join(home, 'run', 'daemon.sock'), 65534, 65534);
    try {
      await refusal(home, /belongs to user 65534/);
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  test('attack: a listener of ours that is no daemon (answers garbage) gets the hello, then the Node path, never a relay', { timeout: 60_000 }, async () => {
    const home = join(dir.path, 'garbage');
    mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
    const listener = await plantedListener(join(home, 'run', 'daemon.sock'), 0o600, (socket) => {
      socket.once('data', () => socket.end(`{"accord":"welcome","version":"${version}","pid":1,"handoff":"/tmp/evil.sock"}\n`));
    });
    try {
      const h = childAgent(env(home), [], { launcher });
      const code = await exited(h);
      // The launcher rejected the path (not its daemon's directory) and ran the Node bridge, which found no ACP there.
      assert.equal(code, 1);
      assert.equal(listener.connections(), 2, 'the hello of the launcher, then the Node bridge');
      assert.match(listener.heard(), /"handoff":true/);
    } finally {
      await listener.close();
    }
  });

  test('a stale socket (no daemon behind it) takes the Node path, which starts a daemon', { timeout: 120_000 }, async () => {
    const home = join(dir.path, 'stale');
    const run = join(home, 'run');
    mkdirSync(run, { recursive: true, mode: 0o700 });
    // A listener killed with SIGKILL leaves its socket file behind.
    const holder = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(join(run, 'daemon.sock'))}, () => process.stdout.write('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    chmodSync(join(run, 'daemon.sock'), 0o600);
    const h = childAgent(env(home), [], { launcher });
    try {
      await h.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      assert.equal(commOf(h.child.pid!), 'node');
    } finally {
      await h.close();
      spawnSync(process.execPath, [join(process.cwd(), 'dist/agent.js'), 'daemon', 'stop'], { env: env(home) as NodeJS.ProcessEnv });
    }
  });
});
