// Untrusted content never executes and never loads anything: every payload
// of test/fixtures/xss.json is streamed as agent text, thoughts, tool titles,
// tool output, file paths, user text, plan entries, titles and notices; then
// every rendered link is clicked. Checks: no canary, no dialog, no script-src
// CSP violation, no page error, no request outside the page's own origin,
// and only harmless message types posted to the extension.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { panelPages } from './panelPages';

const TIMEOUT = { timeout: 300_000 };
const SESSION = 'xss';

let payloads: string[];

const pages = panelPages({ timeoutMs: 300_000 });

before(async () => {
  payloads = JSON.parse(await readFile('test/fixtures/xss.json', 'utf8'));
});

const update = (u: Record<string, unknown>, sessionId = SESSION) => ({ type: 'sessionUpdate', epoch: 1, sessionId, update: u });
const text = (t: string) => ({ type: 'text', text: t });

/** Every place untrusted text reaches the panel, for one payload. */
function placements(p: string, i: number): unknown[] {
  return [
    update({ sessionUpdate: 'user_message_chunk', messageId: `u${i}`, content: text(p) }),
    update({ sessionUpdate: 'user_message_chunk', messageId: `u${i}`, content: { type: 'resource_link', uri: p, name: p } }),
    update({ sessionUpdate: 'agent_thought_chunk', messageId: `t${i}`, content: text(p) }),
    update({ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: text(p) }),
    update({
      sessionUpdate: 'tool_call',
      toolCallId: `tc${i}`,
      title: p,
      kind: p.slice(0, 20),
      status: 'failed',
      locations: [{ path: p, line: 1 }],
      content: [
        { type: 'content', content: text(p) },
        { type: 'diff', path: p, oldText: p, newText: `${p}\n${p}` },
        { type: 'terminal', terminalId: p, _meta: { terminal_output: p } },
      ],
    }),
    update({ sessionUpdate: 'tool_call', toolCallId: `child-call${i}`, title: 'child', kind: 'other', status: 'in_progress' }),
    update({ sessionUpdate: 'subagent_update', sessionId: `child${i}`, title: p, toolCallId: `child-call${i}` }),
    update({ sessionUpdate: 'agent_message_chunk', content: text(p) }, `child${i}`),
    update({ sessionUpdate: 'plan', entries: [{ content: p, priority: 'high', status: 'pending' }] }),
    update({ sessionUpdate: 'session_info_update', title: p }),
    update({ sessionUpdate: 'notice', severity: 'warning', title: p, description: p }),
    update({ sessionUpdate: 'compaction_update', compactionId: `c${i}`, status: 'failed', summary: [text(p)], error: p }),
    update({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: p.slice(0, 200), description: p.slice(0, 200) }] }),
    { type: 'approvalPending', epoch: 1, requestId: `r${i}`, toolCall: { toolCallId: `tc${i}`, title: p }, options: [{ optionId: 'a', name: p.slice(0, 200), kind: 'allow_once' }] },
    { type: 'turnEnded', epoch: 1, stopReason: 'error', error: p.slice(0, 4000) },
  ];
}

describe('XSS corpus', () => {
  test('has at least 40 payloads', () => {
    assert.ok(payloads.length >= 40, `${payloads.length} payloads`);
  });

  test('no payload executes, navigates or loads a remote resource', TIMEOUT, async () => {
    const panel = await pages.open('dark', { width: 800, height: 4000 });
    const { page } = panel;
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.exposeFunction('__navigated', () => errors.push('navigation'));
    await panel.send([
      { type: 'sessionStarted', epoch: 1, sessionId: SESSION, origin: 'new' },
      { type: 'settings', hideThoughts: false },
      { type: 'sessionList', sessions: payloads.map((p, i) => ({ sessionId: `s${i}`, title: p.slice(0, 4000) })) },
    ]);
    let links = 0;
    const started = Date.now();
    for (const [i, p] of payloads.entries()) {
      await panel.send(placements(p, i));
      // Show the collapsed parts too: tool bodies, child sessions, thoughts.
      await page.evaluate(() => {
        for (const el of document.querySelectorAll<HTMLElement>('.tool-header[aria-expanded="false"], .child-header[aria-expanded="false"], .thought-header[aria-expanded="false"]')) el.click();
      });
      await panel.settle();
      // The transcript is virtualized: click this payload's links while they are rendered.
      links += await page.evaluate(() => {
        const found = [...document.querySelectorAll<HTMLElement>('[data-href]')];
        for (const link of found) link.click();
        return found.length;
      });
      if (process.env.XSS_TIMING) console.log(i, Date.now() - started);
    }
    await page.click('[data-action="history"]');
    await panel.settle();
    await page.waitForTimeout(500);

    const state = await page.evaluate(() => {
      const w = window as unknown as { __pwned?: unknown; __cspViolations: Array<{ directive: string }>; __posted: Array<{ type: string }> };
      return { pwned: w.__pwned, violations: w.__cspViolations, types: [...new Set(w.__posted.map((m) => m.type))] };
    });
    assert.equal(state.pwned, undefined, 'a payload ran script');
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
    assert.deepEqual(state.violations.filter((v) => v.directive.startsWith('script-src')), [], 'no script was even attempted');
    assert.deepEqual(pages.browser.foreign, [], 'no request left the page origin');
    assert.equal(page.url(), `${pages.origin}/?theme=dark`);
    for (const type of state.types) assert.ok(['ready', 'log', 'openLink', 'openLocation'].includes(type), `posted ${type}`);
    assert.ok(links > 0, 'links were rendered (as inert elements) and clicked');
    assert.equal(await page.locator('.md-image').count(), 0, 'no image from a payload was rendered');
    await page.close();
  });
});
