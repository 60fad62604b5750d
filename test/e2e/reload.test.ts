// A window reload mid-turn, in a real VS Code with the packaged extension:
// the bundled agent runs as the bridge to its daemon, so the turn keeps
// running while the window reloads; the reloaded panel reattaches to the
// session and the approval that was waiting is asked again. Answering it
// there lets the turn finish.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { findMessage, openWorkbench, resultsDir, root, showAccordView, startServer, webviewFrame, type VscodeServer, vsixPath, type Workbench } from '../../scripts/vscode-harness.mjs';
import { reply, startFakeModelServer, type FakeModelServer } from '../fakeModelServer/index';

let model: FakeModelServer;
let server: VscodeServer;
let workbench: Workbench;
let page: Page;
const config = mkdtempSync(join(tmpdir(), 'accord-e2e-reload-config-'));

async function screenshot(name: string): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  await page.screenshot({ path: join(resultsDir, `${name}.png`) }).catch(() => {});
}

before(async () => {
  assert.ok(existsSync(vsixPath), `${vsixPath} not found; run \`npm run package\` first`);
  model = await startFakeModelServer();
  server = await startServer({
    vsix: vsixPath,
    env: {
      ANTHROPIC_API_KEY: 'test-key',
      ACCORD_ANTHROPIC_BASE_URL: model.baseUrl,
      ACCORD_MODEL: 'anthropic:claude-sonnet-4-5',
      ACCORD_CONFIG_DIR: config,
      ACCORD_LOCAL_SERVERS: '',
      ACCORD_SANDBOX: 'off',
    },
  });
  workbench = await openWorkbench(server, { folder: join(root, 'test-workspace'), onLog: () => {} });
  page = workbench.page;
});

after(async () => {
  if (page) await screenshot('reload-last');
  await workbench?.close();
  await server?.close();
  await model?.close();
  rmSync(config, { recursive: true, force: true });
});

async function openPanel(): Promise<void> {
  await showAccordView(page);
  const panel = webviewFrame(page);
  await panel.locator('#agent-status[data-state="connected"]').waitFor({ timeout: 120_000 });
}

test('reload the window mid-turn: the panel reattaches and the waiting approval is asked again', { timeout: 420_000 }, async () => {
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
  await screenshot('reload-approval-before');

  await page.reload();
  await openPanel();
  let again;
  try {
    again = await findMessage(page, 'reloaded-window', 180_000);
  } catch (error) {
    await screenshot('reload-no-approval-after');
    throw error;
  }
  await screenshot('reload-approval-after');
  await again.getByRole('button', { name: 'Allow once', exact: true }).click();
  await webviewFrame(page).getByText('Reattached and finished.').first().waitFor({ timeout: 120_000 });
  await screenshot('reload-finished');
});
