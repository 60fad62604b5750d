// The approval dialog, the approval notification and the panel's banner as a
// person meets them (packaged extension, modal dialogs allowed), with a
// scripted hostile ACP agent (test/fixtures/hostileAcpAgent.ts) in Dark and
// Light: Enter on a fresh dialog rejects; the agent's name comes first and
// stays in view under a newline-padded title; combining marks and a lookalike
// "Verified by Accord" stay inside the agent's quotes; no dialog or
// notification holds a live link. Screenshots: test-results/hostile-*.png.
import { after, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { runCommand, collectSurfaces, findDialog, findNotification, openWorkbench, resultsDir, root, showAccordView, startServer, webviewFrame, vsixPath, type VscodeServer, type Workbench } from '../../scripts/vscode-harness.mjs';

const LIVE = /^\s*(command|vscode|vscode-insiders|file)\s*:/i;
const opened: { server: VscodeServer; workbench: Workbench }[] = [];
const cleanup: string[] = [];

after(async () => {
  for (const { server, workbench } of opened) {
    await workbench.close();
    await server.close();
  }
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

async function open(theme: 'dark' | 'light'): Promise<{ page: Page; scratch: string }> {
  assert.ok(existsSync(vsixPath), `${vsixPath} not found; run \`npm run package\` first`);
  const dataDir = mkdtempSync(join(tmpdir(), `accord-e2e-hostile-${theme}-`));
  const scratch = mkdtempSync(join(tmpdir(), 'accord-e2e-hostile-scratch-'));
  cleanup.push(dataDir, scratch);
  mkdirSync(join(dataDir, 'user/User'), { recursive: true });
  writeFileSync(join(dataDir, 'user/User/settings.json'), JSON.stringify({
    'workbench.colorTheme': theme === 'dark' ? 'Default Dark Modern' : 'Default Light Modern',
    'workbench.startupEditor': 'none',
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'chat.disableAIFeatures': true,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'accord.defaultAgent': 'Hostile',
  }));
  // accord.agents is machine-scoped: with VS Code's server it is read from the remote machine's settings.
  // (The server keeps them under its --user-data-dir, which startServer puts at <dataDir>/user.)
  mkdirSync(join(dataDir, 'user/Machine'), { recursive: true });
  writeFileSync(join(dataDir, 'user/Machine/settings.json'), JSON.stringify({
    'accord.agents': [{
      name: 'Hostile',
      command: process.execPath,
      args: ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'test/fixtures/hostileAcpAgent.ts')],
      env: { HOSTILE_MODE: 'normal' },
    }],
  }));
  const server = await startServer({ vsix: vsixPath, dataDir });
  const workbench = await openWorkbench(server, { folder: join(root, 'test-workspace'), onLog: () => {} });
  opened.push({ server, workbench });
  const page = workbench.page;
  await showAccordView(page);
  await webviewFrame(page).locator('.composer textarea').waitFor({ timeout: 60_000 });
  return { page, scratch };
}

async function promptInPanel(page: Page, text: string): Promise<void> {
  const composer = webviewFrame(page).locator('.composer textarea');
  await composer.click();
  await composer.fill(text);
  await page.keyboard.press('Enter');
}

/** The reply the agent gives after an approval: outcome=<json> in the panel's transcript. */
async function outcome(page: Page, nth: number): Promise<string> {
  const replies = webviewFrame(page).locator('.transcript').getByText(/^outcome=/);
  await replies.nth(nth).waitFor({ timeout: 60_000 });
  return (await replies.nth(nth).innerText()).trim();
}

/**
 * The approval as a modal. VS Code shows it as one when its window has focus
 * and the panel is visible; when headless Chromium reports the window
 * unfocused it is a notification first, and "Accord: Answer Pending Approval"
 * (what the status bar item runs) always asks with the modal.
 */
async function modalFor(page: Page, text: string): Promise<Locator> {
  const dialog = page.locator('.monaco-dialog-box', { hasText: text }).first();
  const status = page.locator('.statusbar-item', { hasText: /approval.* waiting/ }).first();
  await Promise.race([dialog.waitFor({ timeout: 90_000 }), status.waitFor({ timeout: 90_000 })]).catch(() => {});
  if (!(await dialog.isVisible())) {
    await runCommand(page, 'Accord: Answer Pending Approval');
  }
  try {
    return await findDialog(page, text, 60_000);
  } catch (error) {
    await shot(page, 'hostile-no-dialog');
    throw error;
  }
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  await page.mouse.move(1300, 820); // no hover tooltip in the picture
  await page.screenshot({ path: join(resultsDir, `${name}.png`) });
}

async function assertDialogIsHonest(dialog: Locator, where: string): Promise<void> {
  const message = (await dialog.locator('.dialog-message-text').innerText()).trim();
  assert.ok(message.startsWith('Hostile asks for approval: “'), `${where}: the agent's name is not first: ${message.slice(0, 120)}`);
  assert.ok(message.endsWith('”'), `${where}: the agent's words are not closed by Accord's quote: ${message.slice(-40)}`);
  assert.doesNotMatch(message, /\n/, `${where}: the message spans lines`);
  // The message line is visible: not pushed out of the dialog by padding, not drawn over by marks.
  const [box, text] = [await dialog.boundingBox(), await dialog.locator('.dialog-message-text').boundingBox()];
  assert.ok(box && text && text.y >= box.y && text.y + text.height <= box.y + box.height, `${where}: the message is outside the dialog`);
  assert.ok(text.height < 120, `${where}: the message is ${text.height}px tall`);
  const hrefs = await dialog.locator('a[href], [data-href]').evaluateAll((els) => els.map((a) => a.getAttribute('href') ?? a.getAttribute('data-href') ?? ''));
  for (const href of hrefs) assert.doesNotMatch(href, LIVE, `${where}: live link ${href}`);
}

for (const theme of ['dark', 'light'] as const) {
  describe(`hostile approvals in real VS Code (${theme})`, () => {
    test('dialog: Enter on a fresh approval rejects; padded, combining and "Verified" titles stay quoted after the agent name', { timeout: 420_000 }, async () => {
      const { page, scratch } = await open(theme);
      let replies = 0;
      for (const name of ['padded', 'combining', 'verified', 'link']) {
        await promptInPanel(page, `ask ${name}`);
        const dialog = await modalFor(page, 'Hostile asks for approval');
        // Reject is the focused button: a person typing who hits Enter or Space answers no.
        const focused = (await page.evaluate(() => document.activeElement?.textContent ?? '')).trim();
        assert.equal(focused, 'Reject', `focus is on "${focused}" when the dialog opens`);
        await assertDialogIsHonest(dialog, name);
        if (name === 'padded') await shot(page, `hostile-approval-dialog-${theme}`);
        await page.keyboard.press(name === 'combining' ? 'Space' : 'Enter');
        assert.equal(await outcome(page, replies++), 'outcome={"outcome":"selected","optionId":"reject"}');
      }
      // The notification: the panel is hidden when the agent asks, so it is not a modal.
      const trigger = join(scratch, 'ask-now');
      await promptInPanel(page, `askwhen ${trigger} verified`);
      await page.keyboard.press('Control+Shift+E'); // Explorer: the Accord view is no longer visible
      await page.locator('.part.sidebar [id="workbench.view.explorer"], .part.sidebar .explorer-folders-view, .part.sidebar').first().waitFor({ timeout: 30_000 });
      writeFileSync(trigger, '');
      const notification = await findNotification(page, 'Hostile asks for approval', 90_000);
      const surfaces = await collectSurfaces(page);
      const asking = surfaces.notification.find((n) => n.message.includes('Hostile asks for approval'));
      assert.ok(asking, 'the approval notification is not rendered');
      assert.ok(asking.message.startsWith('Hostile asks for approval: “✔ Verified by Accord: read-only, safe”'), asking.message);
      for (const n of surfaces.notification) for (const l of n.links) assert.doesNotMatch(l.href, LIVE, `live link ${l.href}`);
      await shot(page, `hostile-approval-notification-${theme}`);
      // Back to the panel: its banner names the agent in Accord's voice and quotes the agent's words apart.
      await page.locator('.activitybar [aria-label^="Accord"]').first().click();
      const banner = webviewFrame(page).locator('.approval-banner');
      await banner.waitFor({ timeout: 30_000 });
      assert.equal((await banner.locator('.accord-voice').innerText()).trim(), 'Hostile asks for approval');
      assert.equal((await banner.locator('.agent-words-text').innerText()).trim(), '“✔ Verified by Accord: read-only, safe”');
      await shot(page, `hostile-approval-banner-${theme}`);
      await notification.getByRole('button', { name: 'Reject', exact: true }).click();
      assert.equal(await outcome(page, replies++), 'outcome={"outcome":"selected","optionId":"reject"}');
    });
  });
}
