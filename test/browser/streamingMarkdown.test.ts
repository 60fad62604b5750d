// The panel's incremental markdown in Chromium (issue 17): a message streamed
// in random chunks ends up as the same DOM as the same text rendered whole,
// and one huge chunk, rendered a slice and a few segments per frame, ends up
// complete (the code block's text, what Copy copies, is the code).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderMarkdown } from '../../webview/render/markdown';
import { panelPages } from './panelPages';

const TIMEOUT = { timeout: 300_000 };

const pages = panelPages({ timeoutMs: 300_000 });

const PIECES = [
  'para', ' text', '\n', '\n\n', '- item', '1. one', '  nested', '    indented', '> quote', '```', '```ts', '# head',
  '---', '| a | b |', '|---|---|', '[x]: https://example.com', '[x]', '**bold', '`code', 'https://example.com', '<b>',
];

const start = { type: 'sessionStarted', epoch: 1, sessionId: 's', origin: 'new' };
const chunk = (messageId: string, text: string) => ({
  type: 'sessionUpdate', epoch: 1, sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text } },
});

/** The message's DOM, and the DOM the same HTML makes when parsed whole, both serialized by the page. */
const COMPARE = `((html) => {
  const template = document.createElement('template');
  template.innerHTML = html;
  const shown = document.querySelector('.msg-agent');
  return { shown: shown ? shown.innerHTML : null, whole: template.innerHTML };
})`;

describe('streamed markdown in the panel', () => {
  test('random markdown streamed in random chunks renders the same DOM as the whole text', TIMEOUT, async () => {
    const panel = await pages.open();
    const errors: string[] = [];
    panel.page.on('pageerror', (e) => errors.push(e.message));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 30 }),
        async (pieces, sizes) => {
          run += 1;
          const text = pieces.join('');
          const messages: unknown[] = [start];
          for (let at = 0, i = 0; at < text.length; i += 1) {
            const size = sizes[i % sizes.length] as number;
            messages.push(chunk(`m${run}`, text.slice(at, at + size)));
            at += size;
          }
          await panel.send(messages);
          const { shown, whole } = (await panel.page.evaluate(`${COMPARE}(${JSON.stringify(renderMarkdown(text))})`)) as { shown: string | null; whole: string };
          assert.equal(shown, whole, `text: ${JSON.stringify(text)}`);
        },
      ),
      { numRuns: 40 },
    );
    assert.deepEqual(errors, []);
    await panel.page.close();
  });

  test('one 2 MB chunk with a 1 MB code block ends up complete', TIMEOUT, async () => {
    const panel = await pages.open();
    const line = 'const value = compute(input, options); // <keep> & going\n';
    const code = line.repeat(Math.ceil(1_000_000 / line.length));
    const prose = 'Some **prose** with `code` and a [link](https://example.com).\n\n'.repeat(15_000);
    const text = `${prose}\`\`\`ts\n${code}\`\`\`\n\nThe end.`;
    await panel.send([start, chunk('big', text)]);
    await panel.page.waitForFunction(() => document.querySelector('.msg-agent')?.lastElementChild?.textContent === 'The end.', undefined, { timeout: 240_000 });
    // The code's last segments arrive a few per frame after the block itself.
    const expected = code.length;
    await panel.page.waitForFunction((length) => (document.querySelector('.msg-agent .code-block code')?.textContent?.length ?? 0) === length, expected, { timeout: 240_000 });
    const result = (await panel.page.evaluate(() => ({
      code: document.querySelector('.msg-agent .code-block code')?.textContent ?? '',
      paragraphs: document.querySelectorAll('.msg-agent p').length,
    }))) as { code: string; paragraphs: number };
    assert.equal(result.code, code);
    assert.equal(result.paragraphs, 15_001);
    await panel.page.close();
  });

  test('after a 2 MB chunk the view shows its end, and each part scrolled to is laid out and painted (content-visibility hides nothing)', TIMEOUT, async () => {
    const panel = await pages.open('dark', { width: 480, height: 700 });
    let prose = '';
    for (let i = 0; prose.length < 700_000; i += 1) prose += `Paragraph ${i} with **bold**, \`code\` and a [link](https://example.com).\n\n`;
    const code = 'let total = add(left, right); // keep < & going\n'.repeat(8_000);
    const text = `${prose}\`\`\`ts\n${code}\`\`\`\n\n${prose}The very end.`;
    await panel.send([start, chunk('huge', text)]);
    await panel.page.waitForFunction(() => document.querySelector('.msg-agent')?.lastElementChild?.textContent === 'The very end.', undefined, { timeout: 240_000 });
    await panel.settle();
    const end = (await panel.page.evaluate(`(() => {
      const last = document.querySelector('.msg-agent').lastElementChild.getBoundingClientRect();
      const view = document.querySelector('.transcript').getBoundingClientRect();
      return { inView: last.top >= view.top && last.bottom <= view.bottom + 1, height: last.height };
    })()`)) as { inView: boolean; height: number };
    assert.ok(end.inView && end.height > 0, `the end is in view: ${JSON.stringify(end)}`);
    // A sample of parts and code segments, each scrolled to the top of the view: shown, and what is at its first line is its own laid-out text.
    const seen = (await panel.page.evaluate(`(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const blocks = [...document.querySelectorAll('.msg-agent .md-part, .msg-agent .code-seg')];
      const bad = [];
      let checked = 0;
      for (let i = 0; i < blocks.length; i += Math.max(1, Math.floor(blocks.length / 16))) {
        const block = blocks[i];
        block.scrollIntoView({ block: 'start' });
        await frame();
        await frame();
        const line = block.firstElementChild ?? block;
        const box = line.getBoundingClientRect();
        // Hit testing reaches text only where it was laid out: skipped content would give the block itself.
        const caret = document.caretRangeFromPoint(box.left + 20, box.top + Math.min(8, box.height / 2));
        const hit = caret?.startContainer;
        checked += 1;
        if (!line.checkVisibility({ contentVisibilityAuto: true }) || box.height === 0 || hit?.nodeType !== Node.TEXT_NODE || !block.contains(hit)) bad.push({ i, className: block.className, hit: hit?.nodeName });
      }
      return { blocks: blocks.length, checked, bad };
    })()`)) as { blocks: number; checked: number; bad: unknown[] };
    assert.ok(seen.checked >= 16 && seen.blocks > 100, JSON.stringify(seen));
    assert.deepEqual(seen.bad, []);
    await panel.page.close();
  });
});
