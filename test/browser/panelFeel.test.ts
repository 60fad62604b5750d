// The panel's finish (issue 18): feedback the moment a prompt is sent, the
// `/` hint only when the agent has commands, a history that shows 8+ rows and
// scrolls, tooltips wherever text is cut, and the state a webview reload keeps.
// Screenshots go to test-results/webview/ in Dark and Light.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { panelPages, SHOTS } from './panelPages';

const TIMEOUT = { timeout: 120_000 };
const connected = { type: 'agentStatus', status: { state: 'connected', agentName: 'Accord', agentVersion: '0.1.0' } };

const pages = panelPages({ shots: true });

describe('the first prompt', () => {
  for (const theme of ['dark', 'light'] as const) {
    test(`shows Working… and Stop before the host answers, and keeps them while its session is created (${theme})`, TIMEOUT, async () => {
      const panel = await pages.open(theme);
      const { page } = panel;
      await panel.send([{ type: 'hello', version: 1, epoch: 0 }, connected]);
      await page.click('.composer textarea');
      await page.keyboard.type('add a README');
      // Measured in the page: from the Enter keydown to the first frame showing both "Working…" and Stop.
      await page.evaluate(() => {
        const w = window as unknown as { __feedback?: number; __sentAt?: number };
        document.addEventListener('keydown', (e) => { if (e.key === 'Enter') w.__sentAt = performance.now(); }, { capture: true });
        new MutationObserver(() => {
          if (w.__sentAt !== undefined && w.__feedback === undefined && document.querySelector('.working') && document.querySelector('vscode-button.stop')) {
            w.__feedback = performance.now() - w.__sentAt;
          }
        }).observe(document.body, { subtree: true, childList: true });
      });
      await page.keyboard.press('Enter');
      await page.locator('.working').waitFor();
      await page.locator('vscode-button.stop').waitFor();
      const ms = await page.evaluate(() => (window as unknown as { __feedback?: number }).__feedback);
      assert.ok(ms !== undefined, 'the panel showed Working… and Stop');
      console.log(`[measure] first prompt (no session yet) → "Working…" and Stop on screen: ${ms.toFixed(1)} ms (${theme})`);
      const sent = (await panel.posted()).filter((m) => m.type === 'sendPrompt');
      assert.equal(sent.length, 1);
      await page.screenshot({ path: `${SHOTS}/first-prompt-working-${theme}.png` });

      // The host creates the session for it: the prompt and its feedback stay.
      await panel.send([{ type: 'sessionStarted', epoch: 1, sessionId: 's-new', origin: 'new' }]);
      assert.equal(await page.locator('.working').count(), 1, 'still working while the session starts');
      assert.equal(await page.locator('vscode-button.stop').count(), 1);
      assert.match(await page.locator('.transcript').innerText(), /add a README/);
      await panel.send([{ type: 'turnStarted', epoch: 1 }, { type: 'turnEnded', epoch: 1, stopReason: 'end_turn' }]);
      assert.equal(await page.locator('.working').count(), 0);
      assert.equal(await page.locator('vscode-button.send').count(), 1);
      await page.close();
    });
  }

  test('Stop before the session exists posts cancelTurn; the host ending the prompt unsent clears the feedback and says why', TIMEOUT, async () => {
    const panel = await pages.open();
    const { page } = panel;
    await panel.send([{ type: 'hello', version: 1, epoch: 0 }, connected]);
    await page.click('.composer textarea');
    await page.keyboard.type('hello');
    await page.keyboard.press('Enter');
    await page.locator('vscode-button.stop').click();
    assert.equal((await panel.posted()).at(-1)?.type, 'cancelTurn');
    await panel.send([{ type: 'turnEnded', epoch: 0, stopReason: 'error', error: 'The prompt was not sent: Accord has no session.' }]);
    assert.equal(await page.locator('.working').count(), 0);
    assert.match(await page.locator('.turn-end').innerText(), /not sent/);
    await page.close();
  });
});

