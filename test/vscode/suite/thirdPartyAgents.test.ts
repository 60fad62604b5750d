// Issue 20 in a real VS Code: scripted ACP agents (test/fixtures/fakeAcpAgent.ts)
// that behave like the third-party agents that write to disk themselves —
// opencode (writes, then fs/write_text_file without waiting; a shell call
// naming the project folder), claude (Write with oldText: null on a file that
// exists), gemini (a command only in text content) and codex (a reject option
// that aborts the turn). For each: what is on disk after allow, reject and
// undo, what the approval dialog says, and what the panel's card is told.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import type { AccordApi } from '../../../extension/extension';
import type { AgentHost } from '../../../extension/agents/agentHost';
import type { PendingApproval } from '../../../extension/approvals/approvalService';
import { isPending, kindOf, fileLineCounts, type FileReview } from '../../../extension/review/fileReview';
import type { HostMessage } from '../../../webview/protocol';
import { eventually, ui } from '../ui';

const EXTENSION_ID = 'accord-dev.accord';
const FOUR = 'one\ntwo\nthree\nfour\n';

type Answer = 'allow' | 'reject' | 'decline';

describe('Third-party agents that write to disk themselves (issue 20)', function () {
  this.timeout(180_000);
  let api: AccordApi;
  let workspace: string;
  let scratch: string;
  const stateDirs: string[] = [];
  const hosts = new Map<string, AgentHost>();
  const texts: string[] = [];
  const posted: HostMessage[] = [];
  const warnings: string[] = [];
  let answer: Answer | undefined = 'reject';
  /** The sessions these tests started. */
  const sessions = new Set<string>();
  const approvals: PendingApproval[] = [];

  before(async () => {
    const extension = vscode.extensions.getExtension<AccordApi>(EXTENSION_ID)!;
    api = await extension.activate();
    workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    scratch = mkdtempSync(path.join(workspace, 'third-party-'));
    const root = extension.extensionPath;
    const agent = (name: string) => {
      const stateDir = mkdtempSync(path.join(tmpdir(), `accord-${name.toLowerCase()}-`));
      stateDirs.push(stateDir);
      return {
        name,
        command: process.execPath,
        args: ['--import', pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href, path.join(root, 'test/fixtures/fakeAcpAgent.ts')],
        env: { ELECTRON_RUN_AS_NODE: '1', FAKE_ACP_STATE: stateDir },
      };
    };
    await vscode.workspace.getConfiguration('accord').update('agents', ['FakeOpencode', 'FakeClaude', 'FakeGemini', 'FakeCodex'].map(agent), vscode.ConfigurationTarget.Global);
    for (const name of ['FakeOpencode', 'FakeClaude', 'FakeGemini', 'FakeCodex']) {
      const host = api.client.host(name);
      assert.ok(host, `${name} is not configured`);
      hosts.set(name, host);
    }
    api.client.router.onUpdate(({ update }) => {
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') texts.push(update.content.text);
    });
    api.panel.onDidPost((message) => posted.push(message));
    // Every approval is recorded and answered as the running test says (the dialog's own buttons are clicked in one test).
    api.client.approvals.onDidChange(({ approval, settled }) => {
      if (settled || answer === undefined) return;
      approvals.push(approval);
      if (answer === 'decline') return api.client.approvals.decline(approval.requestId);
      const button = approval.choices.buttons.find((b) => b.kind === (answer === 'allow' ? 'allow_once' : 'reject_once'));
      if (button) api.client.approvals.answer(approval.requestId, button.optionId);
    });
    // What the review warns about (a failed snapshot, "could not collect"): none of it may happen here.
    const show = vscode.window.showWarningMessage;
    (vscode.window as { showWarningMessage: unknown }).showWarningMessage = (message: string, ...rest: unknown[]) => {
      if (message.startsWith('Accord could not')) warnings.push(message);
      return (show as (...args: unknown[]) => unknown)(message, ...rest);
    };
    await vscode.commands.executeCommand('workbench.view.extension.accord');
  });

  after(async () => {
    await vscode.workspace.getConfiguration('accord').update('agents', undefined, vscode.ConfigurationTarget.Global);
    for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  beforeEach(() => {
    approvals.length = 0;
    warnings.length = 0;
  });

  /** A turn of `agent` (its own session, created on first use) with approvals answered `how`. */
  async function turn(agent: string, script: string, how: Answer): Promise<{ stopReason?: string; approval: PendingApproval; sessionId: string }> {
    answer = how;
    const host = hosts.get(agent)!;
    const current = api.client.controller.current;
    const session = current?.host === host ? current : await api.client.controller.newSession(host);
    assert.ok(session, `no session: ${host.status.message}`);
    const outcome = await api.client.controller.prompt(host, { type: 'sendPrompt', epoch: session.epoch, text: script, mentions: [], images: [] });
    const approval = approvals[approvals.length - 1];
    assert.ok(approval, 'the agent asked for permission');
    sessions.add(session.sessionId);
    return { stopReason: outcome?.stopReason, approval, sessionId: session.sessionId };
  }

  const reviewOf = (sessionId: string, file: string) =>
    eventually(`the review of ${path.basename(file)}`, () => api.review.store.inSession(sessionId).find((f) => f.path === file && !f.undone && f.supersededBy === undefined));
  const lastText = (prefix: string) => [...texts].reverse().find((t) => t.startsWith(prefix));
  /** The latest card badge the panel was sent for a call's file. */
  const cardFor = (file: string) => [...posted].reverse().find((m): m is Extract<HostMessage, { type: 'diffReview' }> => m.type === 'diffReview' && m.path === file);
  /** The Changes list's entry for a file, as last sent. */
  const listedFor = (file: string) => {
    for (const m of [...posted].reverse()) {
      if (m.type !== 'reviewChanges') continue;
      const found = m.turns.flatMap((t) => t.files).find((f) => f.path === file);
      if (found) return found;
    }
    return undefined;
  };
  const fresh = (name: string, text = FOUR) => {
    const file = path.join(scratch, name);
    writeFileSync(file, text);
    return file;
  };
  const undo = (file: FileReview) => vscode.commands.executeCommand('accord.review.undoTurn', { type: 'turn', sessionId: file.sessionId, turnId: file.turnId });

  describe('opencode: writes the file, then sends fs/write_text_file without waiting', () => {
    it('allow → the review keeps the snapshot (not +0 −0); Reject restores exactly those bytes; the card counts match Changes', async () => {
      const original = 'one\r\ntwo\r\n\u00e9t\u00e9\r\nfour'; // bytes, not lines: CRLF, no final newline
      const file = fresh('opencode-allow.md', original);
      const { approval, sessionId } = await turn('FakeOpencode', `opencode ${file} ${JSON.stringify('replaced\n')}`, 'allow');
      assert.equal(approval.choices.buttons.map((b) => b.label).join(','), 'Allow once,Reject', 'only once-options');
      assert.match(approval.summary.detail, /Change: .*opencode-allow\.md \(4 → 1 line\)/);
      assert.equal(readFileSync(file, 'utf8'), 'replaced\n', 'the agent wrote the disk itself');
      const review = await reviewOf(sessionId, file);
      assert.equal(review.baseText, original, 'the base is the snapshot taken before the call ran');
      assert.ok(review.hunks.length > 0, 'a real change, not +0 −0');
      const card = await eventually('the card badge', () => cardFor(file));
      const listed = await eventually('the Changes entry', () => listedFor(file));
      assert.deepEqual([card.state, card.kind, card.added, card.removed], ['pending', listed.kind, listed.added, listed.removed]);
      await vscode.commands.executeCommand('accord.review.rejectFile', review.id);
      assert.equal(readFileSync(file, 'utf8'), original, 'Reject restores the snapshot');
      assert.equal((await eventually('the rejected card', () => cardFor(file)?.state === 'rejected' && cardFor(file))).state, 'rejected');
      assert.deepEqual(warnings, []);
    });

    it('allow → undo the turn restores the file', async () => {
      const file = fresh('opencode-undo.md');
      const { sessionId } = await turn('FakeOpencode', `opencode ${file} ${JSON.stringify('x\n')}`, 'allow');
      const review = await reviewOf(sessionId, file);
      await undo(review);
      assert.equal(readFileSync(file, 'utf8'), FOUR);
    });

    it('reject → nothing written, nothing to review, the agent is told', async () => {
      const file = fresh('opencode-reject.md');
      const { sessionId } = await turn('FakeOpencode', `opencode ${file} ${JSON.stringify('x\n')}`, 'reject');
      assert.equal(lastText('outcome='), 'outcome={"outcome":"selected","optionId":"reject"}');
      assert.equal(readFileSync(file, 'utf8'), FOUR);
      assert.equal(api.review.store.inSession(sessionId).find((f) => f.path === file), undefined);
    });
  });

  describe('a shell call that names the project folder as its location (opencode)', () => {
    it('allow → handled, not an error: the changed and the new file are reviewed; Reject and undo restore; the dialog shows the cwd from the tool call', async () => {
      const file = fresh('shell-target.txt');
      const made = path.join(scratch, 'made-by-shell.txt');
      const { approval, sessionId } = await turn('FakeOpencode', `dirshell ${scratch} ${file} ${JSON.stringify('shell wrote this\n')}`, 'allow');
      assert.match(approval.summary.detail, new RegExp(`In: ${scratch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), 'the working folder from the update that announced it');
      assert.doesNotMatch(approval.summary.detail, /could not be made reviewable/);
      const changed = await reviewOf(sessionId, file);
      const added = await reviewOf(sessionId, made);
      assert.equal(changed.baseText, FOUR);
      assert.equal(kindOf(added), 'added');
      await vscode.commands.executeCommand('accord.review.rejectFile', changed.id);
      assert.equal(readFileSync(file, 'utf8'), FOUR);
      await undo(added);
      assert.equal(existsSync(made), false, 'undo removes the file the command made');
      assert.deepEqual(warnings, [], 'no "could not collect … is a directory"');
    });

    it('reject → nothing changes', async () => {
      const file = fresh('shell-rejected.txt');
      await turn('FakeOpencode', `dirshell ${scratch} ${file} ${JSON.stringify('no\n')}`, 'reject');
      assert.equal(readFileSync(file, 'utf8'), FOUR);
      assert.equal(existsSync(path.join(scratch, 'made-by-shell.txt')), false);
    });

    it('two agents: after the folder-location turn, another agent\'s write is still reviewable (and rejectable)', async () => {
      const file = fresh('second-agent.md');
      await turn('FakeOpencode', `dirshell ${scratch} ${fresh('first-agent.txt')} ${JSON.stringify('first\n')}`, 'allow');
      const { sessionId } = await turn('FakeClaude', `claudewrite ${file} ${JSON.stringify('second\n')}`, 'allow');
      assert.equal(readFileSync(file, 'utf8'), 'second\n');
      const review = await reviewOf(sessionId, file);
      assert.ok(isPending(review), 'under review');
      assert.equal(review.baseText, FOUR);
      await vscode.commands.executeCommand('accord.review.rejectFile', review.id);
      assert.equal(readFileSync(file, 'utf8'), FOUR);
      assert.deepEqual(warnings, []);
    });
  });

  describe('claude: Write with oldText: null on a file that exists', () => {
    it('the dialog says Replace 4 lines → 1 and Show Diff has the real text; allow → reviewed as a change with the Changes counts; Reject restores', async () => {
      const file = fresh('claude-notes.md');
      const { approval, sessionId } = await turn('FakeClaude', `claudewrite ${file} ${JSON.stringify('just one\n')}`, 'allow');
      assert.match(approval.summary.detail, /Replace: .*claude-notes\.md \(4 lines → 1/);
      assert.doesNotMatch(approval.summary.detail, /Create/);
      assert.doesNotMatch(approval.summary.detail, /could not be made reviewable/, 'the four lines were kept before the answer');
      assert.equal(approval.summary.files[0]?.oldText, FOUR, 'Show Diff compares the real current text');
      const review = await reviewOf(sessionId, file);
      assert.equal(kindOf(review), 'modified');
      const card = await eventually('the card badge', () => cardFor(file));
      assert.deepEqual([card.kind, card.added, card.removed], ['modified', ...Object.values(fileLineCounts(review))]);
      await vscode.commands.executeCommand('accord.review.rejectFile', review.id);
      assert.equal(readFileSync(file, 'utf8'), FOUR);
    });

    it('the real dialog: its text says Replace, and clicking Reject leaves the file', async () => {
      const file = fresh('claude-dialog.md');
      answer = undefined; // this one is answered by clicking the workbench
      const host = hosts.get('FakeClaude')!;
      const session = api.client.controller.current?.host === host ? api.client.controller.current : await api.client.controller.newSession(host);
      assert.ok(session);
      const running = api.client.controller.prompt(host, { type: 'sendPrompt', epoch: session.epoch, text: `claudewrite ${file} ${JSON.stringify('x\n')}`, mentions: [], images: [] });
      const approval = await eventually('the approval', () => api.client.approvals.pendingApprovals[0]);
      assert.match(approval.summary.detail, /Replace: .*claude-dialog\.md \(4 lines → 1/);
      ui({ message: 'Replace: ', click: 'Reject', screenshot: 'third-party-replace-dialog' });
      await running;
      assert.equal(lastText('outcome='), 'outcome={"outcome":"selected","optionId":"reject"}');
      assert.equal(readFileSync(file, 'utf8'), FOUR);
    });

    it('a symbolic link where the file was: the dialog says the change could not be made reviewable, allow anyway?', async () => {
      const target = fresh('link-target.md');
      const link = path.join(scratch, 'linked.md');
      symlinkSync(target, link);
      const { approval } = await turn('FakeClaude', `claudewrite ${link} ${JSON.stringify('through the link\n')}`, 'reject');
      assert.match(approval.summary.detail, /^This change could not be made reviewable; allow anyway\?/);
      assert.match(approval.summary.detail, /linked\.md \(it is a symbolic link/);
      assert.deepEqual(approval.choices.buttons.map((b) => b.label), ['Allow anyway', 'Reject']);
      assert.equal(readFileSync(target, 'utf8'), FOUR);
    });
  });

  describe('claude-agent-acp 0.49 as recorded: a Read of the file, then an Edit whose diff is old_string → new_string', () => {
    it('the dialog shows the whole file changed; only the Edit card carries the review badge; Reject restores', async () => {
      const file = fresh('claude-edit.md');
      const { approval, sessionId } = await turn('FakeClaude', `claudeedit ${file} "two" "TWO"`, 'allow');
      const edited = 'one\nTWO\nthree\nfour\n';
      assert.match(approval.summary.detail, /^Change: .*claude-edit\.md \(4 → 4 lines\)$/, 'not "4 → 1 line, the file on disk is not what the agent saw"');
      assert.equal(approval.summary.files[0]?.newText, edited, 'Show Diff shows the file, not the fragment alone');
      assert.equal(readFileSync(file, 'utf8'), edited);
      const review = await reviewOf(sessionId, file);
      assert.equal(review.baseText, FOUR);
      const [, readId, editId] = /read=(\S+) edit=(\S+)/.exec(lastText('done ') ?? '') ?? [];
      const badge = (id: string | undefined) => [...posted].reverse().find((m): m is Extract<HostMessage, { type: 'diffReview' }> => m.type === 'diffReview' && m.toolCallId === id);
      const card = await eventually('the Edit card badge', () => badge(editId));
      assert.deepEqual([card.state, card.kind, card.added, card.removed], ['pending', 'modified', 1, 1]);
      assert.equal(badge(readId), undefined, 'the Read card names the file but did not change it');
      await vscode.commands.executeCommand('accord.review.rejectFile', review.id);
      assert.equal(readFileSync(file, 'utf8'), FOUR);
    });
  });

  describe('gemini: the command only in text content, no update after a rejection', () => {
    it('the dialog uses the text content; reject → nothing made and the card is told it was declined', async () => {
      const { approval } = await turn('FakeGemini', `geminishell ${scratch}`, 'reject');
      assert.match(approval.summary.detail, /Agent says: touch marker\.txt \[in /);
      assert.doesNotMatch(approval.summary.detail, /did not describe/);
      assert.equal(existsSync(path.join(scratch, 'marker.txt')), false);
      const resolved = [...posted].reverse().find((m) => m.type === 'approvalResolved' && m.requestId === approval.requestId);
      assert.ok(resolved && resolved.type === 'approvalResolved');
      assert.equal(resolved.optionId, 'cancel', "the reject option, so the panel's card shows Rejected");
    });

    it('allow → the file it made is reviewed as an addition; undo removes it', async () => {
      const { sessionId } = await turn('FakeGemini', `geminishell ${scratch}`, 'allow');
      const marker = path.join(scratch, 'marker.txt');
      assert.equal(existsSync(marker), true);
      const review = await reviewOf(sessionId, marker);
      assert.equal(kindOf(review), 'added');
      await undo(review);
      assert.equal(existsSync(marker), false);
    });
  });

  describe('codex: an add on an existing file, and a reject option that aborts the turn', () => {
    it('declining picks the plain reject, not abort: the turn goes on', async () => {
      const file = fresh('codex-declined.md');
      const { stopReason, approval } = await turn('FakeCodex', `codexedit ${file} ${JSON.stringify('added\n')}`, 'decline');
      assert.deepEqual(approval.choices.buttons.map((b) => b.label), ['Allow once', 'Reject', 'Reject and stop']);
      assert.equal(lastText('outcome='), 'outcome={"outcome":"selected","optionId":"denied"}');
      assert.equal(stopReason, 'end_turn', 'the turn was not aborted');
      assert.equal(readFileSync(file, 'utf8'), FOUR);
    });

    it('allow → card and Changes agree (M +1 −4, not new +1 −0); undo restores', async () => {
      const file = fresh('codex-add.md');
      const { approval, sessionId } = await turn('FakeCodex', `codexedit ${file} ${JSON.stringify('added\n')}`, 'allow');
      assert.match(approval.summary.detail, /Replace: .*codex-add\.md \(4 lines → 1/);
      const review = await reviewOf(sessionId, file);
      const card = await eventually('the card badge', () => cardFor(file));
      const listed = await eventually('the Changes entry', () => listedFor(file));
      assert.deepEqual([card.kind, card.added, card.removed], ['modified', 1, 4]);
      assert.deepEqual([listed.kind, listed.added, listed.removed], ['modified', 1, 4]);
      await undo(review);
      assert.equal(readFileSync(file, 'utf8'), FOUR);
    });
  });

  // Last (mocha runs a suite's own tests before its nested ones): every agent has had its session by now.
  describe('labels', () => {
    it('sessions are told apart by agent and start time, and review tabs name session and turn', async () => {
      const labels = [...sessions].map((id) => api.review.sessionLabel(id));
      assert.ok(labels.length >= 4, `every agent had a session: ${labels.join(' | ')}`);
      assert.equal(new Set(labels).size, labels.length, `distinct: ${labels.join(' | ')}`);
      for (const label of labels) assert.match(label, /^Fake\w+ session of /);
      const file = fresh('tab-title.md');
      const { sessionId } = await turn('FakeClaude', `claudewrite ${file} ${JSON.stringify('t\n')}`, 'allow');
      const review = await reviewOf(sessionId, file);
      await api.review.open(review);
      const tab = await eventually('the review tab', () => vscode.window.tabGroups.activeTabGroup.activeTab);
      assert.equal(tab.label, `tab-title.md (Accord review: ${api.review.sessionLabel(sessionId)}, turn ${review.turnId})`);
      await vscode.commands.executeCommand('accord.review.rejectFile', review.id);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
  });
});
