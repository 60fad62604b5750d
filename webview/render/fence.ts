// A long code fence found by scanning lines, for render/markdownStream.ts.
// Block-parsing a slice that is all one fence tells nothing until the slice
// reaches the fence's end; for a 1 MB fence that meant parsing ever larger
// slices, then the fence again, in one frame. Only the plain case is taken
// here (opener at column 0, a complete closing line, no '|' that a table
// could claim); markdown-it itself builds the fence token from the opening
// and closing lines, and anything it does not see as one fence falls back to
// the block parser.
import { md } from './markdown';

export interface LongFence {
  /** The fence's HTML, rendered by the same rule as any other fence. */
  html: string;
  /** Offset just past the closing line's line break. */
  end: number;
}

const OPENER = /^(`{3,}|~{3,})([^\n]*)$/;

/**
 * The fence whose opening line is the first non-blank line at `from`, when it is closed by a
 * complete line and ends more than `slice` characters after `from`; undefined otherwise.
 */
export function longFenceAt(text: string, from: number, slice: number): LongFence | undefined {
  let lineStart = from;
  let lineEnd = text.indexOf('\n', lineStart);
  while (lineEnd >= 0 && isBlank(text, lineStart, lineEnd)) {
    lineStart = lineEnd + 1;
    lineEnd = text.indexOf('\n', lineStart);
  }
  if (lineEnd < 0) return undefined;
  const opener = OPENER.exec(text.slice(lineStart, lineEnd));
  if (!opener) return undefined;
  const markers = opener[1] as string;
  const info = opener[2] as string;
  if (info.includes('|') || (markers[0] === '`' && info.includes('`'))) return undefined;
  const contentStart = lineEnd + 1;
  for (let at = contentStart; at < text.length; ) {
    const end = text.indexOf('\n', at);
    if (end < 0) return undefined; // an unfinished last line may still grow past a closing fence
    if (closes(text, at, end, markers)) {
      if (end + 1 - from <= slice) return undefined; // short: the block parser's step covers it
      const token = md.parse(`${text.slice(lineStart, lineEnd)}\n${text.slice(at, end)}\n`, {});
      const fence = token[0];
      if (token.length !== 1 || fence?.type !== 'fence') return undefined;
      fence.content = text.slice(contentStart, at);
      return { html: md.renderer.render(token, md.options, {}), end: end + 1 };
    }
    at = end + 1;
  }
  return undefined;
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) {
    const ch = text.charCodeAt(i);
    if (ch !== 0x20 && ch !== 0x09) return false;
  }
  return true;
}

/** CommonMark's closing fence: under four columns of indent, at least as many of the same marker, then only spaces and tabs. */
function closes(text: string, start: number, end: number, markers: string): boolean {
  let i = start;
  let column = 0;
  for (; i < end; i += 1) {
    const ch = text.charCodeAt(i);
    if (ch === 0x20) column += 1;
    else if (ch === 0x09) column += 4 - (column % 4);
    else break;
  }
  if (column >= 4) return false;
  const marker = markers.charCodeAt(0);
  let count = 0;
  for (; i < end && text.charCodeAt(i) === marker; i += 1) count += 1;
  if (count < markers.length) return false;
  for (; i < end; i += 1) {
    const ch = text.charCodeAt(i);
    if (ch !== 0x20 && ch !== 0x09) return false;
  }
  return true;
}
