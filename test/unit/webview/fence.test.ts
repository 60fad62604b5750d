// render/fence.ts: a long code fence settled by a scan of its lines gives the
// HTML markdown-it gives for the whole text, and anything unusual falls back.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { longFenceAt } from '../../../webview/render/fence';
import { renderMarkdown } from '../../../webview/render/markdown';
import { MarkdownStream } from '../../../webview/render/markdownStream';

const body = 'const x = 1; // a line of code\n'.repeat(40);

function drain(stream: MarkdownStream, slice: number): void {
  for (let guard = 0; !stream.step(slice); guard += 1) assert.ok(guard < 100_000, 'step() never finished');
}

describe('long code fences', () => {
  test('a closed fence longer than the slice is found, and renders as markdown-it renders it', () => {
    for (const [open, close] of [['```ts', '```'], ['~~~', '~~~~'], ['````', '````  '], ['```', '   ```'], ['~~~ a `b` ~~~', '~~~\t']] as const) {
      const text = `${open}\n${body}${close}\n\nafter`;
      const fence = longFenceAt(text, 0, 64);
      assert.ok(fence, `${open} … ${close}`);
      assert.equal(fence.end, text.indexOf('\n\nafter') + 1);
      assert.equal(fence.html + renderMarkdown('after'), renderMarkdown(text));
    }
  });

  test('blank lines before the opening line belong to the fence', () => {
    const text = `\n  \n\t\n\`\`\`\n${body}\`\`\`\n`;
    assert.equal(longFenceAt(text, 0, 64)?.end, text.length);
  });

  test('lines that do not close it are skipped: indented four columns, a tab, shorter, the other marker, text after', () => {
    const fake = ['    ```', '\t```', ' \t```', '``', '~~~', '``` x', '````x'].join('\n');
    const text = `\`\`\`\n${body}${fake}\n${body}\`\`\`\n`;
    const fence = longFenceAt(text, 0, 64);
    assert.equal(fence?.end, text.length);
    assert.equal(fence.html, renderMarkdown(text));
  });

  test('the unusual cases fall back to the block parser', () => {
    const cases = {
      unclosed: `\`\`\`\n${body}`,
      'closing line not finished': `\`\`\`\n${body}\`\`\``,
      'indented opener': ` \`\`\`\n${body}\`\`\`\n`,
      'a bar a table could claim': `\`\`\`|\n${body}\`\`\`\n`,
      'a backtick in a backtick fence info': `\`\`\`a\`b\n${body}\`\`\`\n`,
      'two markers': `\`\`\n${body}\`\`\n`,
      'text before': `para\n\`\`\`\n${body}\`\`\`\n`,
      'short for the slice': `\`\`\`\n${body}\`\`\`\n`,
    };
    for (const [name, text] of Object.entries(cases)) assert.equal(longFenceAt(text, 0, name === 'short for the slice' ? 100_000 : 64), undefined, name);
  });

  test('attack: markup, fake closers and bidi in a long fence stay text inside the one code element', () => {
    const hostile = '</code></pre><img src=x onerror=alert(1)><script>alert(2)</script>\n``` <b>\n  ```js onload=x\n\u202e```\n';
    const text = `\`\`\`html\n${hostile.repeat(50)}\`\`\`\n\n<b>after</b>`;
    const fence = longFenceAt(text, 0, 64);
    assert.ok(fence);
    assert.equal(fence.html + renderMarkdown('<b>after</b>'), renderMarkdown(text));
    assert.doesNotMatch(fence.html, /<(img|script|b)[ >]/);
    assert.equal((fence.html.match(/<code/g) ?? []).length, 1);
  });

  test('streamed in random chunks and slices, texts with long fences render as a full render does', () => {
    const line = fc.constantFrom('```', '```ts', '~~~', '````', '    ```', '\t```', '``` x', '  ```', 'code', '|---|', '[x]: https://e.com', '- item', '> q', '', '  ');
    const doc = fc.array(fc.oneof(line, line.map((l) => `${l}\n${body}`)), { minLength: 1, maxLength: 12 }).map((lines) => lines.join('\n'));
    let fast = 0;
    fc.assert(
      fc.property(doc, fc.integer({ min: 8, max: 400 }), fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 6 }), (text, slice, sizes) => {
        for (let at = 0; at < text.length; at += 1) if (longFenceAt(text, at, slice) && (at === 0 || text[at - 1] === '\n')) fast += 1;
        const stream = new MarkdownStream();
        let sofar = '';
        for (let i = 0; sofar.length < text.length; i += 1) {
          sofar = text.slice(0, sofar.length + (sizes[i % sizes.length] as number));
          stream.set(sofar);
          drain(stream, slice);
          assert.equal(stream.html(), renderMarkdown(sofar));
        }
      }),
      { numRuns: 150 },
    );
    assert.ok(fast > 0, 'the scan settled some fences');
  });
});
