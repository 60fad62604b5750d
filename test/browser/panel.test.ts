// The chat panel alone in Chromium: each recorded fixture renders, the
// controls post the right messages, and every feature is screenshotted in
// VS Code's Dark Modern and Light Modern themes under test-results/webview/.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, textsWhenSettled, type Panel } from './harness';
import { panelPages, SHOTS } from './panelPages';

const TIMEOUT = { timeout: 120_000 };

const pages = panelPages({ shots: true });

/** Steps that put a fixture into the state worth showing (open a menu, expand a nest). */
const PREPARE: Record<string, (panel: Panel) => Promise<void>> = {
  children: async (p) => p.page.click('.child-header'),
  history: async (p) => p.page.click('[data-action="history"]'),
  composer: async (p) => {
    await p.page.click('.composer textarea');
    await p.page.keyboard.type('/');
  },
  thoughts: async (p) => p.page.click('.thought-header'),
  'review-changes': async (p) => p.page.click('[data-action="changes"]'),
};

const FEATURES = ['setup-card', 'markdown', 'user-attachments', 'thoughts', 'thoughts-streaming', 'tools', 'diff', 'plan', 'gauge', 'gauge-warn', 'children', 'approval', 'composer', 'stop-reasons', 'history', 'review-changes'];

describe('screenshots of every feature in both themes', () => {
  for (const theme of ['dark', 'light'] as const) {
    for (const name of FEATURES) {
      test(`${name} (${theme})`, TIMEOUT, async () => {
        const panel = await pages.withFixture(name, theme);
        await PREPARE[name]?.(panel);
        await panel.settle();
        await panel.page.evaluate(() => document.fonts.ready);
        await panel.page.screenshot({ path: `${SHOTS}/${name}-${theme}.png` });
        const violations = await panel.page.evaluate(() => (window as unknown as { __cspViolations: unknown[] }).__cspViolations);
        assert.deepEqual(violations, [], 'the panel runs under the strict CSP without violations');
        await panel.page.close();
      });
    }
  }
});

