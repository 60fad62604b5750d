// The README's two screenshots, taken from a real VS Code with the bundled
// agent on the fake model server: the panel mid-turn (an edit made, the answer
// streaming, Stop offered) and the review of that edit in VS Code's diff
// editor. They land in test-results/readme-*.png; media/screenshot-*.png are the
// copies the README shows (refresh them from a run of this test).
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { eventually } from './ui';
import { bundledAgentOnFakeModel } from './fakeModelEnv';
import { screenshot } from './screenshot';

describe('README screenshots', function () {
  this.timeout(120_000);
  const fake = bundledAgentOnFakeModel('readme', { scratch: 'readme-demo', closeEditors: true });

  it('the panel mid-turn, then the diff review of its edit', async () => {
    const file = path.join(fake.scratch, 'greet.js');
    writeFileSync(file, 'export function greet(name) {\n  return "Hi " + name;\n}\n\nexport function farewell(name) {\n  return "Bye " + name;\n}\n');
    const relative = path.relative(vscode.workspace.workspaceFolders![0]!.uri.fsPath, file);
    fake.server.script(
      { type: 'stream', parts: [{ text: 'I will use template literals in both functions.' }, { toolCall: { id: 'toolu_1', name: 'edit_file', args: { path: relative, old_string: '"Hi " + name', new_string: '`Hello, ${name}!`' } } }] },
      { type: 'stream', parts: [{ toolCall: { id: 'toolu_2', name: 'edit_file', args: { path: relative, old_string: '"Bye " + name', new_string: '`Goodbye, ${name}.`' } } }] },
      // The answer starts streaming, then the model pauses: the turn is still running when the screenshot is taken.
      { type: 'stream', parts: [{ text: 'Both greetings now use template literals. ' }, { text: 'Next I will' }], stallAfterParts: 1 },
    );
    await vscode.commands.executeCommand('accord.chat.focus');
    const session = await fake.api.client.controller.newSession(fake.api.agent);
    assert.ok(session, `no session: ${fake.api.agent.status.message}`);
    const turn = fake.api.client.controller.prompt(fake.api.agent, { type: 'sendPrompt', epoch: session.epoch, text: 'Make greet.js use template literals', mentions: [], images: [] });
    await fake.server.waitForRequests(3);
    await eventually('both edits under review', () => fake.api.review.store.inSession(session.sessionId).find((f) => f.path === file));
    // The file beside the panel, as a person would have it open: unchanged until the review is accepted.
    await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false, preserveFocus: true });
    await screenshot('readme-panel-mid-turn');
    await fake.api.client.controller.cancelTurn();
    await turn;
    const review = fake.api.review.store.inSession(session.sessionId).find((f) => f.path === file);
    assert.ok(review, 'the edit is under review');
    await vscode.commands.executeCommand('accord.review.open', review.id);
    await eventually('the review diff editor', () => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff);
    await screenshot('readme-diff-review');
  });
});
