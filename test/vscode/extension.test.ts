// Runs inside the real VS Code extension host (see scripts/vscode-tests.mjs).
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { AccordApi } from '../../extension/extension';
import { eventually, ui } from './ui';

const EXTENSION_ID = 'accord-dev.accord';

/** The extension host's children running `agent.js acp` (a bridge process), from /proc. */
function bridgeChildren(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.some((arg) => arg.endsWith('agent.js')) && argv.includes('acp')) found.push(argv.join(' '));
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

async function accord(): Promise<AccordApi> {
  const extension = vscode.extensions.getExtension<AccordApi>(EXTENSION_ID);
  assert.ok(extension, `extension ${EXTENSION_ID} is not installed`);
  return extension.activate();
}

describe('Accord in a real VS Code', () => {
  it('connects to the bundled agent and reports its name and version from initialize', async function () {
    // The suite's first connect starts the agent cold (its daemon, its code cache) on a shared machine: wait longer for it.
    this.timeout(180_000);
    const api = await accord();
    const status = await eventually(
      'the agent to connect',
      () => (api.agent.status.state === 'connected' ? api.agent.status : undefined),
      150_000,
    );
    const packageVersion = (vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { version: string }).version;
    assert.equal(status.agentName, 'Accord');
    assert.equal(status.agentVersion, packageVersion);
    assert.equal(api.agent.agentInfo?.protocolVersion, 1);
    // Started by extension.ts before the rest of the extension was evaluated, and that very process was the first one used.
    assert.equal(api.agent.firstStartedEarly, true, 'the bundled agent started while the extension loaded was adopted');
    // With the daemon on, the extension connects to the daemon's socket itself: no bridge process (extension/agents/daemonLink.ts).
    if (process.platform === 'linux') assert.deepEqual(bridgeChildren(), [], 'no `agent.js acp` bridge among the extension host\'s children');
  });

  it('contributes its commands', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['accord.showAgentLog', 'accord.test.raiseApproval']) {
      assert.ok(commands.includes(id), `command ${id} is missing`);
    }
  });

  it('shows the chat panel and completes the ready handshake', async () => {
    const api = await accord();
    await vscode.commands.executeCommand('workbench.view.extension.accord');
    await eventually('the chat webview to say ready', () => api.chat.isReady);
  });

  it('gets allow_once when the person clicks "Allow once" on a real approval', async () => {
    const answer = vscode.commands.executeCommand<RequestPermissionResponse>('accord.test.raiseApproval', 'Run echo hello');
    ui({ message: 'Accord asks for approval: “Run echo hello”', click: 'Allow once' });
    assert.deepEqual((await answer).outcome, { outcome: 'selected', optionId: 'allow' });
  });
});