describe('what the panel renders and posts', () => {
  test('first run: the setup card offers three ways to a model, and the picker lists every model by provider before a session', TIMEOUT, async () => {
    const panel = await pages.withFixture('setup-card');
    const { page, posted } = panel;
    const card = await page.locator('.setup-card').innerText();
    assert.match(card, /Choose a model to start/);
    assert.match(card, /2 models available in VS Code/);
    assert.match(card, /Found Ollama at http:\/\/127\.0\.0\.1:11434\/v1 with 1 model/);
    await page.click('.setup-copilot');
    await page.click('.setup-key');
    await page.click('.setup-local');
    const groups = await page.locator('select[data-config-id="model"] optgroup').evaluateAll((els) => els.map((g) => `${(g as HTMLOptGroupElement).label}: ${[...g.querySelectorAll('option')].map((o) => o.textContent).join(', ')}`));
    assert.deepEqual(groups, ['GitHub Copilot: GPT-4.1, Claude Sonnet 4', 'Ollama (127.0.0.1:11434): qwen2.5-coder:7b']);
    await page.selectOption('select[data-config-id="model"]', 'vscode-lm:copilot/claude-sonnet-4');
    assert.deepEqual((await posted()).filter((m) => m.type !== 'ready' && m.type !== 'log'), [
      { type: 'setupAction', action: 'useVscodeModels' },
      { type: 'setupAction', action: 'setApiKey' },
      { type: 'setupAction', action: 'useLocalModel', baseUrl: 'http://127.0.0.1:11434/v1' },
      { type: 'pickModel', value: 'vscode-lm:copilot/claude-sonnet-4' },
    ]);
    // Once a model is chosen the card gives way to the usual empty state; the picker shows the choice.
    await panel.send([{ type: 'modelSetup', setup: { needsModel: false, current: 'vscode-lm:copilot/claude-sonnet-4', groups: [{ name: 'GitHub Copilot', models: [{ value: 'vscode-lm:copilot/claude-sonnet-4', name: 'Claude Sonnet 4' }] }], vscodeModels: 1, localServers: [] } }]);
    assert.equal(await page.locator('.setup-card').count(), 0);
    assert.equal(await page.locator('select[data-config-id="model"]').inputValue(), 'vscode-lm:copilot/claude-sonnet-4');
    await page.close();
  });

  test('a usage estimate (VS Code models report none) is marked as one in the gauge', TIMEOUT, async () => {
    const panel = await pages.withFixture('gauge');
    await panel.send([{ type: 'sessionUpdate', epoch: 1, sessionId: 'sess-1', update: { sessionUpdate: 'usage_update', used: 32000, size: 64000, _meta: { 'accord/usageEstimated': true } } }]);
    assert.match(await panel.page.locator('.gauge-text').innerText(), /^≈ 50%/);
    assert.match(String(await panel.page.locator('.gauge').getAttribute('title')), /an estimate/);
    await panel.page.close();
  });

  test('markdown: highlighted code, copy button, links go through the extension', TIMEOUT, async () => {
    const { page, posted } = await pages.withFixture('markdown');
    assert.ok((await page.locator('.code-block .hljs-keyword').count()) > 0, 'code is highlighted');
    await page.click('[data-action="copy-code"]');
    await page.click('text=the config docs');
    await page.click('text=src/config.ts');
    const sent = (await posted()).filter((m) => m.type !== 'ready');
    assert.match(String(sent[0]?.text), /^export function parseConfig/);
    assert.deepEqual(sent.slice(1), [
      { type: 'openLink', href: 'https://example.com/docs/config' },
      { type: 'openLocation', path: '/work/project/src/config.ts', line: 12 },
    ]);
    assert.equal(page.url(), `${pages.origin}/?theme=dark`, 'no navigation');
    await page.close();
  });

  test('thoughts collapse when the answer starts, open on click, and hide with the setting', TIMEOUT, async () => {
    const panel = await pages.withFixture('thoughts');
    const { page } = panel;
    assert.equal(await page.locator('.thought-body').count(), 0);
    assert.equal(await page.locator('.thought-header').innerText(), 'Thought');
    await page.focus('.thought-header');
    await page.keyboard.press('Enter');
    assert.match(await page.locator('.thought-body').innerText(), /off-by-one/, 'opens from the keyboard');
    await panel.send([{ type: 'settings', hideThoughts: true }]);
    assert.equal(await page.locator('.thought').count(), 0);
    await page.close();
    const streaming = await pages.withFixture('thoughts-streaming');
    assert.equal(await streaming.page.locator('.thought-body').count(), 1, 'open while the model is thinking');
    await streaming.page.close();
  });

  test('tool cards: kinds, statuses, failure reason, clickable locations', TIMEOUT, async () => {
    const { page, posted } = await pages.withFixture('tools');
    assert.equal(await page.locator('.tool-card').count(), 8);
    for (const icon of ['file', 'search', 'terminal', 'globe', 'file-symlink-file', 'trash', 'lightbulb', 'tools']) {
      assert.equal(await page.locator(`.kind-icon.codicon-${icon}`).count(), 1, icon);
    }
    assert.equal(await page.locator('.tool-card.status-failed').count(), 2);
    assert.match(await page.locator('.tool-card.status-failed').nth(1).innerText(), /not allowed by the project policy/);
    await page.click('text=server.ts:42');
    assert.deepEqual((await posted()).at(-1), { type: 'openLocation', path: '/work/project/src/server.ts', line: 42 });
    await page.click('.tool-card:has-text("lint_project") .tool-header');
    assert.match(await page.locator('.tool-card:has-text("lint_project") .tool-output').innerText(), /no problems/);
    await page.close();
  });

  test('diffs: compact inline diff, review state, Review posts reviewDiff', TIMEOUT, async () => {
    const { page, posted } = await pages.withFixture('diff');
    assert.equal(await page.locator('.diff').count(), 2);
    assert.equal(await page.locator('.diff').first().locator('.diff-add').count(), 2);
    assert.equal(await page.locator('.review-accepted').innerText(), 'Accepted');
    await page.locator('.diff').first().locator('[data-action="review"]').click();
    assert.deepEqual((await posted()).at(-1), { type: 'reviewDiff', epoch: 1, toolCallId: 'e1', path: '/work/project/src/math.ts' });
    await page.close();
  });

  test('review changes: files per turn with kind, line counts and state; a click posts reviewFile, the edit icon asks for in-file review', TIMEOUT, async () => {
    const { page, posted } = await pages.withFixture('review-changes');
    await page.locator('.changes .plan-header').waitFor();
    assert.match(await page.locator('.changes .plan-header').innerText(), /Changes\s*5 files\s*2 to review/);
    assert.equal(await page.locator('.changes-file').count(), 0, 'collapsed until asked');
    await page.click('[data-action="changes"]');
    await page.locator('.changes-file').nth(4).waitFor();
    const rows = await page.locator('.changes-file').allInnerTexts();
    assert.equal(rows.length, 5);
    assert.match(rows[0]!, /M\s*parser\.ts\s*\+12 −4\s*partly accepted/);
    assert.match(rows[3]!, /A\s*logo\.png\s*binary\s*pending/);
    assert.match(rows[4]!, /README\.md[\s\S]*conflict/);
    await page.locator('.changes-file[data-file="lexer.ts"]').click();
    assert.deepEqual((await posted()).at(-1), { type: 'reviewFile', epoch: 1, fileId: 'sess-1\u00002\u0000/work/project/src/lexer.ts' });
    assert.equal(await page.locator('.changes-file[data-file="lexer.ts"] [data-action="review-in-file"]').count(), 0, 'a move is reviewed in the diff only');
    await page.locator('.changes-file[data-file="README.md"] [data-action="review-in-file"]').click();
    assert.deepEqual((await posted()).at(-1), { type: 'reviewFile', epoch: 1, fileId: 'sess-1\u00002\u0000/work/project/README.md', inFile: true }, 'review in the file, not the diff');
    await page.close();
  });

  test('plan is replaced whole; gauge shows fullness, cost and compaction; warns near the limit', TIMEOUT, async () => {
    const plan = await pages.withFixture('plan');
    assert.equal(await plan.page.locator('.plan-entry').count(), 4);
    assert.equal(await plan.page.locator('text=Old entry').count(), 0);
    await plan.page.close();
    const gauge = await pages.withFixture('gauge');
    assert.match(await gauge.page.locator('.gauge').innerText(), /16% · 31k \/ 200k[\s\S]*turn \$0\.470[\s\S]*session \$1\.31/);
    assert.match(await gauge.page.locator('.compaction').innerText(), /Context compacted[\s\S]*Refactored the parser/);
    await gauge.page.close();
    const warn = await pages.withFixture('gauge-warn');
    assert.equal(await warn.page.locator('.gauge.warn').count(), 1);
    assert.match(await warn.page.locator('.gauge').innerText(), /91%.*Near the limit/s);
    await warn.page.close();
  });

  test('child sessions nest under their tool call, collapsed until opened', TIMEOUT, async () => {
    const { page } = await pages.withFixture('children');
    const card = page.locator('.tool-card:has-text("investigate the auth")');
    assert.equal(await card.locator('.child-session').count(), 1);
    assert.equal(await card.locator('.child-body').count(), 0);
    await card.locator('.child-header').click();
    assert.match(await card.locator('.child-body').innerText(), /HMAC cookie/);
    assert.equal(await page.locator('.transcript > .vitem > .msg-agent:has-text("HMAC cookie")').count(), 0, 'child text is not in the main timeline');
    await page.close();
  });

  test('approvals: only the offered once-only buttons; answering posts answerApproval; resolved clears it', TIMEOUT, async () => {
    const panel = await pages.withFixture('approval');
    const { page, posted } = panel;
    assert.deepEqual(await textsWhenSettled(page.locator('.approval-banner vscode-button'), ['Allow once', 'Reject']), ['Allow once', 'Reject']);
    assert.equal(await page.locator('.tool-card.awaiting').count(), 1);
    await page.click('.approval-banner [data-option-id="allow"]');
    assert.deepEqual((await posted()).at(-1), { type: 'answerApproval', epoch: 1, requestId: 'r1', optionId: 'allow' });
    await panel.send([{ type: 'approvalResolved', epoch: 1, requestId: 'r1', outcome: 'selected', optionId: 'allow' }]);
    assert.equal(await page.locator('.approval-banner').count(), 0);
    await page.close();
  });

  test('a declined approval: the card says Rejected, not pending (issue 20)', TIMEOUT, async () => {
    const panel = await pages.withFixture('approval');
    const { page } = panel;
    await panel.send([{ type: 'approvalResolved', epoch: 1, requestId: 'r1', outcome: 'selected', optionId: 'reject' }]);
    const card = page.locator('.tool-card[data-tool-call-id="a1"]');
    await card.locator('.badge-rejected').waitFor();
    assert.equal(await card.locator('.badge-rejected').innerText(), 'Rejected');
    assert.match((await card.getAttribute('class')) ?? '', /status-rejected/);
    assert.equal(await card.locator('.tool-status').getAttribute('title'), 'Rejected');
    await page.close();
  });

  test("a diff card under review shows the review's kind and counts, like the Changes list (issue 20)", TIMEOUT, async () => {
    const panel = await pages.withFixture('diff');
    const { page } = panel;
    const card = page.locator('.diff:has(a.path-link[title="/work/project/test/math.test.ts"])');
    assert.equal(await card.locator('.badge').innerText(), 'new', "the agent's own diff claims a new file");
    // The file existed: the review says modified, +4 −7.
    await panel.send([{ type: 'diffReview', epoch: 1, toolCallId: 'e2', path: '/work/project/test/math.test.ts', state: 'pending', kind: 'modified', added: 4, removed: 7 }]);
    assert.deepEqual(await textsWhenSettled(card.locator('.diff-stat'), ['+4 −7'], 60_000), ['+4 −7']);
    assert.equal(await card.locator('.badge').count(), 0, 'no "new" badge for a file that existed');
    // A review that never saw the file's earlier content says so, and that Reject left the file.
    await panel.send([{ type: 'diffReview', epoch: 1, toolCallId: 'e2', path: '/work/project/test/math.test.ts', state: 'rejected', kind: 'modified', added: 4, removed: 7, unknownBase: true }]);
    assert.deepEqual(await textsWhenSettled(card.locator('.badge'), ['before not shown'], 60_000), ['before not shown']);
    assert.equal(await card.locator('.review-state').innerText(), 'Rejected, file left as the agent wrote it');
    await page.close();
  });

  test('composer: Enter sends, Shift+Enter is a newline, / completes, @ mentions files, pickers post config', TIMEOUT, async () => {
    const panel = await pages.withFixture('composer');
    const { page, posted } = panel;
    const box = page.locator('.composer textarea');
    await box.click();
    await page.keyboard.type('/re');
    assert.deepEqual(await textsWhenSettled(page.locator('.completion-label'), ['/review']), ['/review']);
    await page.keyboard.press('Enter');
    assert.equal(await box.inputValue(), '/review ');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('look at @par');
    assert.deepEqual((await posted()).at(-1), { type: 'requestFileCompletions', query: 'par' });
    await panel.send([{ type: 'fileCompletions', query: 'par', items: [{ path: '/work/project/src/parser.ts', label: 'parser.ts', detail: 'src', kind: 'file' }] }]);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    const sent = (await posted()).find((m) => m.type === 'sendPrompt');
    assert.deepEqual(sent, { type: 'sendPrompt', epoch: 1, text: '/review \nlook at @parser.ts', mentions: [{ path: '/work/project/src/parser.ts', name: 'parser.ts', kind: 'file' }], images: [] });
    assert.equal(await box.inputValue(), '');
    assert.match(await page.locator('.msg-user').innerText(), /look at @parser\.ts[\s\S]*parser\.ts/);
    assert.equal(await page.locator('.picker select').count(), 2, 'the option of unknown type is left out');
    await page.selectOption('select[data-config-id="model"]', 'gpt-5');
    assert.deepEqual((await posted()).at(-1), { type: 'setConfigOption', epoch: 1, configId: 'model', value: 'gpt-5' });
    await panel.send([{ type: 'turnStarted', epoch: 1 }]);
    await page.click('vscode-button.stop');
    await box.press('Escape');
    assert.deepEqual((await posted()).slice(-2), [{ type: 'cancelTurn', epoch: 1 }, { type: 'cancelTurn', epoch: 1 }]);
    await page.close();
  });

  test('a picker shows the value the agent reports, even when its answer lists the choices in another order', TIMEOUT, async () => {
    const panel = await pages.withFixture('composer');
    const model = (currentValue: string, order: string[]) => ({
      type: 'configOptions' as const, epoch: 1,
      configOptions: [{ id: 'model', name: 'Model', category: 'model', type: 'select' as const, currentValue, options: order.map((value) => ({ value, name: value })) }],
    });
    await panel.send([model('opus', ['sonnet', 'opus', 'haiku'])]);
    const select = panel.page.locator('select[data-config-id="model"]');
    assert.equal(await select.inputValue(), 'opus');
    await select.selectOption('haiku');
    // The agent answers with the new current value listed first.
    await panel.send([model('haiku', ['haiku', 'sonnet', 'opus'])]);
    assert.equal(await select.inputValue(), 'haiku');
    await panel.send([model('opus', ['opus', 'haiku', 'sonnet'])]);
    assert.equal(await select.inputValue(), 'opus');
    await panel.page.close();
  });

  test('stop reasons other than end_turn are shown; a cancel marks unfinished calls cancelled', TIMEOUT, async () => {
    const { page } = await pages.withFixture('stop-reasons');
    assert.equal(await page.locator('.turn-end').count(), 4);
    assert.match(await page.locator('.turn-end.stop-refusal').innerText(), /refused/);
    assert.match(await page.locator('.turn-end.stop-error').innerText(), /529/);
    assert.equal(await page.locator('.tool-card.status-cancelled').count(), 1);
    await page.close();
  });

  test('history lists sessions and switching posts loadSession; new session posts newSession', TIMEOUT, async () => {
    const { page, posted } = await pages.withFixture('history');
    await page.click('[data-action="history"]');
    // The list renders on the next animation frame; count once its last row is there.
    await page.locator('.history-item').nth(3).waitFor();
    assert.equal(await page.locator('.history-item').count(), 4);
    await page.click('.history-item:has-text("Add dark mode")');
    assert.deepEqual((await posted()).at(-1), { type: 'loadSession', sessionId: 'sess-00' });
    await page.click('[data-action="new-session"]');
    assert.deepEqual((await posted()).at(-1), { type: 'newSession' });
    await page.close();
  });

  test('stale epochs and invalid messages are dropped; unknown update kinds are ignored and logged', TIMEOUT, async () => {
    const panel = await pages.withFixture('history');
    const { page, posted } = panel;
    const before = await page.locator('.msg').count();
    await panel.send([
      { type: 'sessionUpdate', epoch: 0, sessionId: 'sess-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'stale' } } },
      { type: 'sessionUpdate', epoch: 1, sessionId: 'sess-1', update: { sessionUpdate: 'x_future_kind', stuff: 1 } },
      { type: 'sessionUpdate', epoch: 1 },
      'garbage',
    ]);
    assert.equal(await page.locator('.msg').count(), before);
    const logs = (await posted()).filter((m) => m.type === 'log').map((m) => String(m.message));
    assert.equal(logs.length, 3);
    assert.match(logs[0] ?? '', /unknown kind "x_future_kind"/);
    assert.match(logs[1] ?? '', /^Dropped an invalid extension message \(sessionUpdate\)/);
    await page.close();
  });

  test('a 1 MB tool output is cut until "Show all"', TIMEOUT, async () => {
    const panel = await pages.open();
    const big = 'x'.repeat(1_000_000);
    await panel.send([
      { type: 'sessionStarted', epoch: 1, sessionId: 's', origin: 'new' },
      { type: 'sessionUpdate', epoch: 1, sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 'cat big.log', kind: 'execute', status: 'failed', content: [{ type: 'content', content: { type: 'text', text: big } }] } },
    ]);
    const shown = await panel.page.locator('.tool-output pre').evaluate((el) => el.textContent?.length ?? 0);
    assert.ok(shown < 50_000, `cut to ${shown} characters`);
    await panel.page.click('[data-action="show-all"]');
    await panel.settle();
    assert.equal(await panel.page.locator('.tool-output pre').evaluate((el) => el.textContent?.length ?? 0), 1_000_000);
    await panel.page.close();
  });

  test('5,000 messages: only what is visible is in the DOM, and the start is reachable', TIMEOUT, async () => {
    const panel = await pages.open();
    const messages: unknown[] = [{ type: 'sessionStarted', epoch: 1, sessionId: 's', origin: 'load' }, { type: 'replayBegin', epoch: 1 }];
    for (let i = 0; i < 2500; i += 1) {
      messages.push({ type: 'sessionUpdate', epoch: 1, sessionId: 's', update: { sessionUpdate: 'user_message_chunk', messageId: `u${i}`, content: { type: 'text', text: `question ${i}` } } });
      messages.push({ type: 'sessionUpdate', epoch: 1, sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', messageId: `a${i}`, content: { type: 'text', text: `answer **${i}**` } } });
    }
    messages.push({ type: 'replayEnd', epoch: 1 });
    await panel.send(messages);
    const rendered = await panel.page.locator('.vitem').count();
    assert.ok(rendered > 0 && rendered < 200, `${rendered} items in the DOM`);
    assert.equal(await panel.page.locator('text=answer 2499').count(), 1, 'pinned to the end');
    for (let i = 0; i < 20 && (await panel.page.locator('text=question 0').count()) === 0; i += 1) {
      await panel.page.locator('.transcript').evaluate((el) => el.scrollTo(0, 0));
      await panel.settle();
    }
    assert.equal(await panel.page.locator('text=question 0').count(), 1, 'scrolling up reaches the first message');
    await panel.page.close();
  });
});
