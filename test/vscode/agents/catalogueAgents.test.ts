// Opt-in (`npm run test:agents` sets ACCORD_AGENTS_DIR; skipped otherwise):
// each catalogue agent that can be pointed at another model endpoint, from its
// real npm package, driven through the extension as a person would: its
// `accord.agents` entry as "Add Agent" writes it (with the endpoint in `env`),
// a session from the panel's controller (signing in with the agent's API-key
// method where it asks), and a turn whose answer comes from the fake model.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AccordApi } from '../../../extension/extension';
import { agentEntry, CATALOGUE } from '../../../extension/agents/catalogue';
import { startFakeModelServer, type FakeModelServer } from '../../fakeModelServer/index';
import { endpointEnv } from '../../agents/agentSetup';

const dir = process.env.ACCORD_AGENTS_DIR;
const only = (process.env.ACCORD_AGENTS ?? '').split(',').filter(Boolean);

describe('catalogue agents through the extension', function () {
  this.timeout(600_000);
  let api: AccordApi;
  let model: FakeModelServer;
  let home: string;

  before(async function () {
    if (!dir) return this.skip();
    api = await vscode.extensions.getExtension<AccordApi>('accord-dev.accord')!.activate();
    model = await startFakeModelServer();
    home = mkdtempSync(path.join(tmpdir(), 'accord-agents-ext-home-'));
  });

  after(async () => {
    if (!dir) return;
    await vscode.workspace.getConfiguration('accord').update('agents', undefined, vscode.ConfigurationTarget.Global);
    await model?.close();
    rmSync(home, { recursive: true, force: true });
  });

  for (const agent of CATALOGUE.filter((a) => a.npm && a.endpoint && (only.length === 0 || only.includes(a.id)))) {
    it(`${agent.name}: a turn through the extension answers with the fake model's words`, async function () {
      const bin = path.join(dir ?? '', 'node_modules/.bin', agent.command);
      if (!dir || !existsSync(bin)) return this.skip();
      const entry = agentEntry(agent, 'path');
      await vscode.workspace.getConfiguration('accord').update('agents', [{ ...entry, command: bin, env: endpointEnv(agent, home, model.baseUrl) }], vscode.ConfigurationTarget.Global);
      const host = api.client.host(agent.name);
      assert.ok(host, 'the entry is read');
      model.clearScript();
      for (let i = 0; i < 6; i++) model.script({ type: 'stream', parts: [{ text: 'pong from the fake model' }] });
      let session = await api.client.controller.newSession(host);
      if (!session && agent.endpoint?.keyMethod && api.client.controller.lastFailure?.authMethods?.some((m) => m.methodId === agent.endpoint?.keyMethod)) {
        assert.equal(await api.client.controller.authenticate(host, agent.endpoint.keyMethod), true, api.client.controller.lastFailure?.message);
        session = api.client.controller.current;
      }
      assert.ok(session, `no session: ${api.client.controller.lastFailure?.message ?? host.status.message}`);
      const texts: string[] = [];
      const sub = api.client.router.onUpdate(({ update }) => {
        if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') texts.push(update.content.text);
      });
      try {
        const outcome = await api.client.controller.prompt(host, { type: 'sendPrompt', epoch: session.epoch, text: 'Say pong.', mentions: [], images: [] });
        assert.equal(outcome?.stopReason, 'end_turn', outcome?.error);
      } finally {
        sub.dispose();
      }
      assert.match(texts.join(''), /pong from the fake model/);
    });
  }
});
