// A durable approval across a window reload, in a real VS Code with the
// packaged extension: the bundled agent (the bridge to its daemon, with
// --durable-requests) ends the turn `waiting`; the panel says so and the
// status bar counts the approval. The window reloads while the native dialog
// is open; the reloaded window reopens the session, the agent asks again,
// the panel and status bar show it again, and "Allow once" in the native
// dialog answers it once: the command runs and the turn finishes.
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { findMessage, resultsDir, root, showAccordView, webviewFrame, type VscodeServer, type Workbench } from '../../scripts/vscode-harness.mjs';
import { reply, type FakeModelServer } from '../fakeModelServer/index';
import { workbenchOnFakeModel } from './fakeModelWorkbench';

let model: FakeModelServer;
let server: VscodeServer;
let workbench: Workbench;
let page: Page;
const config = mkdtempSync(join(tmpdir(), 'accord-e2e-reload-config-'));
// The agent's own state dir: its own daemon and logs, never a daemon another run (or the person) has going.
const home = mkdtempSync(join(tmpdir(), 'accord-e2e-reload-home-'));

async function screenshot(name: string): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  await page.screenshot({ path: join(resultsDir, `${name}.png`) }).catch(() => {});
}

before(async () => {
  ({ model, server, workbench, page } = await workbenchOnFakeModel({ config, home }));
});

after(async () => {
  if (page) await screenshot('reload-last');
  await workbench?.close();
  await server?.close();
  await model?.close();
  // The daemon outlives the window by design: stop it before its directory goes.
  spawnSync(process.execPath, [join(root, 'dist/agent.js'), 'daemon', 'stop'], { env: { PATH: process.env.PATH, HOME: config, ACCORD_HOME: home }, stdio: 'ignore', timeout: 60_000 });
  rmSync(config, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

async function openPanel(): Promise<void> {
  await showAccordView(page);
  const panel = webviewFrame(page);
  await panel.locator('#agent-status[data-state="connected"]').waitFor({ timeout: 120_000 });
}

/**
 * After a reload the reopened session asks again as soon as Accord is active:
 * its modal dialog can come up before the view is shown (and then blocks the
 * activity bar), or only once the view is shown. Looks for the dialog, and
 * shows the view meanwhile.
 */
async function dialogAfterReload(text: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dialog = await findMessage(page, text, 5_000).catch(() => undefined);
    if (dialog) return dialog;
    await showAccordView(page, 10_000).catch(() => undefined);
  }
  throw new Error(`no dialog containing "${text}" within ${timeoutMs} ms of the reload`);
}

const approvalsWaiting = () => page.locator('.part.statusbar').getByText(/1 approval waiting/).first();

test('a durable approval survives a window reload with its dialog open, and the native dialog answers it once', { timeout: 420_000 }, async () => {
  await openPanel();
  model.script(
    // A command: it always asks (edits of the session's own copy do not).
    reply.tool('toolu_reload', 'run_command', { argv: ['echo', 'reloaded-window'] }),
    reply.text('Reattached and finished.'),
  );
  const composer = webviewFrame(page).locator('.composer textarea');
  await composer.click();
  await composer.fill('run the reload check');
  await composer.press('Enter');

  const before = await findMessage(page, 'reloaded-window', 120_000);
  assert.ok(before, 'the approval is asked before the reload');
  await webviewFrame(page).getByText(/Waiting for your approval/).first().waitFor({ timeout: 120_000 });
  await approvalsWaiting().waitFor({ timeout: 60_000 });
  await screenshot('reload-approval-before');

  await page.reload();
  let again;
  try {
    again = await dialogAfterReload('reloaded-window', 180_000);
  } catch (error) {
    await screenshot('reload-no-approval-after');
    throw error;
  }
  await approvalsWaiting().waitFor({ timeout: 60_000 });
  await screenshot('reload-approval-after');
  const requestsBefore = model.requests.length;
  await again.getByRole('button', { name: 'Allow once', exact: true }).click();
  await openPanel();
  await webviewFrame(page).getByText('Reattached and finished.').first().waitFor({ timeout: 120_000 });
  await screenshot('reload-finished');
  await approvalsWaiting().waitFor({ state: 'detached', timeout: 60_000 });
  // Answered once: one model request after the answer, carrying the command's output exactly once.
  assert.equal(model.requests.length, requestsBefore + 1);
  const messages = model.requests.at(-1)!.body.messages as Array<{ content: unknown }>;
  const results = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c: any) => c.type === 'tool_result' && c.tool_use_id === 'toolu_reload');
  assert.equal(results.length, 1, 'one result for the approved call');
  assert.match(JSON.stringify(results[0]), /reloaded-window/, 'the command ran');
});