describe('the prompt hint', () => {
  test('names / only once the agent offers commands', TIMEOUT, async () => {
    const panel = await pages.open();
    const { page } = panel;
    await panel.send([{ type: 'hello', version: 1, epoch: 0 }, connected, { type: 'sessionStarted', epoch: 1, sessionId: 's1', origin: 'new' }]);
    const area = page.locator('.composer textarea');
    assert.doesNotMatch((await area.getAttribute('placeholder')) ?? '', /\//);
    assert.doesNotMatch(await page.locator('.empty').innerText(), /\//);
    await panel.send([{ type: 'sessionUpdate', epoch: 1, sessionId: 's1', update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'review', description: 'Review the diff' }] } }]);
    assert.match((await area.getAttribute('placeholder')) ?? '', /\/ for commands/);
    await area.click();
    await page.keyboard.type('/');
    await page.locator('.completion').first().waitFor();
    assert.equal(await page.locator('.completion-label').first().innerText(), '/review');
    await page.close();
  });
});

const manySessions = Array.from({ length: 20 }, (_, i) => ({
  sessionId: `s-${i}`,
  title: i === 3 ? `A very long session title that goes on and on about refactoring the configuration loader ${'and more '.repeat(8)}` : `Session ${i}`,
  updatedAt: new Date(Date.UTC(2026, 10, 29 - i)).toISOString(),
}));

describe('history and tooltips', () => {
  for (const theme of ['dark', 'light'] as const) {
    test(`the history shows at least 8 rows in a short panel and scrolls to the last (${theme})`, TIMEOUT, async () => {
      const panel = await pages.open(theme, { width: 340, height: 420 });
      const { page } = panel;
      await panel.send([{ type: 'hello', version: 1, epoch: 0 }, connected, { type: 'sessionList', sessions: manySessions }]);
      await page.click('[data-action="history"]');
      await page.locator('.history-item').nth(19).waitFor({ state: 'attached' });
      // Rows wholly inside the list's visible box, not counting its title.
      const box = await page.locator('.history').evaluate((el) => {
        const bottom = el.getBoundingClientRect().top + el.clientTop + el.clientHeight;
        const rows = [...el.querySelectorAll('.history-item')].filter((r) => r.getBoundingClientRect().bottom <= bottom + 0.5).length;
        return { rows, scrolls: el.scrollHeight > el.clientHeight };
      });
      assert.ok(box.rows >= 8, `only ${box.rows} whole rows show`);
      assert.ok(box.scrolls, 'the list scrolls');
      await page.screenshot({ path: `${SHOTS}/history-many-${theme}.png` });
      await page.locator('.history-item').nth(19).scrollIntoViewIfNeeded();
      assert.ok(await page.locator('.history-item').nth(19).isVisible());
      await page.close();
    });
  }

  test('a cut title, agent name, session title or model name has a tooltip with all of it', TIMEOUT, async () => {
    const panel = await pages.open('dark', { width: 300, height: 600 });
    const { page } = panel;
    const longModel = 'claude-sonnet-4-5-20250929-with-an-extended-context-window-preview';
    await panel.send([
      { type: 'hello', version: 1, epoch: 0 },
      { type: 'agentStatus', status: { state: 'connected', agentName: 'A third-party agent with a remarkably long display name', agentVersion: '12.34.56-beta.7' } },
      { type: 'sessionStarted', epoch: 1, sessionId: 's1', origin: 'new', title: manySessions[3]!.title },
      { type: 'configOptions', epoch: 1, configOptions: [{ id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: longModel, options: [{ value: longModel, name: longModel }, { value: 'small', name: 'small' }] }] },
      { type: 'sessionList', sessions: manySessions },
    ]);
    await page.click('[data-action="history"]');
    await page.locator('.history-item').nth(3).waitFor();
    // Every element whose text is cut (ellipsis or a narrow select) carries, itself or through an ancestor, a title with the whole text.
    const cut = await page.evaluate(() => {
      const out: Array<{ text: string; title: string }> = [];
      for (const el of document.querySelectorAll<HTMLElement>('.header *, .history *, .picker select')) {
        const text = el instanceof HTMLSelectElement ? (el.selectedOptions[0]?.textContent ?? '') : (el.textContent ?? '').trim();
        // A select never overflows: its chosen text is cut when that text is wider than the box.
        const context = document.createElement('canvas').getContext('2d')!;
        context.font = getComputedStyle(el).font;
        const wide = el instanceof HTMLSelectElement ? context.measureText(text).width > el.clientWidth : el.scrollWidth > el.clientWidth + 1;
        if (!text || !wide) continue;
        const titled = el.closest<HTMLElement>('[title]');
        out.push({ text, title: titled?.title ?? '' });
      }
      return out;
    });
    assert.ok(cut.length >= 3, `expected cut texts in a 300px panel, got ${JSON.stringify(cut)}`);
    for (const { text, title } of cut) assert.ok(title.includes(text), `"${text}" is cut without a tooltip that has it (title: "${title}")`);
    assert.ok(cut.some((c) => c.text.includes(longModel)), 'the model picker is among them');
    await page.close();
  });
});

