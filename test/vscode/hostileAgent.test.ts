// A hostile ACP agent (test/fixtures/hostileAcpAgent.ts) against the real
// extension in a real VS Code: every corpus entry (test/fixtures/hostileText.json)
// goes through the approval notification, the turn-error notification and the
// sessions tree, and the rendered DOM, read by Playwright, holds no live
// command:, vscode: or file: link. Failures show in the panel; the panel keeps
// its transcript across hide/show and a webview reload; the agent's
// environment lacks the host's variables.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import type { AccordApi } from '../../extension/extension';
import type { AgentHost } from '../../extension/agents/agentHost';
import type { TurnOutcome } from '../../extension/sessions/sessionController';
import type { SurfaceReport } from '../../scripts/vscode-harness.mjs';
import { eventually, ui } from './ui';

const EXTENSION_ID = 'accord-dev.accord';
const LIVE = /^\s*(command|vscode|vscode-insiders|file)\s*:/i;
const corpus = JSON.parse(readFileSync(path.join(__dirname, '../../../test/fixtures/hostileText.json'), 'utf8')) as { links: string[]; spoofs: string[] };
const ALL = [...corpus.links, ...corpus.spoofs];
// Few enough notifications at a time that the Notifications center shows them all without scrolling.
const CHUNK = 3;

let api: AccordApi;
let root: string;
const texts: string[] = [];
const savedEnv: Record<string, string | undefined> = {};

async function inspect(name: string, action: { notification?: string } = {}): Promise<SurfaceReport> {
  const file = path.join(root, 'test-results', `${name}.json`);
  if (existsSync(file)) unlinkSync(file);
  ui({ ...action, inspect: name });
  await eventually(`the surface report ${name}`, () => existsSync(file), 60_000);
  return JSON.parse(readFileSync(file, 'utf8')) as SurfaceReport;
}

/** Inspects until `ready` holds (the workbench renders a moment after a command returns), then returns the last report. */
async function inspectUntil(name: string, ready: (r: SurfaceReport) => boolean, action: { notification?: string } = {}): Promise<SurfaceReport> {
  let report = await inspect(name, action);
  for (let i = 0; i < 30 && !ready(report); i++) {
    await new Promise((r) => setTimeout(r, 200));
    report = await inspect(name, action);
  }
  return report;
}

/** No element of any surface links anywhere VS Code would run or open: commands, extension URIs, files. */
function assertNoLiveLink(report: SurfaceReport, where: string): void {
  for (const surface of ['notification', 'dialog', 'tree', 'statusbar'] as const) {
    for (const item of report[surface]) {
      for (const link of item.links) assert.doesNotMatch(link.href, LIVE, `${where}: a live ${surface} link ${link.href} in ${JSON.stringify(item.text.slice(0, 200))}`);
    }
  }
  for (const href of report.panel.links) assert.doesNotMatch(href, LIVE, `${where}: a live link in the panel: ${href}`);
}

function agent(name: string, mode: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    command: process.execPath,
    args: ['--import', pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href, path.join(root, 'test/fixtures/hostileAcpAgent.ts')],
    env: { ELECTRON_RUN_AS_NODE: '1', HOSTILE_MODE: mode },
    ...extra,
  };
}

function host(name: string): AgentHost {
  const h = api.client.host(name);
  assert.ok(h, `agent ${name} is not configured`);
  return h;
}

async function promptIn(h: AgentHost, text: string): Promise<TurnOutcome | undefined> {
  let session = api.client.controller.current;
  if (session?.host !== h) session = await api.client.controller.newSession(h);
  assert.ok(session, `no session with ${h.name}: ${h.status.message ?? ''}`);
  return api.client.controller.prompt(h, { type: 'sendPrompt', epoch: session.epoch, text, mentions: [], images: [] });
}

const clearNotifications = () => vscode.commands.executeCommand('notifications.clearAll');

