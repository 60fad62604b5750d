// The diff review in a real VS Code: real diff editor, real CodeLens, real
// files on disk, real dirty buffers and a real file watcher.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AccordApi } from '../../../extension/extension';
import { isPending, type FileReview } from '../../../extension/review/fileReview';
import { reviewUri } from '../../../extension/review/reviewDocuments';
import { eventually, ui } from '../ui';
import { screenshot } from '../screenshot';

const EXTENSION_ID = 'accord-dev.accord';
const lines = (...l: string[]) => l.map((x) => x + '\n').join('');
const BASE = lines('alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota');
const PROPOSED = lines('alpha', 'BETA', 'gamma', 'delta', 'epsilon', 'zeta', 'ETA', 'theta', 'iota', 'kappa');

async function accord(): Promise<AccordApi> {
  const extension = vscode.extensions.getExtension<AccordApi>(EXTENSION_ID);
  assert.ok(extension, `extension ${EXTENSION_ID} is not installed`);
  return extension.activate();
}

/** Asks the harness for a screenshot of the workbench and waits until it is written. */
describe('Diff review in a real VS Code', () => {
  let dir = '';
  let api: AccordApi;
  let session = 0;
  /** Made once, early: its file watcher must be running before an agent writes. */
  let direct: ReturnType<AccordApi['review']['createDirectSource']>;

  before(async () => {
    api = await accord();
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the test window has a workspace folder');
    dir = mkdtempSync(path.join(folder.uri.fsPath, 'review-'));
    direct = api.review.createDirectSource();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** A file on disk and a staged proposal for it, in a fresh session. */
  async function stagedChange(name: string, base = BASE, proposed = PROPOSED): Promise<{ file: FileReview; filePath: string; sessionId: string }> {
    const filePath = path.join(dir, name);
    writeFileSync(filePath, base);
    const sessionId = `review-test-${++session}`;
    const source = api.review.createStagedSource();
    await source.stage(sessionId, 't1', filePath, proposed);
    const file = api.review.store.all().find((f) => f.sessionId === sessionId && f.path === filePath);
    assert.ok(file, 'the staged write is under review');
    return { file, filePath, sessionId };
  }

  it('opens a change in the diff editor with Accept/Reject hunk CodeLens on each of its three hunks', async () => {
    const { file, filePath } = await stagedChange('open.txt');
    await api.review.open(file);
    const tab = await eventually('the diff tab', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff ? input : undefined;
    });
    assert.equal(tab.original.toString(), reviewUri(file, 'base').toString());
    assert.equal(tab.modified.toString(), reviewUri(file, 'proposed').toString());
    const found = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', reviewUri(file, 'proposed'));
    assert.deepEqual(
      found.map((l) => [l.range.start.line, l.command?.title]),
      [
        [1, '$(check) Accept hunk'], [1, '$(discard) Reject hunk'],
        [6, '$(check) Accept hunk'], [6, '$(discard) Reject hunk'],
        [9, '$(check) Accept hunk'], [9, '$(discard) Reject hunk'],
      ],
    );
    assert.equal(readFileSync(filePath, 'utf8'), BASE, 'nothing reaches the file before a decision');
    // Screenshots document the UI; the pause lets the editor draw its CodeLens (nothing is asserted on time).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await screenshot('review-diff-hunks');
    await vscode.commands.executeCommand('accord.changes.focus');
    await screenshot('review-changes-tree');
  });

  it('accepts one hunk of three and writes exactly that hunk to disk', async () => {
    const { file, filePath } = await stagedChange('one-of-three.txt');
    await api.review.open(file);
    await vscode.commands.executeCommand('accord.review.acceptHunk', reviewUri(file, 'proposed').toString(), 1);
    assert.equal(readFileSync(filePath, 'utf8'), BASE.replace(/^eta$/m, 'ETA'));
    // The accepted hunk leaves the diff: the base side now has it too.
    const left = await vscode.workspace.openTextDocument(reviewUri(file, 'base'));
    await eventually('the base side to show the accepted hunk', () => left.getText() === BASE.replace(/^eta$/m, 'ETA'));
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', reviewUri(file, 'proposed'));
    assert.deepEqual(lenses.map((l) => l.range.start.line), [1, 1, 9, 9], 'lenses remain only on the two pending hunks');
  });

  it('accepts the hunk under the cursor with the keyboard shortcut', async () => {
    const { file, filePath } = await stagedChange('keyboard.txt');
    await api.review.open(file);
    const editor = await eventually('the proposed side focused', () => {
      const active = vscode.window.activeTextEditor;
      return active?.document.uri.toString() === reviewUri(file, 'proposed').toString() ? active : undefined;
    });
    editor.selection = new vscode.Selection(1, 0, 1, 0);
    ui({ press: 'Control+Alt+y' });
    await eventually('the first hunk on disk', () => readFileSync(filePath, 'utf8') === BASE.replace('beta', 'BETA'));
  });

  it('rejects a file: the file is untouched and the agent gets a note', async () => {
    const { file, filePath, sessionId } = await stagedChange('reject.txt');
    await api.review.open(file);
    await vscode.commands.executeCommand('accord.review.rejectFile', reviewUri(file, 'proposed'));
    assert.equal(readFileSync(filePath, 'utf8'), BASE);
    assert.equal(isPending(file), false);
    assert.match(api.review.takeContextNote(sessionId) ?? '', /rejected 3 changes in .*reject\.txt \(not applied\)/);
  });

  it('accepts all of a turn, then undoes the turn as a set', async () => {
    const { filePath, sessionId } = await stagedChange('all-a.txt');
    const second = path.join(dir, 'all-b.txt');
    writeFileSync(second, 'b\n');
    await api.review.createStagedSource().stage(sessionId, 't1', second, 'B\n');
    await vscode.commands.executeCommand('accord.review.acceptTurn', { type: 'turn', sessionId, turnId: 't1' });
    assert.equal(readFileSync(filePath, 'utf8'), PROPOSED);
    assert.equal(readFileSync(second, 'utf8'), 'B\n');
    await vscode.commands.executeCommand('accord.review.undoTurn', { type: 'turn', sessionId, turnId: 't1' });
    assert.equal(readFileSync(filePath, 'utf8'), BASE);
    assert.equal(readFileSync(second, 'utf8'), 'b\n');
    assert.match(api.review.takeContextNote(sessionId) ?? '', /undid turn t1/);
  });

  it("applies to a dirty document through the editor: the person's unsaved text stays, and undo takes the hunk back", async () => {
    const { file, filePath } = await stagedChange('dirty.txt');
    const document = await vscode.workspace.openTextDocument(filePath);
    const editor = await vscode.window.showTextDocument(document);
    await editor.edit((e) => e.replace(new vscode.Range(4, 0, 4, 'epsilon'.length), 'person was here'));
    assert.equal(document.isDirty, true);
    await vscode.commands.executeCommand('accord.review.acceptHunk', reviewUri(file, 'proposed').toString(), 0);
    const personOnly = BASE.replace('epsilon', 'person was here');
    assert.equal(document.getText(), personOnly.replace('beta', 'BETA'));
    assert.equal(document.isDirty, true, 'unsaved text stays unsaved');
    assert.equal(readFileSync(filePath, 'utf8'), BASE, 'the file on disk is not written under unsaved text');
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('undo');
    assert.equal(document.getText(), personOnly, 'the accepted hunk is one step on the undo stack');
  });

  it("reports a conflict with the person's own edit to the same line and writes nothing", async () => {
    const { file, filePath } = await stagedChange('conflict.txt');
    writeFileSync(filePath, BASE.replace('beta', 'person beta'));
    await vscode.commands.executeCommand('accord.review.acceptHunk', reviewUri(file, 'proposed').toString(), 0);
    assert.match(file.conflict ?? '', /same lines/);
    assert.equal(readFileSync(filePath, 'utf8'), BASE.replace('beta', 'person beta'));
  });

  it("reviews a direct-to-disk agent's write seen by the file watcher, and Reject restores the snapshot", async () => {
    const filePath = path.join(dir, 'direct.txt');
    writeFileSync(filePath, BASE);
    const document = await vscode.workspace.openTextDocument(filePath); // open → snapshotted at turn start
    const source = direct;
    const sessionId = `review-test-${++session}`;
    await source.beginTurn(sessionId, 't1');
    const wroteAt = Date.now();
    writeFileSync(filePath, PROPOSED); // the agent writes straight to disk
    // The watcher may see the write in steps (truncate, then content); the review follows until the last.
    const file = await eventually('the watcher to report the write', () =>
      api.review.store.all().find((f) => f.sessionId === sessionId && f.path === filePath && f.proposedText === PROPOSED),
    );
    console.log(`[measure] direct-to-disk write → reviewable through the file watcher: ${Date.now() - wroteAt} ms`);
    assert.equal(file.hunks.length, 3);
    await eventually('the editor to load the write', () => document.getText() === PROPOSED);
    await vscode.commands.executeCommand('accord.review.rejectFile', reviewUri(file, 'proposed'));
    assert.equal(readFileSync(filePath, 'utf8'), BASE);
    await source.endTurn(sessionId, 't1');
    assert.equal(file.proposedText, PROPOSED, "the restore is the review's own write, not a new change");
  });

  it('shows a binary file without diffing it, and accepts it as a whole', async () => {
    const target = path.join(dir, 'logo.png');
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    const file = api.review.store.propose({ origin: 'isolated', sessionId: `review-test-${++session}`, turnId: 't1', path: target, base: null, proposed: png });
    await api.review.open(file);
    const tab = await eventually('the binary summary tab', () => vscode.window.tabGroups.activeTabGroup.activeTab?.input);
    assert.ok(tab instanceof vscode.TabInputText, 'a binary change opens as one document, not a diff');
    const shown = await vscode.workspace.openTextDocument(reviewUri(file, 'proposed'));
    assert.match(shown.getText(), /is binary \(12 bytes\)/);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', reviewUri(file, 'proposed'));
    assert.deepEqual(lenses.map((l) => l.command?.title), ['$(check) Accept file', '$(discard) Reject file']);
    await vscode.commands.executeCommand(lenses[0]!.command!.command, ...(lenses[0]!.command!.arguments ?? []));
    assert.deepEqual(new Uint8Array(readFileSync(target)), png);
  });

  it('accepts a deletion (the file goes) and a move (the file moves with its edit)', async () => {
    const sessionId = `review-test-${++session}`;
    const doomed = path.join(dir, 'doomed.txt');
    writeFileSync(doomed, 'bye\n');
    const deletion = api.review.store.propose({ origin: 'isolated', sessionId, turnId: 't1', path: doomed, base: Buffer.from('bye\n'), proposed: null });
    const from = path.join(dir, 'from.txt');
    const to = path.join(dir, 'to.txt');
    writeFileSync(from, 'one\ntwo\n');
    const move = api.review.store.propose({
      origin: 'isolated', sessionId, turnId: 't1', path: to, movedFrom: from, base: Buffer.from('one\ntwo\n'), proposed: Buffer.from('one\nTWO\n'),
    });
    await api.review.open(deletion);
    const deletionLenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', reviewUri(deletion, 'base'));
    assert.deepEqual(deletionLenses.map((l) => l.command?.title), ['$(check) Accept hunk', '$(discard) Reject hunk'], 'a deletion is reviewed on the side that has text');
    await api.review.open(move);
    const moveLenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', reviewUri(move, 'proposed'));
    assert.equal(moveLenses[0]?.command?.title, '$(check) Accept move from from.txt');
    await vscode.commands.executeCommand('accord.review.acceptSession', { type: 'session', sessionId });
    assert.equal(existsSync(doomed), false);
    assert.equal(existsSync(from), false);
    assert.equal(readFileSync(to, 'utf8'), 'one\nTWO\n');
  });
});
