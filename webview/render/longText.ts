// Very long unbroken runs of text (a 200 KB token, a minified line) make
// Chromium's line breaker reshape the run again for every line: seconds to
// minutes of frozen panel. Splitting such runs into separate text nodes with
// <wbr> between them keeps layout linear without changing the text a person
// reads or copies.
import { html, type TemplateResult } from 'lit';
import { showInvisible } from '../../extension/text/agentText';

const LONG_RUN = /\S{160,}/g;
const HAS_LONG_RUN = /\S{160,}/;
const PIECE = 80;

function pieces(run: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < run.length; i += PIECE) out.push(run.slice(i, i + PIECE));
  return out;
}

/** `text` split into pieces at long runs; `between` is what goes between pieces. */
function split<T>(text: string, between: () => T): Array<string | T> {
  const out: Array<string | T> = [];
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    out.push(text.slice(last, match.index));
    for (const piece of pieces(match[0])) out.push(piece, between());
    last = match.index + match[0].length;
  }
  out.push(text.slice(last));
  return out;
}

const WBR = html`<wbr>`;

/** For lit templates: the text itself, or pieces with <wbr> between long runs. */
export function breakable(text: string): string | Array<string | TemplateResult> {
  return text.length >= 160 && HAS_LONG_RUN.test(text) ? split(text, () => WBR) : text;
}

/** For HTML strings: escape `text` and put <wbr> inside long runs. */
export function breakableHtml(text: string, escape: (s: string) => string): string {
  if (text.length < 160 || !HAS_LONG_RUN.test(text)) return escape(text);
  return split(text, () => null)
    .map((piece) => (piece === null ? '<wbr>' : escape(piece)))
    .join('');
}

/**
 * A label too long to be useful: keep both ends. Labels are agent text (tool
 * titles, paths): lit escapes markup, and bidi overrides and invisible
 * characters are shown as escapes here, so none reorders or hides what is read.
 */
export function clip(label: string, max = 200): string {
  const shown = label.length <= max ? label : `${label.slice(0, max / 2)}…${label.slice(-max / 2)}`;
  return showInvisible(shown);
}