describe('a hostile agent in every VS Code surface', function () {
  this.timeout(240_000);

  before(async () => {
    const extension = vscode.extensions.getExtension<AccordApi>(EXTENSION_ID)!;
    api = await extension.activate();
    root = extension.extensionPath;
    for (const key of ['ACCORD_TEST_HOST_ONLY', 'IS_SANDBOX']) savedEnv[key] = process.env[key];
    // Variables of the extension host that no configured agent may see unless it opts in.
    process.env.ACCORD_TEST_HOST_ONLY = 'leaked';
    process.env.IS_SANDBOX = 'yes';
    await vscode.workspace.getConfiguration('accord').update('agents', [
      agent('Hostile', 'normal'),
      agent('HostileNewFails', 'session-new-fails'),
      agent('HostileSilent', 'silent'),
      agent('HostileInherits', 'normal', { inheritEnv: true }),
    ], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('accord').update('notifications', 'always', vscode.ConfigurationTarget.Global);
    api.client.router.onUpdate(({ update }) => {
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') texts.push(update.content.text);
    });
    await vscode.commands.executeCommand('workbench.view.extension.accord');
    await eventually('the chat panel', () => api.chat.isReady);
  });

  after(async () => {
    await api.client.controller.cancelTurn().catch(() => {});
    for (const [key, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await vscode.workspace.getConfiguration('accord').update('agents', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('accord').update('notifications', undefined, vscode.ConfigurationTarget.Global);
    await clearNotifications();
    // Leave the window as the next suites expect it: no Output panel (Show Agent Log opened it), no editors.
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.view.extension.accord');
  });

  it("a configured agent's environment lacks the host's variables unless it opts in with inheritEnv", async () => {
    await promptIn(host('Hostile'), 'env');
    const names = JSON.parse(texts.findLast((t) => t.startsWith('env='))!.slice(4)) as string[];
    assert.ok(names.includes('HOSTILE_MODE') && names.includes('PATH'), names.join(' '));
    assert.ok(!names.includes('ACCORD_TEST_HOST_ONLY'), 'a host variable reached the agent');
    assert.ok(!names.includes('IS_SANDBOX'), 'IS_SANDBOX reached the agent');
    assert.ok(!names.some((n) => n.startsWith('VSCODE_')), `VS Code's variables reached the agent: ${names.filter((n) => n.startsWith('VSCODE_')).join(' ')}`);
    await promptIn(host('Hostile'), 'termenv');
    const terminal = JSON.parse(texts.findLast((t) => t.startsWith('termenv='))!.slice(8)) as string[];
    assert.ok(terminal.includes('PATH'), terminal.join(' '));
    assert.ok(!terminal.includes('ACCORD_TEST_HOST_ONLY') && !terminal.includes('IS_SANDBOX'), `a host variable reached the agent's terminal: ${terminal.join(' ')}`);
    await promptIn(host('HostileInherits'), 'env');
    const inherited = JSON.parse(texts.findLast((t) => t.startsWith('env='))!.slice(4)) as string[];
    assert.ok(inherited.includes('ACCORD_TEST_HOST_ONLY'), 'inheritEnv: true did not pass the host environment');
  });

  it("the header and status bar name the agent by its configured name, not the title it gave itself", async () => {
    const h = host('Hostile');
    await promptIn(h, 'env');
    assert.equal(h.status.agentName, 'Hostile');
    assert.match(api.client.statusBar.text, /Hostile/);
    const report = await inspect('hostile-header');
    assert.match(report.panel.header, /^Hostile/);
    assert.doesNotMatch(report.panel.header, /Accord|Verified/);
    assertNoLiveLink(report, 'header');
  });

  it('every corpus entry as an approval title and command: no live link in any notification', async () => {
    const h = host('Hostile');
    for (let from = 0; from < ALL.length; from += CHUNK) {
      const to = Math.min(ALL.length, from + CHUNK);
      await clearNotifications();
      const turn = promptIn(h, `approvals ${from} ${to}`);
      try {
        await eventually(`approvals ${from}-${to} to wait`, () => api.client.approvals.pendingApprovals.length === to - from);
        const asking = (r: SurfaceReport) => r.notification.filter((n) => n.message.includes('Hostile asks for approval'));
        const report = await inspectUntil(`hostile-approvals-${from}`, (r) => asking(r).length === to - from, { notification: 'Hostile asks for approval' });
        const asked = asking(report);
        assert.equal(asked.length, to - from, `approval notifications rendered for entries ${from}-${to}`);
        for (const n of asked) assert.ok(n.message.startsWith('Hostile asks for approval'), `the agent's name is not first: ${n.message.slice(0, 120)}`);
        assertNoLiveLink(report, `approvals ${from}-${to}`);
      } finally {
        await api.client.controller.cancelTurn();
        await turn;
      }
    }
  });

  it('a title cut for the dialog can be read whole: "Show Full Request" opens the request in a read-only editor', async () => {
    const h = host('Hostile');
    await clearNotifications();
    const turn = promptIn(h, 'ask combining');
    try {
      await eventually('the approval', () => api.client.approvals.pendingApprovals.length === 1);
      ui({ notification: 'Hostile asks for approval', click: 'Show Full Request' });
      const editor = await eventually('the full request to open', () => {
        const e = vscode.window.activeTextEditor;
        return e?.document.uri.scheme === 'accord-approval' ? e : undefined;
      });
      const request = JSON.parse(editor.document.getText()) as { agent: string; toolCall: { title: string } };
      assert.equal(request.agent, 'Hostile');
      assert.equal(request.toolCall.title, `Z${'\u0301\u0316\u0317\u0318'.repeat(1250)}algo`);
      // The editor shows it; the approval is still waiting for an answer.
      assert.equal(api.client.approvals.pendingApprovals.length, 1);
    } finally {
      await api.client.controller.cancelTurn();
      await turn;
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });

  it('every corpus entry as a JSON-RPC error of a prompt: no live link in the turn-error notifications', async () => {
    const h = host('Hostile');
    const perRound = CHUNK;
    for (let from = 0; from < ALL.length; from += perRound) {
      const to = Math.min(ALL.length, from + perRound);
      await clearNotifications();
      for (let i = from; i < to; i++) {
        const outcome = await promptIn(h, `fail ${i}`);
        assert.equal(outcome?.stopReason, 'error');
      }
      const failed = (r: SurfaceReport) => r.notification.filter((n) => /Hostile.*failed/.test(n.message));
      const report = await inspectUntil(`hostile-errors-${from}`, (r) => failed(r).length === to - from, { notification: 'failed' });
      assert.equal(failed(report).length, to - from, `error notifications rendered for entries ${from}-${to}`);
      assertNoLiveLink(report, `errors ${from}`);
    }
    // The last failure is in the panel too, quoted, with its actions.
    const report = await inspect('hostile-prompt-failure');
    assert.match(report.panel.failure, /Hostile failed during the turn/);
    assertNoLiveLink(report, 'panel failure');
  });

  it('every corpus entry as a session title in the Sessions tree: no live link in any row', async () => {
    const h = host('Hostile');
    await promptIn(h, 'env');
    await vscode.commands.executeCommand('accord.refreshSessions');
    await eventually('the sessions view to list the hostile sessions', () => api.client.sessionsView.sessions.length >= ALL.length);
    await vscode.commands.executeCommand('accord.sessions.focus');
    const report = await inspectUntil('hostile-sessions-tree', (r) => r.tree.some((row) => row.message.startsWith('[Fix review]')));
    ui({ screenshot: 'hostile-sessions-tree' });
    assert.ok(report.tree.length > 0, 'no tree row rendered');
    assert.ok(report.tree.some((row) => row.message.startsWith('[Fix review](command:')), 'the hostile session titles are not in the tree (shown as plain text)');
    for (const row of report.tree) assert.doesNotMatch(row.message, /\n/, `a label spans lines: ${row.message}`);
    assertNoLiveLink(report, 'sessions tree');
    for (const item of api.client.sessionsView.sessions) {
      const label = typeof item.label === 'string' ? item.label : item.label?.label ?? '';
      assert.doesNotMatch(label, /[\n\u202E\u2066]/, `label ${JSON.stringify(label)}`);
    }
  });

  it('session/new failing shows in the panel with the agent name, the quoted error and actions; Show Agent Log shows that agent', async () => {
    await clearNotifications();
    const failing = host('HostileNewFails');
    const session = await api.client.controller.newSession(failing);
    assert.equal(session, undefined);
    assert.equal(api.client.controller.lastFailure?.stage, 'session/new');
    assert.equal(api.client.viewHost(), failing);
    assert.equal(failing.status.agentName, 'HostileNewFails');
    const report = await inspect('hostile-session-new', { notification: 'HostileNewFails' });
    assert.match(report.panel.failure, /HostileNewFails could not start a session/);
    assert.match(report.panel.failure, /IS_SANDBOX refused/);
    assert.match(report.panel.failure, /Show Log[\s\S]*Show ACP Traffic[\s\S]*Edit Agent Settings/);
    assert.match(report.panel.header, /HostileNewFails/);
    assertNoLiveLink(report, 'session/new failure');
    await vscode.commands.executeCommand('accord.showAgentLog');
    const shown = await inspect('hostile-agent-log');
    assert.ok(shown.output.some((o) => o.includes('HostileNewFails')), `the Output view shows ${JSON.stringify(shown.output)}`);
  });

  it('an agent that never answers initialize is told so within the limit', async () => {
    const silent = host('HostileSilent');
    silent.initializeTimeoutMs = 3_000; // the limit under test, not a timing assertion: the test waits for the message
    const session = await api.client.controller.newSession(silent);
    assert.equal(session, undefined);
    assert.equal(api.client.controller.lastFailure?.stage, 'initialize');
    assert.match(api.client.controller.lastFailure?.message ?? '', /did not answer initialize within 3 s/);
    const report = await inspect('hostile-silent');
    assert.match(report.panel.failure, /HostileSilent did not complete initialize/);
  });

  it('hiding the view and reloading the webview keep the transcript and the header', async () => {
    const h = host('Hostile');
    await api.client.controller.newSession(h);
    // Typed into the panel, as a person does: the panel draws the prompt itself.
    const replies = texts.filter((t) => t.startsWith('env=')).length;
    ui({ webviewClick: '.composer textarea', type: 'env\n' }); // \n is Enter
    await eventually('the reply to the typed prompt', () => texts.filter((t) => t.startsWith('env=')).length > replies);
    await eventually('the turn to end', () => api.client.controller.current?.turnInFlight === false);
    const before = await inspect('hostile-before-hide');
    assert.match(before.panel.transcript, /env=/);
    await vscode.commands.executeCommand('workbench.view.explorer');
    await vscode.commands.executeCommand('workbench.view.extension.accord');
    const shown = await inspect('hostile-after-show');
    assert.match(shown.panel.transcript, /env=/);
    assert.match(shown.panel.transcript, /env(?!=)/, "the person's own prompt is gone");
    assert.match(shown.panel.header, /^Hostile/);
    await vscode.commands.executeCommand('workbench.action.webview.reloadWebviewAction');
    // The reloaded panel says ready again and is rebuilt from the journal: look until it shows (or give up after many looks).
    const after = await inspectUntil('hostile-after-reload', (r) => /env=/.test(r.panel.transcript));
    assert.match(after.panel.transcript, /env=/);
    assert.match(after.panel.transcript, /env(?!=)/, "the person's own prompt is gone after the reload");
    assert.match(after.panel.header, /^Hostile/);
  });
});
