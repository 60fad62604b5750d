import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderMarkdown } from '../../../webview/render/markdown';
import { MarkdownStream } from '../../../webview/render/markdownStream';

/** Pieces chosen to cross block boundaries in every way CommonMark allows. */
const PIECES = [
  'para', ' text', '\n', '\n\n', '\r\n', '\r', '- item', '* star', '1. one', '2) two', '  nested', '    indented',
  '> quote', '>', '```', '```ts', '~~~', '# head', '## ', '===', '---', '***', '| a | b |', '|---|---|',
  '[x]', '[x]: https://example.com', '<div>', '**bold', '`code', '\\', '\t', ' ', 'https://example.com', '\0',
];

const markdownText = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(''));

/** `text` cut at random points into the chunks an agent might send. */
const chunked = markdownText.chain((text) =>
  fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 8 }).map((cuts) => {
    const points = [0, ...cuts.filter((c) => c < text.length).sort((a, b) => a - b), text.length];
    const chunks: string[] = [];
    for (let i = 1; i < points.length; i += 1) chunks.push(text.slice(points[i - 1], points[i]));
    return { text, chunks };
  }),
);

function drain(stream: MarkdownStream, slice: number): void {
  for (let guard = 0; !stream.step(slice); guard += 1) assert.ok(guard < 100_000, 'step() never finished');
}

describe('incremental markdown', () => {
  test('streamed in random chunks and rendered in random slices, every prefix renders as a full render does', () => {
    fc.assert(
      fc.property(chunked, fc.integer({ min: 1, max: 64 }), ({ text, chunks }, slice) => {
        const stream = new MarkdownStream();
        let sofar = '';
        for (const chunk of chunks) {
          sofar += chunk;
          stream.set(sofar);
          drain(stream, slice);
          assert.equal(stream.html(), renderMarkdown(sofar));
        }
        assert.equal(sofar, text);
      }),
      { numRuns: 400 },
    );
  });

  test('text that is not an append of the last (an edit, a new message) starts over', () => {
    fc.assert(
      fc.property(markdownText, markdownText, (a, b) => {
        const stream = new MarkdownStream();
        stream.set(a);
        drain(stream, 8);
        stream.set(b);
        drain(stream, 8);
        assert.equal(stream.html(), renderMarkdown(b));
      }),
      { numRuns: 200 },
    );
  });

  test('blocks before the last one are rendered once and kept', () => {
    const stream = new MarkdownStream();
    stream.set('first paragraph\n\nsecond\n');
    drain(stream, 1000);
    assert.deepEqual(stream.blocks, ['<p>first paragraph</p>\n']);
    assert.equal(stream.tail, '<p>second</p>\n');
    const kept = stream.blocks[0];
    stream.set('first paragraph\n\nsecond\nand more\n\n- a list\n');
    drain(stream, 1000);
    assert.equal(stream.blocks[0], kept);
    assert.equal(stream.blocks.length, 2);
    assert.equal(stream.generation, 0);
  });

  test('a block starting on the unfinished last line is not settled: "-" may grow into a heading underline', () => {
    const stream = new MarkdownStream();
    stream.set('para\n-');
    drain(stream, 1000);
    assert.deepEqual(stream.blocks, []);
    stream.set('para\n---');
    drain(stream, 1000);
    assert.equal(stream.html(), '<h2>para</h2>\n');
  });

  test('a later link reference definition re-renders the earlier link it defines', () => {
    const stream = new MarkdownStream();
    stream.set('see [docs]\n\nmore\n\n');
    drain(stream, 1000);
    assert.ok(!stream.html().includes('data-href'));
    stream.set('see [docs]\n\nmore\n\n[docs]: https://example.com/docs\n');
    drain(stream, 1000);
    assert.equal(stream.html(), renderMarkdown('see [docs]\n\nmore\n\n[docs]: https://example.com/docs\n'));
    assert.ok(stream.html().includes('data-href="https://example.com/docs"'));
  });

  test('one 2 MB text is rendered in slices, each parsing a bounded share of it', () => {
    const para = 'Some **prose** with `code` and a [link](https://example.com).\n\n';
    const text = para.repeat(Math.ceil(2_000_000 / para.length));
    const stream = new MarkdownStream();
    stream.set(text);
    let steps = 1;
    while (!stream.step()) steps += 1;
    assert.ok(steps > 40, `only ${steps} steps`);
    assert.equal(stream.html(), renderMarkdown(text));
  });

  test('a huge code block is shown plain in line segments whose text is the code itself', () => {
    const line = 'const value = compute(input); // <not a tag> & more\n';
    const code = line.repeat(5000);
    const html = renderMarkdown('```ts\n' + code + '```\n');
    const segments = html.match(/<span class="code-seg">/g) ?? [];
    assert.equal(segments.length, 25);
    const text = html
      .replace(/^[\s\S]*<code class="hljs">/, '')
      .replace(/<\/code>[\s\S]*$/, '')
      .replace(/<\/?span[^>]*>/g, '')
      .replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)));
    assert.equal(text, code);
  });
});
