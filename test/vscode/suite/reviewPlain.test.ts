// The five-turn review in a window on a folder that is not a git repository:
// the bundled agent works in a shadow copy. scripts/vscode-tests.mjs opens a
// second window on a fresh plain folder for the "[plain folder]" tests only.
import * as assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AccordApi } from '../../../extension/extension';
import { hunkState, type FileReview } from '../../../extension/review/fileReview';
import { reviewUri } from '../../../extension/review/reviewDocuments';
import { WORKSPACE_METHODS } from '../../../extension/review/isolatedSource';
import { reply } from '../../fakeModelServer/index';
import { bundledAgentOnFakeModel } from '../fakeModelEnv';

const EXTENSION_ID = 'accord-dev.accord';
const numbered = (n: number, change: Record<number, string> = {}) => Array.from({ length: n }, (_, i) => `${change[i + 1] ?? `line ${i + 1}`}\n`).join('');

describe('[plain folder] review of the bundled agent in a folder without git', function () {
  this.timeout(300_000);
  let api: AccordApi;
  let workspace: string;
  const fake = bundledAgentOnFakeModel('plain', { closeEditors: true });

  before(async () => {
    api = await vscode.extensions.getExtension<AccordApi>(EXTENSION_ID)!.activate();
    workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  });

  it('five turns [plain folder]: per-turn hunks and counts, rejected stays out, a conflict given up, undo takes back only its turn', async () => {
    const file = path.join(workspace, 'five.txt');
    const other = path.join(workspace, 'other.txt');
    writeFileSync(file, numbered(20));
    writeFileSync(other, numbered(3));
    const session = await api.client.controller.newSession(api.agent);
    assert.ok(session, `no session: ${api.agent.status.message}`);
    const status = (await api.agent.connection!.agent.request(WORKSPACE_METHODS.status, { sessionId: session.sessionId })) as { mode: string };
    assert.equal(status.mode, 'shadow-copy', 'a folder without git is worked on in a shadow copy');
    const approving = api.client.approvals.onDidChange(({ approval, settled }) => {
      const allow = approval.choices.buttons.find((b) => b.kind === 'allow_once');
      if (!settled && allow) api.client.approvals.answer(approval.requestId, allow.optionId);
    });
    const edit = (id: string, f: string, from: string, to: string) => reply.tool(id, 'edit_file', { path: path.basename(f), old_string: `${from}\n`, new_string: `${to}\n` });
    let turnNo = 0;
    const turn = async (...tools: ReturnType<typeof reply.tool>[]) => {
      fake.server.script(...tools, reply.text('Done.'));
      const outcome = await api.client.controller.prompt(api.agent, { type: 'sendPrompt', epoch: session.epoch, text: `turn ${++turnNo}`, mentions: [], images: [] });
      assert.equal(outcome?.stopReason, 'end_turn', outcome?.error);
      return String(turnNo);
    };
    const review = (turnId: string, f: string): FileReview => {
      const found = api.review.store.inTurn(session.sessionId, turnId).find((r) => r.path === f);
      assert.ok(found, `turn ${turnId} reviews ${f}: ${api.review.store.inSession(session.sessionId).map((r) => `${r.turnId}:${r.path}`).join(', ')}`);
      return found;
    };
    const hunkOf = (r: FileReview, text: string) => r.hunks.findIndex((h) => h.proposedLines.join('') === `${text}\n`);
    const turnNode = (turnId: string) => ({ type: 'turn', sessionId: session.sessionId, turnId });
    try {
      const t1 = await turn(edit('p1a', file, 'line 2', 'LINE 2'), edit('p1b', file, 'line 18', 'LINE 18'));
      const r1 = review(t1, file);
      const uri = reviewUri(r1, 'proposed').toString();
      await vscode.commands.executeCommand('accord.review.acceptHunk', uri, hunkOf(r1, 'LINE 2'));
      await vscode.commands.executeCommand('accord.review.rejectHunk', uri, hunkOf(r1, 'LINE 18'));
      assert.equal(readFileSync(file, 'utf8'), numbered(20, { 2: 'LINE 2' }));

      const t2 = await turn(edit('p2a', file, 'line 10', 'LINE 10'));
      assert.equal(review(t2, file).hunks.length, 1, "turn 2 shows only its own hunk");
      await vscode.commands.executeCommand('accord.review.acceptTurn', turnNode(t2));
      assert.equal(readFileSync(file, 'utf8'), numbered(20, { 2: 'LINE 2', 10: 'LINE 10' }), "turn 1's rejected hunk stays out");

      const t3 = await turn(edit('p3a', file, 'line 5', 'LINE 5'), edit('p3b', other, 'line 1', 'O 1'));
      writeFileSync(file, numbered(20, { 2: 'LINE 2', 5: 'mine', 10: 'LINE 10' }));
      await vscode.commands.executeCommand('accord.review.acceptTurn', turnNode(t3));
      const r3 = review(t3, file);
      assert.equal(hunkState(r3, 0), 'conflict');
      assert.equal(readFileSync(other, 'utf8'), numbered(3, { 1: 'O 1' }), 'the clean file landed');
      await vscode.commands.executeCommand('accord.review.rejectHunk', reviewUri(r3, 'proposed').toString(), 0);
      assert.equal(hunkState(r3, 0), 'rejected', 'giving up on the conflict always works');
      assert.equal(readFileSync(file, 'utf8'), numbered(20, { 2: 'LINE 2', 5: 'mine', 10: 'LINE 10' }), "the person's line stays");

      const t4 = await turn(edit('p4a', file, 'line 15', 'LINE 15'));
      await vscode.commands.executeCommand('accord.review.acceptTurn', turnNode(t4));
      const t5 = await turn(edit('p5a', file, 'line 12', 'LINE 12'));
      await vscode.commands.executeCommand('accord.review.acceptTurn', turnNode(t5));
      await vscode.commands.executeCommand('accord.review.undoTurn', turnNode(t5));
      assert.equal(readFileSync(file, 'utf8'), numbered(20, { 2: 'LINE 2', 5: 'mine', 10: 'LINE 10', 15: 'LINE 15' }), 'undoing turn 5 kept turn 4');
      await vscode.commands.executeCommand('accord.review.undoTurn', turnNode(t4));
      assert.equal(readFileSync(file, 'utf8'), numbered(20, { 2: 'LINE 2', 5: 'mine', 10: 'LINE 10' }), 'undoing turn 4 kept turns 1-3');

      const asked = fake.server.requests.length;
      await turn();
      const sent = JSON.stringify(fake.server.requests.slice(asked).map((r) => r.body));
      assert.ok(sent.includes("undid turn 5 (only that turn's changes; changes from other turns are kept)"), 'the agent hears exactly what was undone');
      assert.ok(sent.includes('rejected 1 change in'), 'and which change it gave up');
    } finally {
      approving.dispose();
      rmSync(file, { force: true });
      rmSync(other, { force: true });
    }
  });
});
