// Terminals and sign-in in the chat panel alone in Chromium (issue 18): tool
// cards draw terminal output as a terminal (monospace, ANSI colours from the
// terminal palette, no escape sequence reaching the DOM, the end of long
// output), and an agent that needs a sign-in gets its methods as buttons.
// Screenshots in both themes under test-results/webview/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Panel } from './harness';
import { panelPages, SHOTS } from './panelPages';

const TIMEOUT = { timeout: 120_000 };

const pages = panelPages({ shots: true });

/** A finished command's terminal is collapsed like other output; the person opens it. */
async function openFinished(panel: Panel): Promise<void> {
  await panel.page.click('.tool-card[data-tool-call-id="b1"] .tool-header');
  await panel.settle();
}

describe('terminals in tool cards', () => {
  for (const theme of ['dark', 'light'] as const) {
    test(`screenshots: terminals and sign-in (${theme})`, TIMEOUT, async () => {
      for (const name of ['terminals', 'sign-in']) {
        const panel = await pages.withFixture(name, theme);
        if (name === 'terminals') await openFinished(panel);
        await panel.page.evaluate(() => document.fonts.ready);
        await panel.page.screenshot({ path: `${SHOTS}/${name}-${theme}.png` });
        const violations = await panel.page.evaluate(() => (window as unknown as { __cspViolations: unknown[] }).__cspViolations);
        assert.deepEqual(violations, [], 'no CSP violations');
        await panel.page.close();
      }
    });
  }

  test('an agent-owned terminal renders as a terminal: monospace, coloured, rewritten progress, exit code, no escape sequence', TIMEOUT, async () => {
    const panel = await pages.withFixture('terminals');
    const { page } = panel;
    const card = page.locator('.tool-card[data-tool-call-id="b1"]');
    assert.equal(await card.locator('.terminal-screen').count(), 0, 'a finished command starts collapsed');
    await openFinished(panel);
    const screen = card.locator('.terminal-screen');
    const text = await screen.innerText();
    assert.match(text, /✔ parses config/);
    assert.match(text, /progress 100%/);
    assert.doesNotMatch(text, /progress 10%/, 'a carriage return rewrites the line');
    assert.match(text, /not a link/);
    assert.doesNotMatch(text, /hijacked title|\x1b|\[3[0-9]m/, 'escape sequences never reach the text');
    assert.equal(await card.locator('a').count(), 0, 'an OSC 8 hyperlink is not a link');
    assert.equal(await card.locator('.ansi-fg-2').first().innerText(), '✔');
    const font = await screen.evaluate((el) => getComputedStyle(el).fontFamily);
    assert.match(font, /mono/i);
    const green = await card.locator('.ansi-fg-2').first().evaluate((el) => getComputedStyle(el).color);
    const plain = await screen.evaluate((el) => getComputedStyle(el).color);
    assert.notEqual(green, plain, 'the colour comes from the terminal palette');
    assert.equal(await card.locator('.terminal-exit').innerText(), 'Exited with code 0');
    await page.close();
  });

  test('a client-owned terminal shows the extension\'s output and its failure; one still running says it waits', TIMEOUT, async () => {
    const { page } = await pages.withFixture('terminals');
    const failed = page.locator('.tool-card[data-tool-call-id="b2"]');
    assert.match(await failed.locator('.terminal-screen').innerText(), /1 problem \(1 error, 0 warnings\)/);
    assert.equal(await failed.locator('.terminal-exit.failed').innerText(), 'Exited with code 1');
    const waiting = page.locator('.tool-card[data-tool-call-id="b3"]');
    assert.equal(await waiting.locator('.terminal-screen').innerText(), 'Waiting for output…');
    await page.close();
  });

  test('long output shows its end, bounded, with Show all; the screen scrolls instead of growing', TIMEOUT, async () => {
    const panel = await pages.withFixture('terminals');
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} ${'.'.repeat(20)}`).join('\n');
    await panel.send([{ type: 'terminalOutput', epoch: 1, terminalId: 'term-client-2', output: lines, dropped: true }]);
    await panel.settle();
    const card = panel.page.locator('.tool-card[data-tool-call-id="b3"]');
    const text = await card.locator('.terminal-screen').innerText();
    assert.match(text, /line 2999/);
    assert.doesNotMatch(text, /line 0 /);
    assert.match(await card.locator('.truncated').innerText(), /Showing the last/);
    const { client, scroll } = await card.locator('.terminal-screen').evaluate((el) => ({ client: el.clientHeight, scroll: el.scrollHeight }));
    assert.ok(client <= 340 && scroll > client, `the screen is bounded and scrolls (${client}px of ${scroll}px)`);
    await card.locator('[data-action="show-all"]').click();
    await panel.settle();
    assert.match(await card.locator('.terminal-screen').innerText(), /line 0 /);
    assert.match(await card.locator('.truncated').innerText(), /Earlier output was dropped/);
    await panel.page.close();
  });
});

describe('sign-in offered in the failure notice', () => {
  test('each method is a button posting authenticate with its id; descriptions are plain text', TIMEOUT, async () => {
    const { page, posted } = await pages.withFixture('sign-in');
    const buttons = page.locator('[data-action="authenticate"]');
    assert.equal(await buttons.count(), 3);
    assert.match(await page.locator('.auth-choices').innerText(), /asks you to sign in first/);
    assert.equal(await page.locator('.auth-choices img').count(), 0, 'hostile markup is text');
    assert.match(await page.locator('.auth-choices').innerText(), /<img src=x onerror=alert\(1\)>/);
    assert.equal(await buttons.nth(2).locator('.codicon-terminal').count(), 1, 'the terminal method says so');
    assert.equal(await buttons.nth(0).locator('.codicon-terminal').count(), 0);
    await buttons.nth(1).click();
    assert.deepEqual((await posted()).at(-1), { type: 'authenticate', methodId: 'gemini-api-key' });
    await page.close();
  });
});
