// Shared by the trust-boundary tests (issue 11): the bundled agent as a child
// process with a fake home holding a secret, a git project beside it, and a
// scripted model that makes one tool call per prompt so the test can play the
// review between calls. Everything a payload could touch outside the copy
// (the home, the real repository, a marker folder) can be hashed.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { reply, type FakeModelServer } from '../../fakeModelServer/index';
import { agentBundle, childAgent, isolatedEnv, preparedMeta, updatesOf, type ChildHarness } from '../agent/harness';
import { gitProject } from '../agent/isolationFixtures';

/** Builds the agent bundle once per test file run: these tests drive `node dist/agent.js acp`. */
export function buildBundle(): void {
  const built = spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'pipe' });
  if (built.status !== 0) throw new Error(`esbuild failed: ${built.stderr.toString()}`);
  if (!lstatSync(agentBundle).isFile()) throw new Error('no agent bundle');
}

export interface Scene {
  /** Temp root: everything below is removed at the end. */
  root: string;
  project: string;
  data: string;
  home: string;
  /** A folder outside everything the sandbox can write; payloads try to create files here. */
  outside: string;
  secret: string;
  remove(): void;
}

export const SECRET = '-----BEGIN OPENSSH PRIVATE KEY----- accord-test-secret -----END OPENSSH PRIVATE KEY-----\n';

export function scene(files: Record<string, string>): Scene {
  const { project, data, remove } = gitProject(files);
  const root = realpathSync(join(project, '..'));
  const home = join(root, 'home');
  const outside = join(root, 'outside');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(outside);
  const secret = join(home, '.ssh', 'id_rsa');
  writeFileSync(secret, SECRET, { mode: 0o600 });
  writeFileSync(join(home, '.bashrc'), '# the person\'s shell\n');
  return { root, project: realpathSync(project), data, home, outside, secret, remove };
}

/** Hash of every entry below `dir` (names, kinds, link targets, modes, contents); `.git` objects included. */
export function treeHash(dir: string, skip: (relative: string) => boolean = () => false): string {
  const hash = createHash('sha256');
  const walk = (relative: string) => {
    const full = join(dir, relative);
    const stats = lstatSync(full);
    hash.update(`${relative}\0${stats.mode}\0`);
    if (stats.isSymbolicLink()) hash.update(readlinkSync(full));
    else if (stats.isDirectory()) for (const name of readdirSync(full).sort()) {
      const child = relative ? `${relative}/${name}` : name;
      if (!skip(child)) walk(child);
    }
    else if (stats.isFile()) hash.update(readFileSync(full));
  };
  walk('');
  return hash.digest('hex');
}

export function startAgent(model: FakeModelServer, scene: Scene, configDir: string, args: string[] = []): ChildHarness {
  return childAgent(isolatedEnv({ ACCORD_MODEL: `openai-compatible:${model.baseUrl}#fake`, ACCORD_HOME: scene.data, ACCORD_CONFIG_DIR: configDir, HOME: scene.home }, configDir), args);
}

export async function openSession(agent: ChildHarness, cwd: string, meta?: Record<string, unknown>): Promise<{ sessionId: string; meta: Record<string, any> }> {
  await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  const created = await agent.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [], ...(meta ? { _meta: meta } : {}) });
  return { sessionId: created.sessionId, meta: { ...created._meta, ...(await preparedMeta(agent, created.sessionId)) } };
}

let callCounter = 0;

/** One scripted tool call in its own prompt; resolves with the call's final status and text output. */
export async function toolStep(agent: ChildHarness, model: FakeModelServer, sessionId: string, tool: string, args: Record<string, unknown>): Promise<{ status: string; output: string }> {
  const id = `t${++callCounter}`;
  model.script(reply.tool(id, tool, args), reply.text('ok'));
  await agent.prompt(sessionId, `step ${id}`);
  const updates = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.toolCallId === id);
  const status = updates.filter((u) => u.status).at(-1)?.status ?? 'unknown';
  const output = updates
    .flatMap((u) => u.content ?? [])
    .map((c: any) => c.content?.text ?? '')
    .join('');
  return { status, output };
}

/** A command as one tool step. */
export const run = (agent: ChildHarness, model: FakeModelServer, sessionId: string, ...argv: string[]) => toolStep(agent, model, sessionId, 'run_command', { argv });

export function ext<T = any>(agent: ChildHarness, method: string, params: Record<string, unknown>): Promise<T> {
  return agent.connection.agent.request(method, params) as Promise<T>;
}

export function sandboxed(meta: Record<string, any>): boolean {
  return meta['accord/sandbox']?.state === 'sandboxed';
}

export const markers = (scene: Scene) => readdirSync(scene.outside);
