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
