// The one place agent text becomes text for a VS Code surface. Anything an
// agent sends (titles, paths, raw input, error messages, session titles, its
// own name, option names) is hostile: it may carry link markup that VS Code
// makes clickable (`[x](command:…)` in notifications), icon syntax (`$(…)` in
// the status bar and quick picks), newlines that push Accord's own words out
// of a dialog, bidi overrides that reorder what a person reads, or thousands
// of combining marks that draw over neighbouring text.
//
// Every surface gets a neutral one-line form first (`agentLine`), then the
// escaping that surface needs. Pure: no vscode import, so the webview and the
// unit tests use the same code.

/** Longest run of combining marks kept on one base character (enough for real scripts, not for a tower). */
export const MAX_COMBINING_RUN = 4;
/** The default length cap, in characters (code points), for one piece of agent text. */
export const DEFAULT_MAX = 200;

export interface Clipped {
  text: string;
  /** True when something was cut (length or combining marks): the surface should offer the full text. */
  truncated: boolean;
}

// Characters that are invisible or change how the text around them is laid
// out: C0/C1 controls (bar the whitespace handled below), bidi embeddings,
// overrides, isolates and marks, zero-width characters, the BOM, line and
// paragraph separators, soft hyphen, Mongolian vowel separator, invisible
// operators, tag characters, interlinear annotations, variation selectors are
// left alone (emoji need them).
const INVISIBLE = /[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]|\u{E0001}|[\u{E0020}-\u{E007F}]/gu;
const WHITESPACE_RUN = /[\s\u2028\u2029]+/gu;
const COMBINING_RUN = /\p{M}+/gu;

function escapeCodePoint(ch: string): string {
  const cp = ch.codePointAt(0)!;
  return cp <= 0xffff ? `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}` : `\\u{${cp.toString(16).toUpperCase()}}`;
}

/**
 * The neutral one-line form: invisible and bidi characters shown as `\uXXXX`,
 * every whitespace run (newlines included) one space, combining-mark runs
 * capped, and at most `max` characters (an ellipsis marks the cut).
 */
export function clipAgentText(value: unknown, max = DEFAULT_MAX): Clipped {
  let truncated = false;
  const raw = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  let text = raw
    .replace(WHITESPACE_RUN, ' ')
    .replace(INVISIBLE, escapeCodePoint)
    .replace(COMBINING_RUN, (run) => {
      const marks = Array.from(run);
      if (marks.length <= MAX_COMBINING_RUN) return run;
      truncated = true;
      return marks.slice(0, MAX_COMBINING_RUN).join('');
    })
    .trim();
  const chars = Array.from(text);
  if (chars.length > max) {
    truncated = true;
    text = `${chars.slice(0, Math.max(1, max - 1)).join('').trimEnd()}…`;
  }
  return { text, truncated };
}

/**
 * For agent text where every character matters (a path, an argv element, an
 * env value): like `agentLine`, but newlines, tabs and other whitespace
 * besides the plain space are shown as escapes instead of collapsing, so
 * `a\nb` never reads as `a b`.
 */
export function agentLiteral(value: unknown, max = DEFAULT_MAX): string {
  const raw = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  const visible = raw.replace(/[^\S ]/gu, (ch) => ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' })[ch] ?? escapeCodePoint(ch));
  return agentLine(visible, max);
}

/**
 * Invisible and bidi characters shown as `\uXXXX`, nothing else changed: for
 * labels that keep their own length rule (the panel's `clip`).
 */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, escapeCodePoint);
}

/**
 * The last segment of a path the agent chose, for a label the person decides
 * by (the Changes view, a diff editor's title): `agentLiteral`, so an override
 * cannot turn `evil<RLO>txt.sh` into "evilhs.txt" and a newline cannot split it.
 * Either separator ends a segment (this module has no `node:path`: the panel uses it).
 */
export function agentFileName(filePath: string, max = 120): string {
  return agentLiteral(filePath.slice(Math.max(filePath.lastIndexOf('/'), filePath.lastIndexOf('\\')) + 1), max);
}

/** `clipAgentText` without the flag. */
export function agentLine(value: unknown, max = DEFAULT_MAX): string {
  return clipAgentText(value, max).text;
}

/**
 * Agent text in quotation marks, so it reads as the agent's words and never as
 * Accord's. Quotation marks inside are left alone: the outer pair is Accord's.
 */
export function quoted(value: unknown, max = DEFAULT_MAX): string {
  // Curly double quotes inside become straight ones: the curly pair stays Accord's delimiter,
  // so `x” Accord: verified “y` cannot close the quote and speak outside it.
  return `“${agentLine(value, max).replace(/[\u201C\u201D\u201E\u201F\u2033\u2036\u275D\u275E\uFF02]/g, '"')}”`;
}

// VS Code turns `[label](https://…|command:…|file:…)` into a link in
// notifications (its linkedText parser); a space between `]` and `(` means it
// never matches, and the text still reads the same. Markdown autolinks and
// `<…>` links are broken the same way for Markdown surfaces.
function breakLinks(text: string): string {
  return text.replace(/\]\s*\(/g, '] (');
}

/** For a notification message or button: one line, no link VS Code would make live. */
export function forNotification(value: unknown, max = DEFAULT_MAX): string {
  return breakLinks(agentLine(value, max));
}

/** Quoted agent text inside a notification message. */
export function quotedForNotification(value: unknown, max = DEFAULT_MAX): string {
  return breakLinks(quoted(value, max));
}

/**
 * For text that VS Code renders with `$(icon)` syntax (status bar text, quick
 * pick labels and descriptions, tree item labels): the icon syntax is escaped
 * the way VS Code's own `escapeIcons` does, so it shows literally.
 */
export function forIconLabel(value: unknown, max = DEFAULT_MAX): string {
  return breakLinks(agentLine(value, max)).replace(/(\\)?\$\(/g, (match, escaped: string | undefined) => (escaped ? match : `\\$(`));
}

/** Characters Markdown gives meaning to; each is backslash-escaped. */
const MARKDOWN_SPECIAL = /[\\`*_{}[\]()#+\-.!|<>~&:$]/g;

/**
 * For a `MarkdownString` (hover, tooltip): every Markdown character escaped,
 * so no link, image, HTML or command URI survives. Use it with
 * `isTrusted: false` and `supportHtml: false` as a second wall.
 */
export function forMarkdown(value: unknown, max = DEFAULT_MAX): string {
  return agentLine(value, max).replace(MARKDOWN_SPECIAL, (ch) => `\\${ch}`);
}

/**
 * For one line of an output channel or log: the whole line kept (no length
 * cap but a generous one), controls and bidi escaped so a line cannot
 * rewrite the ones before it or forge new ones.
 */
export function forLog(value: unknown, max = 20_000): string {
  return agentLine(value, max);
}

/**
 * A multi-line block of agent text for a plain-text surface that keeps
 * newlines (a modal dialog's detail): each line made neutral and capped, at
 * most `maxLines` lines.
 */
export function agentBlock(value: unknown, { maxLineLength = DEFAULT_MAX, maxLines = 12 } = {}): Clipped {
  const raw = typeof value === 'string' ? value : String(value ?? '');
  const lines = raw.split(/\r\n|\r|\n|\u2028|\u2029/);
  let truncated = lines.length > maxLines;
  const out = lines.slice(0, maxLines).map((line) => {
    const c = clipAgentText(line, maxLineLength);
    truncated ||= c.truncated;
    return breakLinks(c.text);
  });
  if (lines.length > maxLines) out.push(`… (${lines.length - maxLines} more lines)`);
  return { text: out.join('\n'), truncated };
}
