// The panel's boot script (webview/boot.ts) says `ready` before the panel's
// bundle has arrived, keeps what the extension answers meanwhile, and hands
// it to the bundle in order once it runs: the header says "connected" without
// a second round trip (issue 17).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { panelPages } from './panelPages';

const pages = panelPages();

test('ready goes out while the bundle is still loading; what the extension sends meanwhile is rendered once it runs', { timeout: 120_000 }, async () => {
  const page = await pages.browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  // Hold the bundle (as VS Code's resource loading can, for a 300 kB file) until the test lets it go.
  await page.route('**/webview.js', async (route) => {
    await released;
    await route.continue();
  });
  try {
    await page.goto(`${pages.origin}/?theme=dark`, { waitUntil: 'commit' });
    await page.waitForFunction(() => (window as unknown as { __posted?: Array<{ type: string }> }).__posted?.some((m) => m.type === 'ready'));
    assert.equal(await page.evaluate(() => performance.getEntriesByName('accord: bundle evaluated').length), 0, 'ready was said before the bundle ran');
    // The extension's answer to ready, in the order the PanelBridge sends it.
    await page.evaluate(() => {
      window.postMessage({ type: 'hello', version: 1, epoch: 0 }, '*');
      window.postMessage({ type: 'agentStatus', status: { state: 'starting' } }, '*');
      window.postMessage({ type: 'agentStatus', status: { state: 'connected', agentName: 'Accord', agentVersion: '9.9.9' } }, '*');
    });
    release();
    const status = page.locator('#agent-status');
    await status.locator('xpath=self::*[@data-state="connected"]').waitFor({ timeout: 60_000 });
    assert.equal(await status.innerText(), 'Accord 9.9.9', 'the last status wins: the kept messages were handed over in order');
    const posted = (await page.evaluate(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted)).map((m) => m.type);
    assert.equal(posted.filter((t) => t === 'ready').length, 1, 'one ready');
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __cspViolations: unknown[] }).__cspViolations), [], 'no CSP violations');
    assert.deepEqual(errors, []);
  } finally {
    release();
    await page.close();
  }
});

test('the boot script owns the channel: a second handler is refused and window.accordBoot cannot be replaced', { timeout: 120_000 }, async () => {
  const panel = await pages.open();
  const outcome = await panel.page.evaluate(() => {
    const w = window as unknown as { accordBoot: { onHostMessage(h: () => void): void } };
    const original = w.accordBoot;
    let second = 'accepted';
    try {
      original.onHostMessage(() => {});
    } catch (error) {
      second = (error as Error).message;
    }
    try {
      (w as { accordBoot: unknown }).accordBoot = { onHostMessage() {} };
    } catch {
      // strict mode would throw; either way it must stay
    }
    return { second, same: w.accordBoot === original };
  });
  assert.match(outcome.second, /has a message handler already/);
  assert.ok(outcome.same, 'window.accordBoot is not writable');
  await panel.page.close();
});
