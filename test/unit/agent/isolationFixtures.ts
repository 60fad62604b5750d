// Shared by the isolation tests: a git project with a committed file or two,
// and the logged agent with per-session workspaces behind the test client.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { SessionWorkspaces } from '../../../agent/session/workspaces';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { builtinTools } from '../../../agent/tools/index';
import { inMemoryApp, preparedMeta, tempDir, type Harness } from './harness';

export const lines = (n: number, change: Record<number, string> = {}) =>
  Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

/** A git repository under a fresh temp dir with `files` committed; `data` is the agent's data dir beside it. */
export function gitProject(files: Record<string, string>) {
  const dir = tempDir('accord-iso-');
  const project = join(dir.path, 'project');
  mkdirSync(project);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd: project, stdio: 'pipe' });
  git('init', '-q');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(project, name, '..'), { recursive: true });
    writeFileSync(join(project, name), text);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  return { project, data: join(dir.path, 'data'), remove: dir.remove };
}

export interface IsolatedAgent {
  harness: Harness;
  logs: SessionStore;
  isolation: SessionWorkspaces;
  newSession(cwd: string, meta?: Record<string, unknown>): Promise<{ sessionId: string; meta: Record<string, any> }>;
  ext<T = any>(method: string, params: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

/** `beforeSetUp`: holds each new session's copy back until it resolves; `afterPlan`: the same once its root is known. */
export function isolatedAgent(env: Record<string, string | undefined>, dataDir: string, alwaysApprove = false, beforeSetUp?: (sessionId: string) => Promise<void>, afterPlan?: (sessionId: string) => Promise<void>): IsolatedAgent {
  const logs = new SessionStore(dataDir);
  const isolation = new SessionWorkspaces({ dataDir, alwaysApprove, ...(beforeSetUp ? { beforeSetUp } : {}), ...(afterPlan ? { afterPlan } : {}) });
  const { app, closeLogs } = createLoggedAgent({ env, tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0, isolation }, logs);
  const harness = inMemoryApp(app);
  return {
    harness,
    logs,
    isolation,
    async newSession(cwd, meta) {
      await harness.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const response = await harness.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [], ...(meta ? { _meta: meta } : {}) });
      return { sessionId: response.sessionId, meta: { ...response._meta, ...(await preparedMeta(harness, response.sessionId)) } };
    },
    ext: (method, params) => harness.connection.agent.request(method, params),
    async close() {
      await harness.close();
      await closeLogs();
      await isolation.releaseAll();
    },
  };
}

/** The error code and message of a request that must fail. */
export async function failure(request: Promise<unknown>): Promise<{ code: number | undefined; message: string }> {
  return request.then(
    () => ({ code: undefined, message: 'the request succeeded' }),
    (error: { code?: number; message?: string; data?: unknown }) => ({ code: error.code, message: `${error.message ?? ''} ${JSON.stringify(error.data ?? '')}` }),
  );
}
