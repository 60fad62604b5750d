// Opt-in (`npm run test:agents`, never in CI): each catalogue agent that has an
// npm package, installed from the registry into ACCORD_AGENTS_DIR, checked
// against what the catalogue says: its package's bin is the catalogue's
// command, it answers ACP initialize on stdio when started with the
// catalogue's args and Accord's own client capabilities in the minimal
// environment Accord gives third-party agents, and where the catalogue says
// how to point it at another model endpoint, a turn against the fake model
// server comes back with the fake model's words.
// The same turn through the extension in VS Code is test/vscode/agents/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk/unstable';
import { CATALOGUE, type CatalogueAgent } from '../../extension/agents/catalogue';
import { agentEnvironment } from '../../extension/agents/agentEnv';
import { CLIENT_CAPABILITIES } from '../../extension/client/clientHandlers';
import { startFakeModelServer, type FakeModelServer } from '../fakeModelServer';
import { endpointEnv } from './agentSetup';

const dir = process.env.ACCORD_AGENTS_DIR;
const only = (process.env.ACCORD_AGENTS ?? '').split(',').filter(Boolean);
const agents = CATALOGUE.filter((a) => a.npm && (only.length === 0 || only.includes(a.id)));
const STARTUP_MS = Number(process.env.ACCORD_AGENTS_STEP_MS ?? 120_000);

let model: FakeModelServer;
let home: string;
let workspace: string;

before(async () => {
  model = await startFakeModelServer();
  home = mkdtempSync(join(tmpdir(), 'accord-agents-home-'));
  workspace = mkdtempSync(join(tmpdir(), 'accord-agents-ws-'));
});

after(async () => {
  await model?.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
});

function manifest(agent: CatalogueAgent): { version: string; bin: Record<string, string> | string } {
  return JSON.parse(readFileSync(join(dir!, 'node_modules', ...agent.npm!.split('/'), 'package.json'), 'utf8'));
}

/** The environment Accord gives the agent (minimal, plus the entry's env), with a fresh HOME and the fake endpoint. */
function envFor(agent: CatalogueAgent): Record<string, string> {
  const own = endpointEnv(agent, home, model.baseUrl);
  return { ...agentEnvironment({ host: process.env, kind: 'configured', own }), PATH: `${join(dir!, 'node_modules/.bin')}:${process.env.PATH ?? ''}` };
}

function start(agent: CatalogueAgent) {
  const child: ChildProcess = spawn(join(dir!, 'node_modules/.bin', agent.command), agent.args, { cwd: workspace, env: envFor(agent), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  const texts: string[] = [];
  const app = client({ name: 'accord-test-agents' })
    .onNotification(methods.client.session.update, ({ params }) => {
      const u = params.update;
      if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') texts.push(u.content.text);
    })
    .onRequest(methods.client.session.requestPermission, () => ({ outcome: { outcome: 'cancelled' as const } }));
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code, signal) => reject(new Error(`exited (${code ?? signal}); stderr: ${stderr}`))));
  exited.catch(() => {});
  const timed = <T>(p: Promise<T>, what: string) => Promise.race([p, exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} took over ${STARTUP_MS / 1000} s; stderr: ${stderr}`)), STARTUP_MS).unref())]);
  return { child, connection, texts, timed, stop: () => child.kill('SIGKILL') };
}

describe('catalogue agents against their real npm packages', { skip: dir ? false : 'set ACCORD_AGENTS_DIR (npm run test:agents does)' }, () => {
  for (const agent of agents) {
    describe(agent.name, () => {
      test(`${agent.id}: the package's bin is the catalogue's command`, (t) => {
        if (!existsSync(join(dir!, 'node_modules', ...agent.npm!.split('/')))) return t.skip(`${agent.npm} is not installed`);
        const { bin, version } = manifest(agent);
        const names = typeof bin === 'string' ? [agent.npm!.split('/').pop()] : Object.keys(bin);
        assert.ok(names.includes(agent.command), `${agent.npm}@${version} installs ${names.join(', ')}, not ${agent.command}`);
      });

      test(`${agent.id}: answers initialize with the catalogue's args in Accord's minimal environment`, { timeout: STARTUP_MS * 2 }, async (t) => {
        if (!existsSync(join(dir!, 'node_modules/.bin', agent.command))) return t.skip(`${agent.command} is not installed`);
        const a = start(agent);
        try {
          const init = await a.timed(a.connection.agent.request(methods.agent.initialize, {
            protocolVersion: PROTOCOL_VERSION, clientCapabilities: CLIENT_CAPABILITIES, clientInfo: { name: 'accord-test-agents', version: '0' },
          }), 'initialize');
          assert.equal(init.protocolVersion, PROTOCOL_VERSION);
          t.diagnostic(`${agent.id} ${init.agentInfo?.name ?? '?'} ${init.agentInfo?.version ?? ''}: auth methods ${JSON.stringify((init.authMethods ?? []).map((m) => ('type' in m && m.type) ? `${m.id} (${m.type})` : m.id))}`);
        } finally {
          a.stop();
        }
      });

      test(`${agent.id}: a turn against the fake model server`, { timeout: STARTUP_MS * 3, skip: agent.endpoint ? false : 'no way to point it at another model endpoint' }, async (t) => {
        if (!existsSync(join(dir!, 'node_modules/.bin', agent.command))) return t.skip(`${agent.command} is not installed`);
        model.clearScript();
        for (let i = 0; i < 6; i++) model.script({ type: 'stream', parts: [{ text: 'pong from the fake model' }] });
        const before = model.requests.length;
        const a = start(agent);
        try {
          await a.timed(a.connection.agent.request(methods.agent.initialize, {
            protocolVersion: PROTOCOL_VERSION, clientCapabilities: CLIENT_CAPABILITIES, clientInfo: { name: 'accord-test-agents', version: '0' },
          }), 'initialize');
          const newSession = () => a.timed(a.connection.agent.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] }), 'session/new');
          const session = await newSession().catch(async (error: { code?: number }) => {
            // As a person with a key would: pick the agent's API-key sign-in when it asks for one.
            if (error.code !== -32000 || !agent.endpoint?.keyMethod) throw error;
            await a.timed(a.connection.agent.request(methods.agent.authenticate, { methodId: agent.endpoint.keyMethod }), 'authenticate');
            return newSession();
          });
          const result = await a.timed(a.connection.agent.request(methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'Say pong.' }] }), 'session/prompt');
          t.diagnostic(`${agent.id}: stopReason ${result.stopReason}; ${model.requests.length - before} model request(s) to ${[...new Set(model.requests.slice(before).map((r) => r.path))].join(', ')}`);
          assert.ok(model.requests.length > before, 'the agent called the fake model');
          assert.match(a.texts.join(''), /pong from the fake model/);
        } finally {
          if (model.requests.length === before) t.diagnostic(`${agent.id}: no model request reached the fake server`);
          else t.diagnostic(`${agent.id}: model requests: ${model.requests.slice(before).map((r) => r.path).join(', ')}`);
          a.stop();
        }
      });
    });
  }
});
