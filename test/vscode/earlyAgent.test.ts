// The agent process extension.ts starts before the rest of the extension is
// loaded (extension/startup/earlyAgent.ts), adopted by AgentProcess: the
// very process is the one connected, and one that failed or ended before it
// was adopted is reported like any failed start, never waited for.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import { AgentProcess } from '../../extension/agents/agentProcess';
import type { AgentCommand } from '../../extension/agents/agentCommand';
import { startEarly } from '../../extension/startup/earlyAgent';
import { eventually } from './ui';

describe('an agent process started early and adopted', function () {
  this.timeout(120_000);
  const log = vscode.window.createOutputChannel('Accord early agent test', { log: true });
  after(() => log.dispose());
  const root = vscode.extensions.getExtension('accord-dev.accord')!.extensionPath;

  it('is the process that answers initialize: no second process is started', async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'accord-early-agent-'));
    after(() => rmSync(stateDir, { recursive: true, force: true }));
    const command: AgentCommand = {
      command: process.execPath,
      args: ['--import', pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href, path.join(root, 'test/fixtures/fakeAcpAgent.ts')],
      env: { ELECTRON_RUN_AS_NODE: '1', PATH: process.env.PATH ?? '', FAKE_ACP_STATE: stateDir },
    };
    const early = startEarly(command);
    const agent = new AgentProcess({ agent: command, log, adopt: early });
    try {
      await agent.start();
      assert.equal(agent.status.state, 'connected', agent.status.message);
      assert.equal(agent.adopted, true);
      // The early process is the live one: ending it ends the connection.
      early.child.kill();
      await eventually('the adopted process to be seen ending', () => agent.status.state === 'stopped' || undefined, 60_000);
    } finally {
      agent.dispose();
    }
  });

  it('that exited before it was adopted is a failed start with its exit code and last output', async () => {
    const command: AgentCommand = {
      command: process.execPath,
      args: ['-e', 'process.stderr.write("no model configured\\n"); process.exit(3)'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    };
    const early = startEarly(command);
    await eventually('the early process to exit', () => early.exit(), 60_000);
    const agent = new AgentProcess({ agent: command, log, adopt: early, initializeTimeoutMs: 100_000 });
    try {
      await agent.start();
      assert.equal(agent.status.state, 'error');
      assert.match(agent.failure?.message ?? '', /exited \(code 3\)/);
      assert.match(agent.failure?.message ?? '', /no model configured/);
    } finally {
      agent.dispose();
    }
  });

  it('that could not be spawned at all is a failed start at the start stage', async () => {
    const command: AgentCommand = { command: path.join(root, 'no-such-agent-binary'), args: [], env: {} };
    const early = startEarly(command);
    await eventually('the spawn error', () => early.error(), 60_000);
    const agent = new AgentProcess({ agent: command, log, adopt: early });
    try {
      await agent.start();
      assert.equal(agent.status.state, 'error');
      assert.equal(agent.failure?.stage, 'start');
      assert.match(agent.failure?.message ?? '', /ENOENT/);
    } finally {
      agent.dispose();
    }
  });
});
