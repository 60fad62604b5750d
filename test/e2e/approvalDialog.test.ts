// The approval dialog as a person meets it in the packaged extension (not in
// extension-test mode, where VS Code refuses modal dialogs): an agent offering
// "Always allow" next to once-only options gets a dialog with only
// "Allow once" and "Reject"; clicking "Allow once" answers allow_once.
// And in a restricted workspace no agent starts and the panel says why.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, findMessage, findNotification, openWorkbench, resultsDir, root, showAccordView, startServer, webviewFrame, type VscodeServer, vsixPath, type Workbench } from '../../scripts/vscode-harness.mjs';

const vsix = vsixPath;
const results = resultsDir;
const opened: { server: VscodeServer; workbench: Workbench }[] = [];
const cleanup: string[] = [];

async function open(options: { workspaceTrust?: boolean; dataDir?: string } = {}) {
  assert.ok(existsSync(vsix), `${vsix} not found; run \`npm run package\` first`);
  const server = await startServer({ vsix, env: { ACCORD_TEST_COMMANDS: '1' }, ...options });
  const workbench = await openWorkbench(server, { folder: join(root, 'test-workspace'), onLog: () => {} });
  opened.push({ server, workbench });
  return workbench.page;
}

after(async () => {
  for (const { server, workbench } of opened) {
    await workbench.close();
    await server.close();
  }
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

test('an approval offers only "Allow once" and "Reject"; clicking "Allow once" answers allow_once', { timeout: 240_000 }, async () => {
  const page = await open();
  await showAccordView(page);
  await webviewFrame(page).locator('body').waitFor({ timeout: 60_000 });
  await runCommand(page, 'Accord: Raise Once-Only Approval');

  const prompt = await findMessage(page, 'Accord asks for approval: “Run npm test”', 60_000);
  const labels = (await prompt.getByRole('button').allTextContents()).map((t) => t.trim()).filter(Boolean);
  assert.ok(labels.includes('Allow once') && labels.includes('Reject'), `buttons: ${labels.join(', ')}`);
  assert.ok(!labels.some((l) => /always/i.test(l)), `an "always" option was offered: ${labels.join(', ')}`);
  assert.match((await prompt.textContent()) ?? '', /npm test/);
  mkdirSync(results, { recursive: true });
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(results, 'approval-once-only.png') });
  await prompt.getByRole('button', { name: 'Allow once', exact: true }).click();

  const answer = await findNotification(page, 'Accord approval outcome:', 30_000);
  assert.match((await answer.textContent()) ?? '', /"optionId":"once"/);
});

test('in a restricted workspace the agent does not start and the panel says why', { timeout: 240_000 }, async () => {
  // Workspace trust on, and no startup question: an untrusted folder opens in Restricted Mode.
  const dataDir = mkdtempSync(join(tmpdir(), 'accord-e2e-restricted-'));
  cleanup.push(dataDir);
  mkdirSync(join(dataDir, 'user/User'), { recursive: true });
  writeFileSync(join(dataDir, 'user/User/settings.json'), JSON.stringify({
    'security.workspace.trust.enabled': true,
    'security.workspace.trust.startupPrompt': 'never',
    'workbench.startupEditor': 'none',
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'chat.disableAIFeatures': true,
  }));
  const page = await open({ workspaceTrust: true, dataDir });
  await showAccordView(page);
  const reason = webviewFrame(page).getByText(/restricted|trust/i).first();
  try {
    await reason.waitFor({ timeout: 60_000 });
  } finally {
    await page.screenshot({ path: join(results, 'restricted-workspace-last.png') }).catch(() => {});
  }
  await page.screenshot({ path: join(results, 'restricted-workspace.png') });
});
