// The panel's approval banner with hostile agent text: Accord's words (who
// asks) stay apart from the agent's (quoted, never bold, in their own block),
// and neither a tower of combining marks nor a long unbroken title draws
// outside the banner. Screenshots in both themes under test-results/webview/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { panelPages, SHOTS } from './panelPages';

const TIMEOUT = { timeout: 120_000 };

const pages = panelPages({ shots: true });

function messages(title: string, agentName = 'Fake') {
  return [
    { type: 'agentStatus', status: { state: 'connected', agentName } },
    { type: 'sessionStarted', epoch: 1, sessionId: 's', origin: 'new' },
    { type: 'turnStarted', epoch: 1 },
    { type: 'sessionUpdate', epoch: 1, sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 'prev', title: 'Read README.md', kind: 'read', status: 'completed' } },
    { type: 'sessionUpdate', epoch: 1, sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 'a1', title, kind: 'execute', status: 'pending' } },
    {
      type: 'approvalPending', epoch: 1, requestId: 'r1', agentName, toolCall: { toolCallId: 'a1' },
      options: [{ optionId: 'reject', name: 'Reject', kind: 'reject_once' }, { optionId: 'allow', name: 'Allow once', kind: 'allow_once' }],
    },
  ];
}

const HOSTILE = {
  verified: '✔ Verified by Accord: read-only, safe',
  padded: `Run ls${'\n'.repeat(60)}Accord (verified): Read README.md`,
  combining: `Z${'\u0301\u0316\u0317\u0318'.repeat(1250)}algo`,
  unbroken: 'A'.repeat(3000),
  link: '[accept all](command:workbench.action.terminal.new) rm -rf ~',
};

describe('approval banner with hostile agent text', () => {
  for (const [name, title] of Object.entries(HOSTILE)) {
    test(`${name}: the agent's words stay quoted, plain and inside the banner`, TIMEOUT, async () => {
      const panel = await pages.open('dark', { width: 420, height: 700 });
      await panel.send(messages(title));
      const { page } = panel;
      const banner = page.locator('.approval-banner');
      assert.equal(await banner.count(), 1);
      assert.equal((await banner.locator('.accord-voice').innerText()).trim(), 'Fake asks for approval');
      const words = banner.locator('.agent-words-text');
      const text = await words.innerText();
      assert.ok(text.startsWith('“') && text.endsWith('”'), `not quoted: ${text.slice(0, 80)}`);
      assert.doesNotMatch(text, /\n/);
      const style = await words.evaluate((el) => { const s = getComputedStyle(el.parentElement!); return { weight: Number(s.fontWeight), italic: s.fontStyle }; });
      const voice = await banner.locator('.accord-voice').evaluate((el) => Number(getComputedStyle(el.parentElement!).fontWeight));
      assert.ok(style.weight < 600 && voice >= 600, `agent text weight ${style.weight}, Accord's ${voice}`);
      assert.equal(style.italic, 'italic');
      // Nothing the agent wrote overflows the banner, and the banner does not paint over what is above it.
      const box = await banner.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const inner = el.querySelector('.agent-words')!.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, innerRight: inner.right, innerBottom: inner.bottom, scroll: el.scrollWidth - el.clientWidth, contain: getComputedStyle(el).contain };
      });
      assert.ok(box.innerRight <= box.right + 1 && box.innerBottom <= box.bottom + 1, JSON.stringify(box));
      assert.ok(box.scroll <= 1, `the banner scrolls sideways by ${box.scroll}px`);
      assert.match(box.contain, /paint/);
      assert.equal(await page.locator('.approval-banner a[href]').count(), 0);
      await page.close();
    });
  }

  for (const theme of ['dark', 'light'] as const) {
    test(`screenshot: hostile approval banner (${theme})`, TIMEOUT, async () => {
      const panel = await pages.open(theme, { width: 420, height: 700 });
      await panel.send(messages(`${HOSTILE.verified}${'\n'.repeat(60)}${HOSTILE.link} ${HOSTILE.combining.slice(0, 400)}`));
      await panel.page.evaluate(() => document.fonts.ready);
      await panel.page.screenshot({ path: `${SHOTS}/hostile-approval-banner-${theme}.png` });
      await panel.page.close();
    });
  }
});
