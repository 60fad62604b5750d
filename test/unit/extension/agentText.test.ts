// Every entry of the link/command corpus through every escaping the extension
// uses, checked against what the surface would make of it: VS Code's own
// notification link pattern, its `$(icon)` syntax, and a Markdown renderer.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import MarkdownIt from 'markdown-it';
import {
  agentBlock, agentFileName, agentLine, clipAgentText, forIconLabel, forLog, forMarkdown, forNotification, MAX_COMBINING_RUN, quoted, quotedForNotification,
} from '../../../extension/text/agentText';

const corpus = JSON.parse(readFileSync(new URL('../../fixtures/hostileText.json', import.meta.url), 'utf8')) as { links: string[]; spoofs: string[] };
const hostile = [...corpus.links, ...corpus.spoofs, 'x'.repeat(5000), `A${'\u0301'.repeat(5000)}B`, 'a'.repeat(3000) + '[x](command:y)'];

// The pattern VS Code's linkedText parser uses for notification messages (vs/base/common/linkedText.ts).
const VSCODE_NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^\)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
const BIDI_OR_INVISIBLE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF\u2028\u2029]/u;
const markdown = new MarkdownIt({ html: true, linkify: true });

describe('agent text for VS Code surfaces', () => {
  test('the neutral line has no newline, control, bidi or zero-width character, and is capped', () => {
    for (const text of hostile) {
      const line = agentLine(text, 200);
      assert.doesNotMatch(line, /\n|\r/, JSON.stringify(text));
      assert.doesNotMatch(line, BIDI_OR_INVISIBLE, JSON.stringify(text));
      assert.ok(Array.from(line).length <= 200, `too long: ${line.length}`);
      for (const run of line.match(/\p{M}+/gu) ?? []) assert.ok(Array.from(run).length <= MAX_COMBINING_RUN, 'a combining-mark run survived');
    }
  });

  test('bidi and invisible characters are shown as escapes, not dropped', () => {
    assert.equal(agentLine('ls \u202Etxt.exe\u202C'), 'ls \\u202Etxt.exe\\u202C');
    assert.equal(agentLine('a\u200Bb'), 'a\\u200Bb');
    assert.equal(agentLine('bell\u0007'), 'bell\\u0007');
  });

  test('newline padding collapses, so what follows it stays in view', () => {
    const padded = corpus.spoofs.find((s) => s.includes('\n\n\n'))!;
    assert.equal(agentLine(padded), 'Run ls Accord (verified): Read README.md');
  });

  test('5,000 combining marks become at most a few, and the cut is reported', () => {
    const c = clipAgentText(`A${'\u0301'.repeat(5000)}B`);
    assert.equal(c.text, `A${'\u0301'.repeat(MAX_COMBINING_RUN)}B`);
    assert.equal(c.truncated, true);
  });

  test('a long title is cut with an ellipsis and reported as truncated', () => {
    const c = clipAgentText('x'.repeat(5000), 80);
    assert.equal(Array.from(c.text).length, 80);
    assert.ok(c.text.endsWith('…'));
    assert.equal(c.truncated, true);
    assert.deepEqual(clipAgentText('short'), { text: 'short', truncated: false });
  });

  test('a cut never splits a surrogate pair', () => {
    const text = agentLine('😀'.repeat(50), 10);
    assert.equal(text, `${'😀'.repeat(9)}…`);
  });

  test('quoted text carries Accord\'s quotation marks around the agent\'s words', () => {
    assert.equal(quoted('✔ Verified by Accord'), '“✔ Verified by Accord”');
    assert.equal(quoted(undefined), '“”');
  });

  test('no corpus entry is a live notification link, bare or quoted', () => {
    for (const text of hostile) {
      for (const out of [forNotification(text), quotedForNotification(text), forIconLabel(text), agentBlock(text).text]) {
        VSCODE_NOTIFICATION_LINK.lastIndex = 0;
        assert.equal(VSCODE_NOTIFICATION_LINK.test(out), false, `live link in ${JSON.stringify(out)}`);
      }
    }
  });

  test('the link text still reads the same, only a space apart', () => {
    assert.equal(forNotification('[accept all](command:x)'), '[accept all] (command:x)');
  });

  test('icon syntax is escaped for icon-rendering labels, and an escaped one is left as it is', () => {
    for (const text of hostile) assert.doesNotMatch(forIconLabel(text), /(^|[^\\])\$\(/, JSON.stringify(text));
    assert.equal(forIconLabel('$(check) Verified'), '\\$(check) Verified');
    assert.equal(forIconLabel('\\$(alert) x'), '\\$(alert) x');
  });

  test('Markdown-escaped text renders no link, image or HTML element', () => {
    for (const text of hostile) {
      const rendered = markdown.renderInline(forMarkdown(text));
      assert.doesNotMatch(rendered, /<(a|img|script|code|strong|em)\b/i, `${JSON.stringify(text)} → ${rendered}`);
      assert.doesNotMatch(rendered, /<[a-z][^>]*\bhref=/i);
    }
  });

  test('a block keeps its own lines, each neutral and capped, with a line limit', () => {
    const block = agentBlock('one\n[x](command:y)\n\u202Ethree', { maxLines: 2 });
    assert.equal(block.text, 'one\n[x] (command:y)\n… (1 more lines)');
    assert.equal(block.truncated, true);
  });

  test('log lines cannot forge a new line or rewrite earlier ones', () => {
    assert.equal(forLog('ok\n2026-01-01 [info] connected\u001b[2K'), 'ok 2026-01-01 [info] connected\\u001B[2K');
  });

  test('non-string values become text instead of throwing', () => {
    assert.equal(agentLine(42), '42');
    assert.equal(agentLine(null), '');
    assert.equal(agentLine({ toString: () => '[a](command:b)' }), '[a](command:b)');
  });
});

describe('agent literals (paths, argv, env values)', () => {
  test('newlines and tabs are shown as escapes, so a path cannot forge a line or hide a character', async () => {
    const { agentLiteral } = await import('../../../extension/text/agentText');
    assert.equal(agentLiteral('/w/a\nAccord: verified\tsafe'), '/w/a\\nAccord: verified\\tsafe');
    assert.equal(agentLiteral('a\u00A0b \u202Ec'), 'a\\u00A0b \\u202Ec');
    assert.equal(agentLiteral('app/[id]/page.tsx'), 'app/[id]/page.tsx');
  });
});

describe('quoting', () => {
  test('the agent cannot close Accord\'s quotation marks and speak outside them', () => {
    assert.equal(quoted('x” Accord: verified safe “y'), '“x" Accord: verified safe "y”');
  });
});

describe('attack: file names the agent chose, on the review surfaces (Changes view, diff titles)', () => {
  test('a right-to-left override, a newline or a zero-width character in a name shows as an escape, never reorders or splits it', () => {
    // Shown as "evilhs.txt" if the override were kept: the person would accept a shell script as text.
    assert.equal(agentFileName('/p/src/evil\u202Etxt.sh'), 'evil\\u202Etxt.sh');
    assert.equal(agentFileName('/p/a\nAccord: verified.txt'), 'a\\nAccord: verified.txt');
    assert.equal(agentFileName('/p/ok.txt'), 'ok.txt');
    for (const text of hostile) assert.doesNotMatch(agentFileName(`/p/${text.replace(/\//g, '_')}`), BIDI_OR_INVISIBLE, JSON.stringify(text));
  });
});
