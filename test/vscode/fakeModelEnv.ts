// Points the bundled agent at the fake model server: the agent gets the
// extension host's ACCORD_* and provider variables at spawn (agents/agentEnv.ts), so the test sets it there and puts
// everything back afterwards. `bundledAgentOnFakeModel` is the whole set-up a suite of such tests shares.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AccordApi } from '../../extension/extension';
import { startFakeModelServer, type FakeModelServer } from '../fakeModelServer/index';
import { eventually } from './ui';

const KEYS = ['ANTHROPIC_API_KEY', 'ACCORD_ANTHROPIC_BASE_URL', 'ACCORD_HOME', 'ACCORD_CONFIG_DIR', 'ACCORD_LOCAL_SERVERS'] as const;

/** Returns a function that restores the environment and the model setting. */
export async function useFakeModel(baseUrl: string, home: string): Promise<() => Promise<void>> {
  const saved = Object.fromEntries(KEYS.map((key) => [key, process.env[key]]));
  Object.assign(process.env, { ANTHROPIC_API_KEY: 'test-key', ACCORD_ANTHROPIC_BASE_URL: baseUrl, ACCORD_HOME: home, ACCORD_CONFIG_DIR: home, ACCORD_LOCAL_SERVERS: '' });
  await vscode.workspace.getConfiguration('accord').update('model', 'anthropic:claude-sonnet-4-5', vscode.ConfigurationTarget.Global);
  return async () => {
    for (const key of KEYS) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
    await vscode.workspace.getConfiguration('accord').update('model', undefined, vscode.ConfigurationTarget.Global);
  };
}

export interface BundledOnFakeModel {
  readonly api: AccordApi;
  /** The fake model server the bundled agent talks to. */
  readonly server: FakeModelServer;
  /** A folder of the suite's own inside the workspace (when asked for). */
  readonly scratch: string;
}

/**
 * For the enclosing `describe`: a fake model server, the bundled agent
 * restarted on it (connected before the first test) with a temp home, and
 * optionally a scratch folder in the workspace (`scratch`-<pid>); everything put back and
 * removed after the last test. `name` prefixes the temp folders.
 */
export function bundledAgentOnFakeModel(name: string, options: { scratch?: string; closeEditors?: boolean } = {}): BundledOnFakeModel {
  let api: AccordApi | undefined;
  let server: FakeModelServer | undefined;
  let home: string | undefined;
  let scratch: string | undefined;
  let restoreEnv: (() => Promise<void>) | undefined;
  before(async () => {
    api = await vscode.extensions.getExtension<AccordApi>('accord-dev.accord')!.activate();
    server = await startFakeModelServer();
    home = mkdtempSync(path.join(tmpdir(), `accord-${name}-home-`));
    restoreEnv = await useFakeModel(server.baseUrl, home);
    await api.agent.restart();
    const agent = api.agent;
    await eventually('the bundled agent to connect', () => agent.status.state === 'connected').catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(agent.status)}`);
    });
    if (options.scratch) {
      scratch = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, `${options.scratch}-${process.pid}`);
      mkdirSync(scratch, { recursive: true });
    }
  });
  after(async () => {
    if (options.closeEditors) await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await restoreEnv?.();
    await api?.agent.restart();
    await server?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    if (home) rmSync(home, { recursive: true, force: true });
  });
  const set = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is set up in before()`);
    return value;
  };
  return {
    get api() {
      return set(api, 'the extension API');
    },
    get server() {
      return set(server, 'the fake model server');
    },
    get scratch() {
      return set(scratch, 'the scratch folder (options.scratch)');
    },
  };
}
