// The files an MCP tool call names, so path rules can apply to it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pathArguments } from '../../../agent/mcp/pathArguments';

const root = '/w/proj';

test('arguments named like paths, at any depth and in lists, resolve against the workspace', () => {
  const found = pathArguments(
    { path: 'a.txt', options: { filePath: 'src/b.ts', nested: [{ dir: 'docs' }] }, uris: ['file:///w/proj/c.md', 'https://example.com/x'], target_file: 'd', query: 'not a path' },
    root,
  );
  assert.deepEqual(found.sort(), ['/w/proj/a.txt', '/w/proj/c.md', '/w/proj/d', '/w/proj/docs', '/w/proj/src/b.ts']);
});

test('absolute paths count under any name; home paths land outside the workspace; URLs and prose do not count', () => {
  const found = pathArguments({ text: '/etc/passwd', note: 'see a.txt', home: '~/secrets', url: 'https://x/y', weird: 'file:bad%' }, root);
  assert.ok(found.includes('/etc/passwd'));
  assert.ok(found.some((p) => !p.startsWith(`${root}/`) && p.includes('secrets')), 'a home path is outside the workspace, so the gate refuses it');
  assert.ok(!found.some((p) => p.endsWith('a.txt')), 'a word in prose under an unrelated key is not a path');
  assert.ok(!found.some((p) => p.includes('https')));
});

test('arguments too deep or too many to check name a place outside the workspace, so the gate refuses the call', () => {
  let deep: unknown = { path: 'secrets/k' };
  for (let i = 0; i < 1000; i += 1) deep = { a: deep };
  assert.deepEqual(pathArguments(deep, root), ['/w/(arguments nested too deeply to check their paths)']);
  const many = pathArguments({ files: Array.from({ length: 10_000 }, (_, i) => `f${i}`) }, root);
  assert.equal(many.length, 201);
  assert.equal(many.at(-1), '/w/(too many paths in the arguments to check)');
});