describe('a webview reload', () => {
  test('keeps the unsent prompt, its mentions and what was open', TIMEOUT, async () => {
    const panel = await pages.open();
    const { page } = panel;
    await panel.send([{ type: 'hello', version: 1, epoch: 0 }, connected, { type: 'sessionStarted', epoch: 1, sessionId: 's1', origin: 'new' }, { type: 'sessionList', sessions: manySessions.slice(0, 3) }]);
    await page.click('.composer textarea');
    await page.keyboard.type('explain @');
    await panel.send([{ type: 'fileCompletions', query: '', items: [{ path: '/w/src/a.ts', range: { startLine: 3, endLine: 9 }, label: 'a.ts:3-9', detail: 'selection', kind: 'selection' }] }]);
    await page.locator('.completion').first().click();
    await page.keyboard.type('please');
    await page.click('[data-action="history"]');
    await panel.settle();

    await page.reload();
    await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'));
    // The host rebuilds the transcript from its journal; the panel brings back what only it knew.
    await panel.send([{ type: 'hello', version: 1, epoch: 1 }, connected, { type: 'sessionStarted', epoch: 1, sessionId: 's1', origin: 'new' }, { type: 'sessionList', sessions: manySessions.slice(0, 3) }]);
    assert.equal(await page.locator('.composer textarea').inputValue(), 'explain @a.ts:3-9 please');
    assert.equal(await page.locator('.history').count(), 1, 'the history is still open');
    assert.equal(await page.locator('.attachments .chip').count(), 1);
    await page.locator('.history-item').first().click(); // closes the history
    await page.locator('vscode-button.send').click();
    const sent = (await panel.posted()).filter((m) => m.type === 'sendPrompt').at(-1) as { mentions?: unknown[]; text?: string } | undefined;
    assert.equal(sent?.text, 'explain @a.ts:3-9 please');
    assert.deepEqual(sent?.mentions, [{ path: '/w/src/a.ts', range: { startLine: 3, endLine: 9 }, name: 'a.ts:3-9', kind: 'selection' }]);
    await page.close();
  });

  test('keeps the draft across reloads in a row, with what was typed after it came back', TIMEOUT, async () => {
    const panel = await pages.open();
    const { page } = panel;
    const greet = [{ type: 'hello', version: 1, epoch: 0 }, connected];
    const reload = async () => {
      await page.reload();
      await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'));
    };
    await panel.send(greet);
    await page.click('.composer textarea');
    await page.keyboard.type('a draft to keep');
    await panel.settle();
    // Reloaded again before the extension says anything: the panel's first frames must not save an empty composer.
    await reload();
    await reload();
    await panel.send(greet);
    assert.equal(await page.locator('.composer textarea').inputValue(), 'a draft to keep');
    await page.click('.composer textarea');
    await page.keyboard.press('End');
    await page.keyboard.type(', and more');
    await panel.settle();
    await reload();
    await panel.send(greet);
    assert.equal(await page.locator('.composer textarea').inputValue(), 'a draft to keep, and more');
    await page.close();
  });

  test('a state that is not ours (an older panel, a hostile value) is ignored, not trusted', TIMEOUT, async () => {
    const panel = await pages.open();
    const { page } = panel;
    await page.evaluate(() => sessionStorage.setItem('accord-webview-state', JSON.stringify({ v: 1, draft: 5, ui: { historyOpen: 'yes' }, mentions: [{ path: 'x'.repeat(10_000) }] })));
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'));
    await panel.send([{ type: 'hello', version: 1, epoch: 0 }, connected]);
    assert.equal(await page.locator('.composer textarea').inputValue(), '');
    assert.equal(await page.locator('.history').count(), 0);
    await page.close();
  });
});
