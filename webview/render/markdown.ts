// Markdown for untrusted agent text. markdown-it escapes raw HTML (html:false)
// and rejects javascript:/vbscript:/file: links; on top of that, links are
// rendered without an href (a click posts openLink/openLocation to the
// extension, which validates and confirms), and images render only from
// inline data: URLs, so nothing in a message can make the panel load a URL.
import MarkdownIt from 'markdown-it';
import { escapeHtml, highlight } from './highlight';
import { breakableHtml } from './longText';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

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
  const body = highlight(token?.content ?? '', info);
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

/** HTML for a markdown message body. Safe to insert: every string in it was escaped by markdown-it or here. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
