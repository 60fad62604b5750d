// The panel as a person first meets it, in a real VS Code with the packaged
// extension and the fake model server (issue 18): the Changes view collapsed
// and explained, one "+", Stop in the view title only mid-turn, "Working…"
// and Stop the moment the first prompt is sent (timed in the webview), the
// unsent prompt kept across "Reload Webviews", and the folder's last session
// reopened after a window reload. Screenshots in Dark and Light go to
// test-results/ (the workbench opens in Light; the Dark set follows a theme switch).
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { resultsDir, runCommand as runCommandIn, showAccordView, webviewFrame, type VscodeServer, type Workbench } from '../../scripts/vscode-harness.mjs';
import { reply, type FakeModelServer } from '../fakeModelServer/index';
import { workbenchOnFakeModel } from './fakeModelWorkbench';

let model: FakeModelServer;
let server: VscodeServer;
let workbench: Workbench;
let page: Page;
const config = mkdtempSync(join(tmpdir(), 'accord-e2e-layout-config-'));

async function screenshot(name: string): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  await page.mouse.move(700, 850); // no hover tooltips in the picture
  await page.screenshot({ path: join(resultsDir, `${name}.png`) });
}

/** Polls `probe` (a page query) until it holds, or fails naming `what`. */
async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const paneHeader = (title: string) => page.locator('.part.sidebar .pane-header', { has: page.locator('h3.title', { hasText: new RegExp(`^${title}$`, 'i') }) });
/** View-title actions anywhere in the side bar (rendered or not: a `when` that is false renders none). */
const titleActions = (label: string) => page.locator(`.part.sidebar .title-actions [aria-label^="${label}"], .part.sidebar .pane-header .actions [aria-label^="${label}"]`);

before(async () => {
  ({ model, server, workbench, page } = await workbenchOnFakeModel({ config }));
});

after(async () => {
  if (page) await screenshot('layout-last').catch(() => {});
  await workbench?.close();
  await server?.close();
  await model?.close();
  rmSync(config, { recursive: true, force: true });
});

async function openPanel(): Promise<void> {
  await showAccordView(page);
  await webviewFrame(page).locator('#agent-status[data-state="connected"]').waitFor({ timeout: 120_000 });
}

/** From the Command Palette; typed only once it has focus, never into the panel's composer (see the harness). */
const runCommand = (title: string) => runCommandIn(page, title);

test('idle: Changes collapsed and explained, one "+", no Stop in the view title', { timeout: 300_000 }, async () => {
  await openPanel();
  const panel = webviewFrame(page);
  assert.equal(await paneHeader('Changes').getAttribute('aria-expanded'), 'false', 'the Changes view starts collapsed');
  assert.equal(await titleActions('Cancel Turn').count(), 0, 'no Stop in the view title while idle');
  assert.equal(await titleActions('New Session').count(), 0, 'the view title has no second "+"');
  assert.equal(await panel.locator('.codicon-add').count(), 1, 'the panel has one "+"');
  await screenshot('layout-idle-light');
  await paneHeader('Changes').click();
  await page.getByText('Changes the agent makes to your files wait here for your review').waitFor({ timeout: 30_000 });
  await screenshot('layout-changes-empty-light');
  await paneHeader('Changes').click();
});

test('the first prompt: "Working…" and Stop at once while the session is created; Stop in the view title only mid-turn', { timeout: 420_000 }, async () => {
  await openPanel();
  const panel = webviewFrame(page);
  // A slowly streamed answer holds the turn open. (A command's approval would not: the bundled agent runs with
  // durable requests, so a turn that asks ends 'waiting' at once.)
  model.script({ ...reply.text('Layout turn finished.'), delayMs: 1500 });
  const composer = panel.locator('.composer textarea');
  await composer.click();
  await composer.fill('run the layout check');
  // Timed inside the webview: from the Enter keydown to the first frame that shows both "Working…" and Stop.
  await composer.evaluate(() => {
    const w = window as unknown as { __feedback?: number; __sentAt?: number };
    document.addEventListener('keydown', (e) => { if (e.key === 'Enter') w.__sentAt = performance.now(); }, { capture: true });
    new MutationObserver(() => {
      if (w.__sentAt !== undefined && w.__feedback === undefined && document.querySelector('.working') && document.querySelector('vscode-button.stop')) {
        w.__feedback = performance.now() - w.__sentAt;
      }
    }).observe(document.body, { subtree: true, childList: true });
  });
  await composer.press('Enter');
  await panel.locator('.working').waitFor({ timeout: 30_000 });
  const ms = await composer.evaluate(() => (window as unknown as { __feedback?: number }).__feedback);
  assert.ok(ms !== undefined, 'Working… and Stop showed');
  console.log(`[measure] real VS Code: first prompt (session created by it) → "Working…" and Stop: ${ms.toFixed(1)} ms`);

  await until('Stop in the view title mid-turn', async () => (await titleActions('Cancel Turn').count()) > 0);
  await screenshot('layout-mid-turn-light');
  await panel.getByText('Layout turn finished.').first().waitFor({ timeout: 120_000 });
  await until('Stop to leave the view title', async () => (await titleActions('Cancel Turn').count()) === 0);
  await screenshot('layout-turn-done-light');
});

test('"Reload Webviews" keeps the transcript and the unsent prompt', { timeout: 300_000 }, async () => {
  await openPanel();
  const composer = webviewFrame(page).locator('.composer textarea');
  await composer.click();
  await composer.fill('a draft to keep');
  await until('the draft to be saved', async () => (await composer.inputValue()) === 'a draft to keep');
  await runCommand('Developer: Reload Webviews');
  await openPanel();
  const panel = webviewFrame(page);
  await panel.getByText('Layout turn finished.').first().waitFor({ timeout: 60_000 });
  await until('the draft back in the composer', async () => (await panel.locator('.composer textarea').inputValue().catch(() => '')) === 'a draft to keep');
});

test('Dark theme screenshots', { timeout: 300_000 }, async () => {
  await runCommand('Preferences: Toggle between Light/Dark Themes');
  await until('the dark theme', async () => (await page.locator('.monaco-workbench.vs-dark').count()) > 0);
  await openPanel();
  await screenshot('layout-idle-dark');
  await paneHeader('Changes').click();
  await page.getByText('Changes the agent makes to your files wait here for your review').waitFor({ timeout: 30_000 });
  await screenshot('layout-changes-empty-dark');
  await paneHeader('Changes').click();
});

test('a window reload reopens the last session of the folder', { timeout: 420_000 }, async () => {
  await page.reload();
  await openPanel();
  try {
    await webviewFrame(page).getByText('Layout turn finished.').first().waitFor({ timeout: 120_000 });
  } catch (error) {
    await screenshot('layout-reopen-failed');
    throw error;
  }
  await screenshot('layout-reopened-dark');
});
