// Localisation (issue 18): the manifest's user-facing strings come from
// package.nls.json, and the extension's messages go through vscode.l10n.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const manifest = readFileSync('package.json', 'utf8');
const nls = JSON.parse(readFileSync('package.nls.json', 'utf8')) as Record<string, string>;

test('every %key% in package.json is defined in package.nls.json, and none there is unused', () => {
  const used = new Set([...manifest.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]!));
  assert.ok(used.size > 0, 'the manifest uses package.nls.json');
  for (const key of used) assert.equal(typeof nls[key], 'string', `package.json uses %${key}% but package.nls.json has no "${key}"`);
  for (const key of Object.keys(nls)) assert.ok(used.has(key), `package.nls.json has "${key}", which package.json never uses`);
});

test("the manifest's titles, names and descriptions are all %keys%", () => {
  const pkg = JSON.parse(manifest) as { displayName: string; description: string; contributes: Record<string, unknown> };
  const literal: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${path}[${i}]`));
    if (!value || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value)) {
      const here = `${path}.${key}`;
      const userFacing = ['title', 'name', 'description', 'markdownDescription', 'contents', 'category', 'label', 'deprecationMessage', 'markdownDeprecationMessage'].includes(key);
      if (userFacing && typeof v === 'string' && !/^%[^%]+%$/.test(v) && !path.includes('configurationDefaults')) literal.push(`${here}: ${v.slice(0, 60)}`);
      if (key === 'enumDescriptions' || key === 'markdownEnumDescriptions') for (const d of v as string[]) if (!/^%[^%]+%$/.test(d)) literal.push(`${here}: ${d.slice(0, 60)}`);
      walk(v, here);
    }
  };
  walk(pkg.contributes, 'contributes');
  for (const field of ['displayName', 'description'] as const) if (!/^%[^%]+%$/.test(pkg[field])) literal.push(field);
  assert.deepEqual(literal, []);
});

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

test('notifications and dialogs in the extension are built with vscode.l10n.t, buttons too', () => {
  const raw: string[] = [];
  for (const file of sources('extension')) {
    if (/test\w*Commands?\.ts$/.test(file)) continue; // test-only commands
    const text = readFileSync(file, 'utf8');
    // A message or a button passed as a bare string or template literal.
    for (const m of text.matchAll(/show(?:Information|Warning|Error)Message\(\s*['"`]/g)) raw.push(`${file}: ${text.slice(m.index, m.index + 80)}`);
    for (const m of text.matchAll(/show(?:Information|Warning|Error)Message\([^;]*?,\s*'[A-Z][^']*'\s*[,)]/g)) raw.push(`${file}: ${m[0].slice(-60)}`);
  }
  assert.deepEqual(raw, []);
});

// The value of a property or assignment starting at `from`: up to the first `,`
// `;` `)` `}` or `]` at depth 0, skipping string and template literals.
function expressionAt(text: string, from: number): string {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"' || c === '`') {
      i = literalEnd(text, i);
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return text.slice(from, i);
      depth--;
    } else if ((c === ',' || c === ';') && depth === 0) return text.slice(from, i);
  }
  return text.slice(from);
}

/** Index of the quote closing the literal opened at `start` (a template's `${…}` may hold nested literals). */
function literalEnd(text: string, start: number): number {
  const quote = text[start]!;
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') i++;
    else if (c === quote) return i;
    else if (quote === '`' && c === '$' && text[i + 1] === '{') {
      let depth = 0;
      for (i += 1; i < text.length; i++) {
        const d = text[i]!;
        if (d === "'" || d === '"' || d === '`') i = literalEnd(text, i);
        else if (d === '{') depth++;
        else if (d === '}' && --depth === 0) break;
      }
    }
  }
  return text.length;
}

