// The extension as an ACP client, against a scripted fake agent
// (test/fixtures/fakeAcpAgent.ts) configured in `accord.agents`. Approvals
// are answered by Playwright clicking the real dialog or notification.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, mkdirSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import type { AccordApi } from '../../extension/extension';
import type { AgentHost } from '../../extension/agents/agentHost';
import type { PendingApproval } from '../../extension/approvals/approvalService';
import type { TurnOutcome } from '../../extension/sessions/sessionController';
import { fileCompletions } from '../../extension/chat/panelServices';
import { approvalPrompt } from '../../extension/approvals/approvalPrompt';
import { eventually, ui } from './ui';

const EXTENSION_ID = 'accord-dev.accord';
let api: AccordApi;
let host: AgentHost;
let stateDir: string;
let scratch: string;
const texts: string[] = [];

function prompt(text: string): Promise<TurnOutcome | undefined> {
  const session = api.client.controller.current;
  assert.ok(session, 'no current session');
  return api.client.controller.prompt(host, { type: 'sendPrompt', epoch: session.epoch, text, mentions: [], images: [] });
}

function nextApproval(): Promise<PendingApproval> {
  return new Promise((resolve) => {
    const sub = api.client.approvals.onDidChange(({ approval, settled }) => {
      if (!settled) {
        sub.dispose();
        resolve(approval);
      }
    });
  });
}

/**
 * VS Code cannot close a message it showed, so an approval answered elsewhere
 * (panel, timeout, cancel) leaves its notification; clearing it answers nothing.
 */
const clearStalePrompts = () => vscode.commands.executeCommand('notifications.clearAll');

const lastText = (prefix: string) => [...texts].reverse().find((t) => t.startsWith(prefix));
const approvalText = (a: PendingApproval) => approvalPrompt({ agentName: a.agentName, title: a.summary.title, detail: a.summary.detail }).message;

