// Terminal output as a person would read it in a terminal, made safe for the
// panel: escape sequences never reach the DOM. SGR colours (the 16 basic ones
// and bold) become spans with fixed class names mapped to VS Code's terminal
// colours; every other sequence (cursor moves, OSC titles and hyperlinks,
// DCS, the bell) is dropped; a carriage return rewrites its line, as a
// progress bar does; backspace erases. Pure: no DOM.

export interface AnsiSegment {
  text: string;
  /** 0–15: the basic and bright colours. */
  fg?: number;
  bg?: number;
  bold?: boolean;
}

/** Past this many segments the output is shown without colour (a colour per character must not build 100 000 spans). */
export const MAX_SEGMENTS = 4000;

// CSI (ESC [ … final), OSC (ESC ] … BEL or ST), DCS/SOS/PM/APC (ESC P|X|^|_ … ST), two-byte escapes, C1 CSI (U+009B).
const SEQUENCE = /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[@-Z\\-_]|\x1b./g;
// Controls that are not layout: everything in C0/C1 bar tab, newline and the CR/BS handled below.
const OTHER_CONTROLS = /[\x00-\x07\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]/g;

interface Style {
  fg?: number;
  bg?: number;
  bold?: boolean;
}

function applySgr(params: string, style: Style): Style {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  let next: Style = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    if (c === 0) next = {};
    else if (c === 1) next.bold = true;
    else if (c === 22) delete next.bold;
    else if (c >= 30 && c <= 37) next.fg = c - 30;
    else if (c >= 90 && c <= 97) next.fg = c - 90 + 8;
    else if (c === 39) delete next.fg;
    else if (c >= 40 && c <= 47) next.bg = c - 40;
    else if (c >= 100 && c <= 107) next.bg = c - 100 + 8;
    else if (c === 49) delete next.bg;
    else if (c === 38 || c === 48) {
      // 256-colour and true-colour: skip their arguments; the basic palette only.
      i += codes[i + 1] === 5 ? 2 : codes[i + 1] === 2 ? 4 : 1;
    }
  }
  return next;
}

/** Applies carriage returns and backspaces line by line, the way a terminal shows the result. */
function settleLine(line: string): string {
  let text = line;
  if (text.includes('\r')) {
    const parts = text.split('\r').filter((p, i, all) => p !== '' || i === all.length - 1);
    // Each part overwrites the start of what was there.
    text = parts.reduce((shown, part) => part + shown.slice(part.length), '');
  }
  if (text.includes('\b')) {
    const out: string[] = [];
    for (const ch of text) {
      if (ch === '\b') out.pop();
      else out.push(ch);
    }
    text = out.join('');
  }
  return text;
}

/** Plain text: every sequence and control removed, CR/BS applied. */
export function stripAnsi(raw: string): string {
  return raw
    .replace(/\r\n/g, '\n')
    .replace(SEQUENCE, '')
    .split('\n')
    .map(settleLine)
    .join('\n')
    .replace(OTHER_CONTROLS, '');
}

/** Coloured segments; falls back to one plain segment when there would be too many. */
export function ansiSegments(raw: string): AnsiSegment[] {
  const normalised = raw.replace(/\r\n/g, '\n');
  const segments: AnsiSegment[] = [];
  let style: Style = {};
  let last = 0;
  const push = (text: string) => {
    if (!text) return;
    const prev = segments[segments.length - 1];
    if (prev && prev.fg === style.fg && prev.bg === style.bg && prev.bold === style.bold) prev.text += text;
    else segments.push({ text, ...style });
  };
  for (const match of normalised.matchAll(SEQUENCE)) {
    push(normalised.slice(last, match.index));
    last = match.index + match[0].length;
    const sgr = /^(?:\x1b\[|\x9b)([0-9;:]*)m$/.exec(match[0]);
    if (sgr) style = applySgr(sgr[1] ?? '', style);
    if (segments.length > MAX_SEGMENTS) return [{ text: stripAnsi(raw) }];
  }
  push(normalised.slice(last));
  // CR/BS and stray controls are settled per segment: a rewrite across colours is rare and only loses colour.
  const settled = segments.map((s) => ({ ...s, text: s.text.split('\n').map(settleLine).join('\n').replace(OTHER_CONTROLS, '') })).filter((s) => s.text !== '');
  return settled;
}
