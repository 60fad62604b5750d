// A private daemon per test: its own ACCORD_HOME (so its own socket), the
// fake model server, and a teardown that stops the daemon and waits for its
// process to be gone before the temp directory is removed.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { agentBundle, childAgent, isolatedEnv, tempDir, type ChildHarness } from '../agent/harness';
import { waitFor } from '../../support/waitFor';

/**
 * A listener at `path` (mode `mode`) that is not the daemon, for the attack
 * tests of the bridge and of the extension's direct link: by default it hangs
 * up at once; `answer` can say something else, or nothing at all.
 */
export async function plantedListener(path: string, mode: number, answer: (socket: Socket) => void = (socket) => socket.destroy()) {
  let connections = 0;
  const heard: string[] = [];
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    connections++;
    sockets.push(socket);
    socket.on('data', (chunk) => heard.push(chunk.toString()));
    socket.on('error', () => undefined);
    answer(socket);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  chmodSync(path, mode);
  return {
    connections: () => connections,
    heard: () => heard.join(''),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function ensureBuilt(): void {
  // agent-openai-compatible.js: a dist from before the lazy bundles is rebuilt too.
  if (!existsSync(agentBundle) || !['agent-core.js', 'agent-openai-compatible.js', 'accord'].every((name) => existsSync(join(process.cwd(), 'dist', name)))) spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'ignore' });
}

export interface DaemonWorld {
  root: string;
  home: string;
  env: Record<string, string | undefined>;
  /** A bridge (`accord acp`) connected to this world's daemon, initialized with `clientCapabilities` (default none). */
  bridge(args?: string[], extraEnv?: Record<string, string>, clientCapabilities?: Record<string, unknown>): Promise<ChildHarness>;
  /** Runs `accord <args>` to completion. */
  cli(args: string[], extraEnv?: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }>;
  daemonPid(): number | undefined;
  /** Stops the daemon (if any) and waits until its process is gone. */
  stopDaemon(): Promise<void>;
  cleanup(): Promise<void>;
}

import { pidAlive } from '../../support/pidAlive';

export { pidAlive };
export { waitFor };

export function daemonWorld(prefix: string, baseEnv: () => Record<string, string | undefined> = () => ({})): DaemonWorld {
  const dir = tempDir(prefix);
  const home = join(dir.path, 'home');
  const bridges: ChildHarness[] = [];
  const world: DaemonWorld = {
    root: dir.path,
    home,
    get env() {
      return isolatedEnv({ ACCORD_HOME: home, ACCORD_SANDBOX: 'off', ...(baseEnv() as Record<string, string>) }, dir.path);
    },
    async bridge(args = [], extraEnv = {}, clientCapabilities = {}) {
      const harness = childAgent({ ...world.env, ...extraEnv }, args, { bridge: true });
      bridges.push(harness);
      await harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: clientCapabilities as never });
      return harness;
    },
    cli(args, extraEnv = {}) {
      return new Promise((resolve) => {
        const child = spawn(process.execPath, [agentBundle, ...args], { env: { ...world.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => (stdout += c));
        child.stderr.on('data', (c) => (stderr += c));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    },
    daemonPid() {
      const lock = join(home, 'run', 'daemon.lock');
      if (!existsSync(lock)) return undefined;
      try {
        return (JSON.parse(readFileSync(lock, 'utf8')) as { pid: number }).pid;
      } catch {
        return undefined;
      }
    },
    async stopDaemon() {
      const pid = world.daemonPid();
      await world.cli(['daemon', 'stop']);
      if (pid !== undefined && pidAlive(pid)) {
        await waitFor('the daemon to exit', () => !pidAlive(pid), 30_000).catch(() => process.kill(pid, 'SIGKILL'));
      }
    },
    async cleanup() {
      for (const bridge of bridges.splice(0)) await bridge.close().catch(() => undefined);
      await world.stopDaemon();
      dir.remove();
    },
  };
  return world;
}
