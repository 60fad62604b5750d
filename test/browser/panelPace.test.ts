// The panel while an agent streams (issue 17): streamed chunks render paced
// (view/renderPacer.ts) over a long transcript (view/heightIndex.ts), and
// nothing of them is lost; `ready` carries the panel's boot timings for the
// startup marks. Screenshot under test-results/webview/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { panelPages, SHOTS } from './panelPages';

const TIMEOUT = { timeout: 180_000 };

const pages = panelPages({ shots: true });

/** Waits until the page's text includes `text` somewhere (a function, not a string: the panel's CSP forbids eval). */
async function untilText(page: import('playwright-core').Page, text: string): Promise<void> {
  await page.waitForFunction((wanted) => document.body.textContent?.includes(wanted) ?? false, text, { timeout: 120_000, polling: 50 });
}

describe('the panel while an agent streams', () => {
  test('ready carries when the bundle was requested, loaded and ran, in that order (for the startup marks)', TIMEOUT, async () => {
    const panel = await pages.open();
    const ready = (await panel.posted()).find((m) => m.type === 'ready') as { boot?: Record<string, number> } | undefined;
    const boot = ready?.boot;
    assert.ok(boot, 'ready has boot timings');
    assert.ok(boot.requested! >= 0 && boot.requested! <= boot.loaded! && boot.loaded! <= boot.ran! && boot.ran! <= boot.ready!, JSON.stringify(boot));
    await panel.page.close();
  });

  test('what the extension answers to ready while the rest of the bundle is still loading is kept and shown, in order', TIMEOUT, async () => {
    const page = await pages.browser.context.newPage();
    // A fast extension: its answer arrives (synchronously here) the moment ready is posted, before the panel's handler exists.
    await page.addInitScript(`Object.defineProperty(window, 'acquireVsCodeApi', { configurable: true,
      set(make) { this.__make = () => { const api = make(); const post = api.postMessage; api.postMessage = (m) => { post(m);
        if (m && m.type === 'ready') for (const data of [
          { type: 'hello', version: 1, epoch: 0 },
          { type: 'agentStatus', status: { state: 'starting' } },
          { type: 'agentStatus', status: { state: 'connected', agentName: 'Early Agent', agentVersion: '9.9' } },
        ]) window.dispatchEvent(new MessageEvent('message', { data }));
      }; return api; }; },
      get() { return this.__make; } });`);
    await page.goto(`${pages.origin}/?theme=dark`);
    await page.locator('#agent-status[data-state="connected"]').waitFor({ timeout: 120_000 });
    assert.match(await page.locator('.header').first().innerText(), /Early Agent/);
    await page.close();
  });

  test('a burst of chunks over a 5,000-message session: every chunk shows, the view stays at the bottom, the start stays reachable', TIMEOUT, async () => {
    const panel = await pages.open('dark', { width: 480, height: 700 });
    const { page } = panel;
    const history: unknown[] = [{ type: 'sessionStarted', epoch: 1, sessionId: 's', origin: 'load' }, { type: 'replayBegin', epoch: 1 }];
    for (let i = 0; i < 5000; i += 1) {
      const user = i % 2 === 0;
      history.push({ type: 'sessionUpdate', epoch: 1, sessionId: 's', update: { sessionUpdate: user ? 'user_message_chunk' : 'agent_message_chunk', messageId: `h${i}`, content: { type: 'text', text: user ? `Question ${i}` : `Answer ${i} with **bold** text.` } } });
    }
    history.push({ type: 'replayEnd', epoch: 1 }, { type: 'agentStatus', status: { state: 'connected', agentName: 'Accord' } }, { type: 'turnStarted', epoch: 1 });
    await panel.send(history);
    await untilText(page, 'Answer 4999 with');
    // 400 chunks posted from timers, several per frame as a fast model sends them; the last one says where it ends.
    const words = Array.from({ length: 400 }, (_, i) => `w${i} `);
    // (A string, not a function: tsx would wrap the named inner functions in a helper the page lacks.)
    await page.evaluate(`new Promise((done) => {
      const list = ${JSON.stringify(words)};
      let at = 0;
      const pump = () => {
        for (let n = 0; n < 7 && at < list.length; n += 1, at += 1) {
          window.postMessage({ type: 'sessionUpdate', epoch: 1, sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', messageId: 'live', content: { type: 'text', text: list[at] } } }, '*');
        }
        if (at < list.length) setTimeout(pump, 4);
        else done();
      };
      pump();
    })`);
    await untilText(page, 'w399');
    const live = await page.locator('.msg-agent').last().innerText();
    assert.equal(live.trim(), words.join('').trim(), 'every streamed chunk, in order');
    // Pinned to the bottom: the end of the live message is inside the transcript's visible box.
    const pinned = await page.evaluate(() => {
      const scroller = document.querySelector('.transcript') as HTMLElement;
      return scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 30;
    });
    assert.ok(pinned, 'the transcript follows the stream');
    await page.screenshot({ path: `${SHOTS}/streaming-over-history-dark.png` });
    // The estimate-and-measure list still reaches the first message of the long history.
    await page.evaluate(`new Promise((done) => {
      const scroller = document.querySelector('.transcript');
      const step = () => {
        scroller.scrollTop = 0;
        if (document.body.textContent.includes('Question 0')) done();
        else requestAnimationFrame(step);
      };
      step();
    })`);
    assert.ok(await page.locator('text=Question 0').first().isVisible());
    await page.close();
  });
});
