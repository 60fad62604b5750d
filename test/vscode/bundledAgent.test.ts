// End to end as a person meets it: the bundled agent (dist/agent.js on VS
// Code's runtime) with the fake model server as its model. An edit lands in
// the agent's isolated copy without a question (the review is the approval);
// a command raises a real approval and Playwright clicks "Allow once";
// accepting the review changes the file exactly as shown; the context gauge moves.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PendingApproval } from '../../extension/approvals/approvalService';
import { reply } from '../fakeModelServer/index';
import { eventually, ui } from './ui';
import type { SurfaceReport } from '../../scripts/vscode-harness.mjs';
import { bundledAgentOnFakeModel } from './fakeModelEnv';
import { approvalPrompt } from '../../extension/approvals/approvalPrompt';


/** The harness's report of the workbench as drawn (test/vscode/README.md, `inspect`). */
async function inspect(name: string): Promise<SurfaceReport> {
  const file = path.join(vscode.extensions.getExtension('accord-dev.accord')!.extensionPath, 'test-results', `${name}.json`);
  if (existsSync(file)) unlinkSync(file);
  ui({ inspect: name });
  await eventually(`the surface report ${name}`, () => existsSync(file), 60_000);
  return JSON.parse(readFileSync(file, 'utf8')) as SurfaceReport;
}

/** Inspects until `ready` holds (the webview renders a moment after a turn ends), then returns the last report. */
async function inspectPanel(name: string, ready: (r: SurfaceReport) => boolean): Promise<SurfaceReport> {
  let report = await inspect(name);
  for (let i = 0; i < 50 && !ready(report); i++) {
    await new Promise((r) => setTimeout(r, 200));
    report = await inspect(name);
  }
  return report;
}