/** The text of a balanced call starting at its `(`. */
function callAt(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"' || c === '`') i = literalEnd(text, i);
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

/**
 * English prose written in the source: a literal that, once vscode.l10n.t(…)
 * calls are removed and `${…}` interpolations and `$(icon)` codicons are
 * dropped, still has a word in it.
 */
function englishIn(expression: string): string[] {
  let rest = expression;
  for (let at = rest.indexOf('l10n.t('); at >= 0; at = rest.indexOf('l10n.t(')) {
    const open = at + 'l10n.t'.length;
    rest = rest.slice(0, at) + rest.slice(open + callAt(rest, open).length);
  }
  const found: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (c !== "'" && c !== '"' && c !== '`') continue;
    const end = literalEnd(rest, i);
    let body = rest.slice(i + 1, end);
    if (c === '`') {
      // Interpolations may hold literals of their own (`${x ? 'a' : 'b'}`): check them, then drop them.
      const parts: string[] = [];
      let out = '';
      for (let j = 0; j < body.length; j++) {
        if (body[j] === '$' && body[j + 1] === '{') {
          const close = j + 1 + callAt(body, j + 1).length - 1; // the interpolation's `}`
          parts.push(body.slice(j + 2, close));
          j = close;
        } else out += body[j];
      }
      found.push(...parts.flatMap(englishIn));
      body = out;
    }
    if (/[A-Za-z]{2,}/.test(body.replace(/\$\([\w~-]+\)/g, ''))) found.push(rest.slice(i, end + 1));
    i = end;
  }
  return found;
}

test('CodeLens titles, quick picks, input boxes, tree items and status bar items are built with vscode.l10n.t', () => {
  const raw: string[] = [];
  for (const file of sources('extension')) {
    if (/test\w*Commands?\.ts$/.test(file)) continue; // test-only commands
    const text = readFileSync(file, 'utf8');
    const flag = (at: number, expression: string) => {
      const line = text.slice(0, at).split('\n').length;
      for (const literal of englishIn(expression)) raw.push(`${file}:${line}: ${literal.slice(0, 70)}`);
    };
    // Properties a person reads, inside a call that shows them.
    const calls = /new vscode\.(?:CodeLens|TreeItem)\(|\.show(?:QuickPick|InputBox)\(|\.create(?:StatusBarItem|Terminal)\(/g;
    for (const m of text.matchAll(calls)) {
      const open = m.index + m[0].length - 1;
      const call = callAt(text, open);
      if (m[0].includes('TreeItem')) flag(open, expressionAt(call, 1)); // its label
      for (const p of call.matchAll(/\b(?:title|tooltip|placeHolder|prompt|label|description|detail|name)\s*:\s*/g)) flag(open + p.index, expressionAt(call, p.index + p[0].length));
      // validateInput's answer is shown under the box.
      for (const p of call.matchAll(/validateInput\s*:\s*/g)) flag(open + p.index, expressionAt(call, p.index + p[0].length));
    }
    // Assignments to what a tree item, status bar item or view shows (a command's title is its accessible name).
    for (const m of text.matchAll(/\.(?:tooltip|description|text|label|title|message)\s*=\s*(?!=)/g)) {
      const target = text.slice(Math.max(0, m.index - 40), m.index);
      if (!/(?:item|Item|this|view|View|node|Node|bar|Bar)$/.test(target)) continue;
      flag(m.index, expressionAt(text, m.index + m[0].length));
    }
    for (const m of text.matchAll(/\.command\s*=\s*\{/g)) {
      const obj = callAt(text, m.index + m[0].length - 1);
      for (const p of obj.matchAll(/\b(?:title|tooltip)\s*:\s*/g)) flag(m.index, expressionAt(obj, p.index + p[0].length));
    }
    // Quick pick options handed to a wrapper (e.g. an injectable picker).
    for (const m of text.matchAll(/\{\s*title\s*:\s*/g)) {
      const obj = callAt(text, m.index);
      if (/\bplaceHolder\s*:/.test(obj)) flag(m.index, expressionAt(text, m.index + m[0].length));
    }
    for (const m of text.matchAll(/\bplaceHolder\s*:\s*/g)) flag(m.index, expressionAt(text, m.index + m[0].length));
    for (const m of text.matchAll(/\.badge\s*=/g)) {
      const value = expressionAt(text, m.index + m[0].length);
      for (const p of value.matchAll(/\btooltip\s*:\s*/g)) flag(m.index, expressionAt(value, p.index + p[0].length));
    }
  }
  assert.deepEqual([...new Set(raw)], []); // one literal may match two rules
});
