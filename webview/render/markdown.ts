// Markdown for untrusted agent text. markdown-it escapes raw HTML (html:false)
// and rejects javascript:/vbscript:/file: links; on top of that, links are
// rendered without an href (a click posts openLink/openLocation to the
// extension, which validates and confirms), and images render only from
// inline data: URLs, so nothing in a message can make the panel load a URL.
import MarkdownIt from 'markdown-it';
import { escapeHtml, highlight } from './highlight';
import { breakableHtml } from './longText';

export const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

// linkify only bare http(s) and mail addresses, not `www.` fuzzy matches or IP-like words.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });

const SAFE_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/;

md.renderer.rules.link_open = (tokens, idx) => {
  const token = tokens[idx];
  const href = String(token?.attrGet('href') ?? '');
  const title = token?.attrGet('title');
  const titleText = title === null || title === undefined ? '' : String(title);
  const titleAttr = titleText ? ` title="${escapeHtml(titleText)}"` : '';
  return `<a class="md-link" role="link" tabindex="0" data-href="${escapeHtml(href)}"${titleAttr}>`;
};

md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const src = String(token?.attrGet('src') ?? '');
  const alt = token?.children ? self.renderInlineAsText(token.children, options, env) : '';
  if (SAFE_IMAGE.test(src)) return `<img class="md-image" src="${escapeHtml(src)}" alt="${escapeHtml(alt)}">`;
  return `<span class="md-blocked-image" title="Remote image not loaded">[image: ${escapeHtml(alt || 'untitled')}]</span>`;
};

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const info = (token?.info ?? '').trim().split(/\s+/)[0] ?? '';
  const content = token?.content ?? '';
  const body = isHuge(content) ? segmented(content, 'code-seg') : highlight(content, info);
  const label = info ? `<span class="code-lang">${escapeHtml(info.slice(0, 40))}</span>` : '<span class="code-lang"></span>';
  return (
    `<div class="code-block"><div class="code-header">${label}` +
    `<button class="code-copy" type="button" data-action="copy-code" title="Copy code" aria-label="Copy code">` +
    `<span class="codicon codicon-copy"></span></button></div>` +
    `<pre><code class="hljs">${body}</code></pre></div>`
  );
};

md.renderer.rules.code_block = md.renderer.rules.fence;

md.renderer.rules.text = (tokens, idx) => breakableHtml(tokens[idx]?.content ?? '', escapeHtml);

md.renderer.rules.code_inline = (tokens, idx) => `<code>${breakableHtml(tokens[idx]?.content ?? '', escapeHtml)}</code>`;

/** Code this long is shown plain, in segments the panel lays out only when they scroll into view. */
const HUGE_CODE_CHARS = 100_000;
const SEGMENT_LINES = 200;
const SEGMENT_CHARS = 20_000;

function isHuge(code: string): boolean {
  return code.length > HUGE_CODE_CHARS;
}

/** Escaped `text` in blocks of SEGMENT_LINES lines (and at most SEGMENT_CHARS); textContent stays `text`. */
function segmented(text: string, className: string): string {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = start;
    for (let n = 0; n < SEGMENT_LINES && end < text.length && end - start < SEGMENT_CHARS; n += 1) {
      const next = text.indexOf('\n', end);
      end = next < 0 ? text.length : next + 1;
    }
    if (end - start > SEGMENT_CHARS) end = start + SEGMENT_CHARS;
    out.push(`<span class="${className}">${escapeHtml(text.slice(start, end))}</span>`);
    start = end;
  }
  return out.join('');
}

// A paragraph this long is not prose anyone formatted (a log, a dump, a minified file pasted
// as text): it is shown as plain text, in segments, instead of being parsed for inline markdown,
// which would freeze the panel for seconds.
const HUGE_INLINE_CHARS = 100_000;
md.core.ruler.before('inline', 'huge_inline', (state) => {
  for (const token of state.tokens) {
    if (token.type === 'inline' && token.content.length > HUGE_INLINE_CHARS) token.type = 'huge_text';
  }
  return true;
});
md.renderer.rules.huge_text = (tokens, idx) => segmented(tokens[idx]?.content ?? '', 'text-seg');

/** The same line breaks markdown-it makes before parsing, so offsets into the text agree with its line numbers. */
export function normalizeMarkdown(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD');
}

/** HTML for a markdown message body. Safe to insert: every string in it was escaped by markdown-it or here. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