describe('ACP client against a scripted agent', function () {
  this.timeout(120_000);

  before(async () => {
    const extension = vscode.extensions.getExtension<AccordApi>(EXTENSION_ID)!;
    api = await extension.activate();
    const root = extension.extensionPath;
    stateDir = mkdtempSync(path.join(tmpdir(), 'accord-fake-agent-'));
    const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    scratch = path.join(workspace, `.accord-test-${process.pid}`);
    mkdirSync(scratch, { recursive: true });
    await vscode.workspace.getConfiguration('accord').update('agents', [{
      name: 'Fake',
      command: process.execPath,
      args: ['--import', pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href, path.join(root, 'test/fixtures/fakeAcpAgent.ts')],
      env: { ELECTRON_RUN_AS_NODE: '1', FAKE_ACP_STATE: stateDir },
    }], vscode.ConfigurationTarget.Global);
    host = api.client.host('Fake')!;
    assert.ok(host, 'the configured agent is not found');
    api.client.router.onUpdate(({ update }) => {
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') texts.push(update.content.text);
    });
    await vscode.commands.executeCommand('workbench.view.extension.accord');
    const session = await api.client.controller.newSession(host);
    assert.ok(session, `no session: ${host.status.message}`);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('accord').update('agents', undefined, vscode.ConfigurationTarget.Global);
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  it('advertises fs and terminal, and the agent connected', () => {
    assert.equal(host.status.state, 'connected');
    assert.equal(host.info?.agentInfo?.name, 'fake-acp-agent');
  });

  it("attack: a third-party agent is not offered the person's VS Code models and cannot call them (-32601)", async () => {
    assert.equal((await prompt('lm'))?.stopReason, 'end_turn');
    assert.equal(lastText('lm='), 'lm={"offered":false,"models":-32601,"chat":-32601}');
  });

  it('allow once: the person clicks "Allow once" and the agent gets allow_once, never allow_always', async () => {
    const pending = nextApproval();
    const turn = prompt('permission allow_always,allow_once,reject_once,reject_always');
    const approval = await pending;
    assert.deepEqual(approval.choices.buttons.map((b) => b.label), ['Allow once', 'Reject']);
    assert.match(approval.summary.detail, /Command: echo approval-test/);
    ui({ message: approvalText(approval), click: 'Allow once' });
    assert.equal((await turn)?.stopReason, 'end_turn');
    assert.equal(lastText('outcome='), 'outcome={"outcome":"selected","optionId":"allow_once"}');
    assert.equal(api.client.statusBar.approvalText, undefined, 'the status bar still shows a pending approval');
  });

  it('reject once: clicking "Reject" answers reject_once', async () => {
    const pending = nextApproval();
    const turn = prompt('permission allow_once,reject_once');
    ui({ message: approvalText(await pending), click: 'Reject' });
    await turn;
    assert.equal(lastText('outcome='), 'outcome={"outcome":"selected","optionId":"reject_once"}');
  });

  it('only "always" offered: explained, no allow button, answered with reject_once', async () => {
    const pending = nextApproval();
    const turn = prompt('permission allow_always,reject_once');
    const approval = await pending;
    assert.deepEqual(approval.choices.buttons.map((b) => b.kind), ['reject_once']);
    assert.match(approval.choices.explanation ?? '', /standing permission/);
    ui({ message: approvalText(approval), click: 'Reject' });
    await turn;
    assert.equal(lastText('outcome='), 'outcome={"outcome":"selected","optionId":"reject_once"}');
  });

  it('dismissal never allows: the panel dismissing answers reject_once; standing-only options answer cancelled', async () => {
    let pending = nextApproval();
    let turn = prompt('permission allow_once,reject_once');
    let approval = await pending;
    api.client.approvals.decline(approval.requestId);
    await turn;
    assert.equal(lastText('outcome='), 'outcome={"outcome":"selected","optionId":"reject_once"}');
    await clearStalePrompts();

    pending = nextApproval();
    turn = prompt('permission allow_always,reject_always');
    approval = await pending;
    assert.deepEqual(approval.choices.buttons, []);
    api.client.approvals.decline(approval.requestId);
    await turn;
    assert.equal(lastText('outcome='), 'outcome={"outcome":"cancelled"}');
    await clearStalePrompts();
  });

  it('timeout declines with reject_once', async () => {
    api.client.approvals.timeoutOverrideMs = 1500;
    try {
      const pending = nextApproval();
      const turn = prompt('permission allow_once,reject_once');
      const approval = await pending;
      await turn;
      assert.equal(approval.outcome?.how, 'timeout');
      assert.equal(lastText('outcome='), 'outcome={"outcome":"selected","optionId":"reject_once"}');
      await clearStalePrompts();
    } finally {
      api.client.approvals.timeoutOverrideMs = undefined;
    }
  });

  it('cancelling the turn while an approval is pending answers cancelled and ends the turn cancelled', async () => {
    const pending = nextApproval();
    const turn = prompt('permission allow_once,reject_once');
    const approval = await pending;
    assert.ok(api.client.statusBar.approvalText?.includes('1 approval'), `status bar: ${api.client.statusBar.approvalText}`);
    await vscode.commands.executeCommand('accord.cancelTurn');
    assert.equal((await turn)?.stopReason, 'cancelled');
    assert.equal(lastText('outcome='), 'outcome={"outcome":"cancelled"}');
    assert.equal(approval.outcome?.how, 'cancelled');
    await clearStalePrompts();
  });

  it('an edit shows its diff on request; "Allow once" stages the write for review, and accepting it writes the file', async () => {
    const file = path.join(scratch, 'edit-me.txt');
    writeFileSync(file, 'original\n');
    const pending = nextApproval();
    const turn = prompt(`edit ${file}`);
    const approval = await pending;
    ui({ message: approvalText(approval), click: 'Show Diff' });
    await eventually('the proposed diff to open', () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'accord-proposed'));
    ui({ message: approvalText(approval), click: 'Allow once' });
    await turn;
    assert.equal(lastText('outcome='), 'outcome={"outcome":"selected","optionId":"allow_once"}');
    assert.equal(readFileSync(file, 'utf8'), 'original\n', 'the write waits for review');
    const review = api.review.store.inSession(api.client.controller.current!.sessionId).find((f) => f.path === file);
    assert.ok(review, 'the write is under review');
    assert.equal(review.baseText, 'original\n', JSON.stringify(api.review.store.all().map((f) => [f.sessionId, f.turnId, f.origin, f.path, f.baseText, f.base === null])));
    await vscode.commands.executeCommand('accord.review.acceptFile', review.id);
    assert.equal(readFileSync(file, 'utf8'), 'edited by fake agent\n');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('fs/read_text_file returns an unsaved buffer, honouring line and limit', async () => {
    const file = path.join(scratch, 'unsaved.txt');
    writeFileSync(file, 'one\ntwo\nthree\n');
    const doc = await vscode.workspace.openTextDocument(file);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(1, 0, 1, 3), 'TWO (unsaved)');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(doc.isDirty);
    await prompt(`read ${file} 2 1`);
    assert.equal(lastText('read='), `read=${JSON.stringify('TWO (unsaved)\n')}`);
    await vscode.commands.executeCommand('workbench.action.files.revert', doc.uri);
  });

  it('attack: fs/read_text_file of a FIFO, a device or a huge file is a clear error, and the host keeps serving', async () => {
    const fifo = path.join(scratch, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await prompt(`read ${fifo}`);
    assert.equal(lastText('read-error='), `read-error=Invalid params: ${fifo} is not a regular file; agents may read only files.`);
    await prompt('read /dev/zero');
    assert.equal(lastText('read-error='), 'read-error=Invalid params: /dev/zero is not a regular file; agents may read only files.');
    const huge = path.join(scratch, 'huge.bin');
    writeFileSync(huge, '');
    truncateSync(huge, 1024 ** 4);
    await prompt(`read ${huge}`);
    assert.ok(lastText('read-error=')?.startsWith(`read-error=Invalid params: ${huge} is too large to read`), lastText('read-error='));
    const small = path.join(scratch, 'after.txt');
    writeFileSync(small, 'still here\n');
    await prompt(`read ${small}`);
    assert.equal(lastText('read='), `read=${JSON.stringify('still here\n')}`);
  });

  it('terminal/* captures output with the byte limit cut at a character boundary', async () => {
    await prompt('terminal 5 echo €€');
    const result = JSON.parse(lastText('terminal=')!.slice('terminal='.length));
    assert.equal(result.exit.exitCode, 0);
    assert.equal(result.output.output, '€\n');
    assert.equal(result.output.truncated, true);
    await prompt('terminal 1000 echo hello');
    assert.equal(JSON.parse(lastText('terminal=')!.slice(9)).output.output, 'hello\n');
  });

  it('@-mention completions find workspace files and the editor selection', async () => {
    const file = path.join(scratch, 'mention-target.txt');
    writeFileSync(file, 'a\nb\nc\n');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file));
    editor.selection = new vscode.Selection(0, 0, 1, 1);
    const items = await fileCompletions('mention-target');
    assert.ok(items.some((i) => i.kind === 'file' && i.path === file), JSON.stringify(items));
    // A selection is the file plus structured lines, never a path with a fragment to parse back.
    assert.ok(items.some((i) => i.kind === 'selection' && i.path === file && i.range?.startLine === 1 && i.range.endLine === 2), JSON.stringify(items));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('tolerates unknown update kinds and updates for untracked sessions', async () => {
    const outcome = await prompt('unknown');
    assert.equal(outcome?.stopReason, 'end_turn');
    assert.equal(lastText('after-'), 'after-unknown');
    assert.ok(!texts.includes('stray'), 'an update for an untracked session reached the panel');
    assert.equal(host.status.state, 'connected');
  });

  it('the status bar gauge shows percent and cost from usage_update', async () => {
    await prompt('usage 50000 200000');
    assert.match(api.client.statusBar.text, /25%/);
    assert.match(api.client.statusBar.text, /\$0\.250/);
  });

  it('the ACP traffic log records the exchange', () => {
    assert.ok(api.client.traffic.lines.some((l) => l.includes('"method":"session/prompt"')));
  });

  it('lists sessions from session/list and reloads one with a single replay', async () => {
    await vscode.commands.executeCommand('accord.refreshSessions');
    const current = api.client.controller.current!.sessionId;
    await eventually('the session to be listed', () => api.client.sessionsView.sessions.some((s) => s.info.sessionId === current));
    const replayed: string[] = [];
    const sub = api.client.router.onUpdate(({ update, replay }) => {
      if (replay && update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') replayed.push(update.content.text);
    });
    await api.client.controller.loadSession(host, current);
    sub.dispose();
    assert.equal(replayed.filter((t) => t === 'after-unknown').length, 1);
  });

  it('restarts a crashed agent up to 4 times in 3 minutes, reloading the session, then stops with a Restart action', async function () {
    this.timeout(300_000);
    await prompt('say before-crash');
    const states: string[] = [];
    let replays = 0;
    // What the panel is told: after the reload replaces its transcript, it must still say the turn was lost.
    const posted: Array<{ type: string; error?: string }> = [];
    const subs = [
      api.panel.onDidPost((message) => posted.push(message as { type: string; error?: string })),
      host.onDidChangeStatus((status) => states.push(status.state)),
      api.client.router.onUpdate(({ update, replay }) => {
        if (replay && update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text' && update.content.text === 'before-crash') replays++;
      }),
    ];
    try {
      for (let crash = 1; crash <= 5; crash++) {
        states.length = 0;
        const replaysBefore = replays;
        const outcome = await prompt('crash');
        assert.equal(outcome?.stopReason, 'error');
        assert.match(outcome?.error ?? '', /exited with code 3|stopped during the turn/);
        if (crash < 5) {
          await eventually(`restart ${crash}`, () => states.includes('restarting') && host.status.state === 'connected');
          // The session is reloaded with session/load: its history replays once more.
          await eventually(`the session to be reloaded after restart ${crash}`, () => replays === replaysBefore + 1);
          await eventually(`the panel to show the lost turn after reload ${crash}`, () => {
            const reloaded = posted.map((m) => m.type).lastIndexOf('sessionStarted');
            return reloaded >= 0 && posted.slice(reloaded).some((m) => m.type === 'turnEnded' && /turn was lost/.test(m.error ?? ''));
          });
        }
      }
    } finally {
      subs.forEach((s) => s.dispose());
    }
    await eventually('the agent to stay stopped', () => host.status.state === 'error');
    assert.match(host.status.message ?? '', /restarted 4 times in 3 minutes/);
    ui({ notification: 'restarted 4 times', click: 'Restart' });
    await eventually('the person-initiated restart', () => host.status.state === 'connected');
  });
});
