// UI test in Debian Chromium against a real VS Code with the packaged VSIX
// installed: the Accord panel shows the bundled agent connected, and a real
// approval notification is answered by clicking "Allow once".
// Screenshots go to test-results/ (look at them when this fails).
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { runCommand, findMessage, findNotification, openWorkbench, resultsDir, root, showAccordView, startServer, webviewFrame, type VscodeServer, vsixPath, type Workbench } from '../../scripts/vscode-harness.mjs';

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const vsix = vsixPath;
const results = resultsDir;

let server: VscodeServer;
let workbench: Workbench;
let page: Page;

async function screenshot(name: string): Promise<void> {
  mkdirSync(results, { recursive: true });
  await page.mouse.move(700, 400); // no hover tooltips in the picture
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(results, `${name}.png`) });
}

before(async () => {
  assert.ok(existsSync(vsix), `${vsix} not found; run \`npm run package\` first`);
  // ACCORD_TEST_COMMANDS reaches the extension host and enables accord.test.raiseApproval in the installed VSIX.
  server = await startServer({ vsix, env: { ACCORD_TEST_COMMANDS: '1' } });
  workbench = await openWorkbench(server, { folder: join(root, 'test-workspace'), onLog: () => {} });
  page = workbench.page;
});

after(async () => {
  if (page) await screenshot('last').catch(() => {});
  await workbench?.close();
  await server?.close();
});

test('the Accord panel says the bundled agent is connected', { timeout: 180_000 }, async () => {
  await showAccordView(page);
  const panel = webviewFrame(page);
  // The panel's header: #agent-status carries the agent state and shows "<name> <version>" from initialize.
  const connected = panel.locator('#agent-status[data-state="connected"]');
  try {
    await connected.waitFor({ timeout: 60_000 });
  } catch (error) {
    await screenshot('panel-not-connected');
    throw error;
  }
  assert.equal((await connected.textContent())?.trim(), `Accord ${version}`);
  await page.waitForTimeout(500); // let the view finish laying out before the screenshot
  await screenshot('panel-connected');
});

test('a real approval notification is answered by clicking "Allow once"', { timeout: 180_000 }, async () => {
  await runCommand(page, 'Accord: Raise Test Approval');

  // A modal dialog while the panel is visible and the window focused, else a notification (ApprovalService decides).
  const approval = await findMessage(page, 'Accord asks for approval: “Run echo hello”', 60_000);
  await page.waitForTimeout(500); // the toast slides in
  await screenshot('approval');
  await approval.getByRole('button', { name: 'Allow once', exact: true }).click();

  const answer = await findNotification(page, 'Accord approval answer:', 30_000);
  assert.match((await answer.textContent()) ?? '', /Accord approval answer: allow/);
  await page.waitForTimeout(500); // the toast slides in
  await screenshot('approval-answered');
});