describe('the bundled agent end to end', function () {
  this.timeout(120_000);
  const fake = bundledAgentOnFakeModel('e2e', { scratch: 'accord-e2e' });

  it('an edit waits for review without a dialog; a command raises a real one; accepting the review changes the file', async () => {
    const file = path.join(fake.scratch, 'app.js');
    writeFileSync(file, 'console.log("hi");\n');
    const relative = path.relative(vscode.workspace.workspaceFolders![0]!.uri.fsPath, file);
    fake.server.script(
      { type: 'stream', parts: [{ toolCall: { id: 'toolu_1', name: 'edit_file', args: { path: relative, old_string: '"hi"', new_string: '"hello"' } } }, { toolCall: { id: 'toolu_2', name: 'run_command', args: { argv: ['echo', 'checked'] } } }] },
      { type: 'stream', parts: [{ text: 'Done: it now says hello.' }], usage: { input: 2000, output: 20 } },
    );
    const session = await fake.api.client.controller.newSession(fake.api.agent);
    assert.ok(session, `no session: ${fake.api.agent.status.message}`);
    let raised = 0;
    const counting = fake.api.client.approvals.onDidChange(({ settled }) => void (settled ? undefined : (raised += 1)));
    const pending = new Promise<PendingApproval>((resolve) => {
      const sub = fake.api.client.approvals.onDidChange(({ approval, settled }) => {
        if (!settled) {
          sub.dispose();
          resolve(approval);
        }
      });
    });
    const turn = fake.api.client.controller.prompt(fake.api.agent, { type: 'sendPrompt', epoch: session.epoch, text: 'make app.js say hello', mentions: [], images: [] });
    const approval = await pending;
    assert.match(approval.summary.title, /echo/, `the first question is the command's: ${approval.summary.title}`);
    assert.equal(readFileSync(file, 'utf8'), 'console.log("hi");\n', "the person's file changed before review");
    // The bundled agent runs with --durable-requests: the turn ends waiting and the answer continues it on the next prompt.
    const waited = await turn;
    assert.equal(waited?.stopReason, 'waiting', waited?.error);
    assert.ok(approval.durable, 'the request carries the agent\'s own id');
    ui({ message: approvalPrompt({ agentName: approval.agentName, title: approval.summary.title, detail: approval.summary.detail }).message, click: 'Allow once', screenshot: 'bundled-agent-approval' });
    const outcome = await eventually('the answered turn to end', () => {
      const last = fake.api.client.controller.lastOutcome;
      return last && last !== waited && last;
    });
    assert.equal(outcome.stopReason, 'end_turn', outcome.error);
    // The agent changed its isolated copy; the person's file changes when they accept the review.
    assert.equal(readFileSync(file, 'utf8'), 'console.log("hi");\n', 'the edit waits for review');
    assert.equal(raised, 1, 'only the command asked');
    counting.dispose();
    const review = fake.api.review.store.inSession(session.sessionId).find((f) => f.path === file);
    assert.ok(review, 'the edit is under review');
    await vscode.commands.executeCommand('accord.review.acceptFile', review.id);
    assert.equal(readFileSync(file, 'utf8'), 'console.log("hello");\n');
    assert.match(fake.api.client.statusBar.text, /\d+%/, `no context gauge in "${fake.api.client.statusBar.text}"`);
  });
  it('a child session renders nested in the task that started it, with its title and state; opened, it shows its own work', async () => {
    fake.server.script(
      { type: 'stream', parts: [{ toolCall: { id: 'toolu_task', name: 'task', args: { description: 'Survey the notes', prompt: 'Read nothing; just report "child-report-42".' } } }] },
      { type: 'stream', parts: [{ text: 'child-report-42' }] },
      { type: 'stream', parts: [{ text: 'The child reported back.' }] },
    );
    const session = await fake.api.client.controller.newSession(fake.api.agent);
    assert.ok(session, `no session: ${fake.api.agent.status.message}`);
    await vscode.commands.executeCommand('accord.chat.focus');
    const outcome = await fake.api.client.controller.prompt(fake.api.agent, { type: 'sendPrompt', epoch: session.epoch, text: 'delegate the survey', mentions: [], images: [] });
    assert.equal(outcome?.stopReason, 'end_turn', outcome?.error);
    const drawn = await inspectPanel('child-session-nested', (r) => r.panel.children.some((c) => c.title === 'Survey the notes' && c.state !== 'running'));
    const child = drawn.panel.children.find((c) => c.title === 'Survey the notes');
    assert.ok(child, `no child drawn: ${JSON.stringify(drawn.panel.children)}`);
    assert.equal(child.inToolCard, true, 'the child is nested in the task tool card, not a sibling of it');
    assert.equal(child.open, false, 'collapsed until opened');
    ui({ webviewClick: '.child-session .child-header' });
    const opened = await inspectPanel('child-session-open', (r) => r.panel.children.some((c) => c.open && c.text.includes('child-report-42')));
    assert.ok(opened.panel.children.some((c) => c.open && c.text.includes('child-report-42')), `the open child shows its own text: ${JSON.stringify(opened.panel.children)}`);
    assert.match(opened.panel.transcript, /The child reported back\./);
  });

  it("a session starts in the accord.mode setting's mode (auto); switching the panel's mode picker to Ask makes the next edit ask", async () => {
    const file = path.join(fake.scratch, 'mode.js');
    writeFileSync(file, 'x = 1;\n');
    const relative = path.relative(vscode.workspace.workspaceFolders![0]!.uri.fsPath, file);
    const session = await fake.api.client.controller.newSession(fake.api.agent);
    assert.ok(session, `no session: ${fake.api.agent.status.message}`);
    const mode = () => session.configOptions.find((o) => o.category === 'mode') as { id: string; currentValue?: unknown } | undefined;
    assert.equal(mode()?.currentValue, 'auto', `the mode option: ${JSON.stringify(mode())}`);
    // What the panel's picker posts.
    await fake.api.client.controller.setConfigOption({ type: 'setConfigOption', epoch: session.epoch, configId: mode()!.id, value: 'ask' });
    assert.equal(mode()?.currentValue, 'ask');
    const asked: PendingApproval[] = [];
    const approving = fake.api.client.approvals.onDidChange(({ approval, settled }) => void (settled ? undefined : asked.push(approval)));
    try {
      fake.server.script(reply.tool('toolu_m', 'edit_file', { path: relative, old_string: '1', new_string: '2' }), reply.text('Edited.'));
      const waited = await fake.api.client.controller.prompt(fake.api.agent, { type: 'sendPrompt', epoch: session.epoch, text: 'set x to 2', mentions: [], images: [] });
      // The bundled agent runs with --durable-requests: a turn that asks ends waiting, and the answer continues it.
      assert.equal(waited?.stopReason, 'waiting', `in Ask mode the edit asked: ${waited?.error ?? ''}`);
      // Answered once the turn has ended waiting, as the person would.
      const allow = asked[0]?.choices.buttons.find((b) => b.kind === 'allow_once');
      assert.ok(allow, `an Allow once button: ${JSON.stringify(asked[0]?.choices.buttons)}`);
      assert.ok(fake.api.client.approvals.answer(asked[0]!.requestId, allow.optionId), 'the answer was taken');
      const outcome = await eventually('the answered turn to end', () => {
        const last = fake.api.client.controller.lastOutcome;
        return last && last !== waited && last;
      });
      assert.equal(outcome.stopReason, 'end_turn', outcome.error);
      assert.equal(asked.length, 1, `in Ask mode the edit asked: ${JSON.stringify(asked.map((a) => a.summary.title))}`);
      assert.equal(readFileSync(file, 'utf8'), 'x = 1;\n', 'allowed or not, the edit still waits for review');
    } finally {
      approving.dispose();
    }
  });
});
