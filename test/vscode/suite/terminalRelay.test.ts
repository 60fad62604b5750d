// A client-owned terminal (ACP terminal/create) reaches the panel (issue 18):
// the scripted agent runs a command through Accord's terminal service, and the
// panel is sent its output and exit status, tagged with the session's epoch,
// even though the agent releases the terminal as soon as it has read it.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import type { AccordApi } from '../../../extension/extension';
import type { HostMessageOf } from '../../../webview/protocol';

describe('terminals reach the panel', function () {
  this.timeout(120_000);
  let api: AccordApi;
  let stateDir: string;

  before(async () => {
    const extension = vscode.extensions.getExtension<AccordApi>('accord-dev.accord')!;
    api = await extension.activate();
    stateDir = mkdtempSync(path.join(tmpdir(), 'accord-terminal-relay-'));
    await vscode.workspace.getConfiguration('accord').update('agents', [{
      name: 'Fake Terminals',
      command: process.execPath,
      args: ['--import', pathToFileURL(path.join(extension.extensionPath, 'node_modules/tsx/dist/loader.mjs')).href, path.join(extension.extensionPath, 'test/fixtures/fakeAcpAgent.ts')],
      env: { ELECTRON_RUN_AS_NODE: '1', FAKE_ACP_STATE: stateDir },
    }], vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('accord').update('agents', undefined, vscode.ConfigurationTarget.Global);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('the output and the exit code of a terminal/create command are sent to the panel', async () => {
    const host = api.client.host('Fake Terminals');
    assert.ok(host);
    const session = await api.client.controller.newSession(host);
    assert.ok(session, `no session: ${host.status.message}`);
    const outcome = await api.client.controller.prompt(host, { type: 'sendPrompt', epoch: session.epoch, text: 'terminal 100000 echo relayed-output', mentions: [], images: [] });
    assert.equal(outcome?.stopReason, 'end_turn');
    const sent = api.panel.journal.replay().filter((m): m is HostMessageOf<'terminalOutput'> => m.type === 'terminalOutput');
    assert.equal(sent.length, 1, 'one terminal, its last snapshot');
    assert.equal(sent[0]!.epoch, session.epoch);
    assert.equal(sent[0]!.output, 'relayed-output\n');
    assert.deepEqual(sent[0]!.exit, { exitCode: 0, signal: null });
  });
});
