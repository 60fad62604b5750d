// The packaged VSIX holds exactly what the installed extension needs. `npm test`
// packages it first (`npm run package`); ACCORD_VSIX points at another file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../../..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const vsixPath = process.env.ACCORD_VSIX ?? join(root, `accord-${version}.vsix`);

const REQUIRED = [
  'extension/package.json',
  'extension/package.nls.json', // the manifest's strings (%key%)
  'extension/readme.md',
  'extension/changelog.md',
  'extension/LICENSE.txt',
  'extension/dist/extension.js',
  'extension/dist/agent.js',
  'extension/dist/agent-core.js',
  // The core's lazy bundles (esbuild.mjs): a missing one fails only when first used, so each is required here.
  ...['openai', 'anthropic', 'openai-compatible', 'prices', 'sandbox', 'mcp'].map((name) => `extension/dist/agent-${name}.js`),
  'extension/dist/webview.js',
  'extension/dist/webview-boot.js',
  'extension/dist/webview.css',
  'extension/dist/vendor/java-proxy-agent/srt-proxy-agent.jar',
];
const ALLOWED: RegExp[] = [
  /^extension\.vsixmanifest$/,
  /^\[Content_Types\]\.xml$/,
  /^extension\/(package\.json|package\.nls\.json|readme\.md|changelog\.md|LICENSE\.txt)$/,
  /^extension\/dist\/(extension|agent|agent-core|agent-[a-z-]+|webview|webview-boot)\.js$/,
  /^extension\/dist\/webview\.css$/,
  /^extension\/dist\/[\w.-]+\.(ttf|woff2?)$/, // fonts the webview CSS references (codicons)
  /^extension\/media\/[\w.-]+\.(svg|png)$/,
  /^extension\/media\/walkthrough\/[\w.-]+\.md$/, // the Get Started walkthrough's pages
  // Runtime assets the agent bundle loads from beside itself: the sandbox runtime's seccomp helpers.
  /^extension\/dist\/vendor\/seccomp\/(x64|arm64)\/apply-seccomp$/,
  // ... and its Java proxy agent (without it srt spawns `npm root -g` to look for one).
  /^extension\/dist\/vendor\/java-proxy-agent\/srt-proxy-agent\.jar$/,
];

/** File names from a zip's central directory (no extraction needed). */
function zipEntries(zip: Buffer): string[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, 'not a zip file: no end-of-central-directory record');
  const count = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(offset), 0x02014b50, 'corrupt central directory');
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    names.push(zip.toString('utf8', offset + 46, offset + 46 + nameLength));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

test('the VSIX contains the bundles, media and docs, and nothing else', () => {
  assert.ok(existsSync(vsixPath), `${vsixPath} not found; run \`npm run package\` first`);
  const names = zipEntries(readFileSync(vsixPath));
  for (const file of REQUIRED) assert.ok(names.includes(file), `${file} is missing from the VSIX`);
  assert.ok(names.some((n) => /^extension\/media\/.+/.test(n)), 'media/ is missing from the VSIX');
  const unexpected = names.filter((n) => !ALLOWED.some((pattern) => pattern.test(n)));
  assert.deepEqual(unexpected, [], 'files that do not belong in the VSIX (sources, maps, node_modules...)');
  // dist/accord (the shell launcher, package.json `bin`) is for editors started from a terminal or a clone:
  // VS Code links to the daemon in-process, and a VSIX (a zip) does not keep the executable bit it needs.
  assert.ok(!names.includes('extension/dist/accord'), 'dist/accord stays out of the VSIX');
});

test("every image the README shows is in the VSIX (VS Code resolves the README's relative links inside the extension)", () => {
  assert.ok(existsSync(vsixPath), `${vsixPath} not found; run \`npm run package\` first`);
  const names = zipEntries(readFileSync(vsixPath));
  const images = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  assert.ok(images.length >= 2, 'the README opens with its screenshots');
  for (const image of images) {
    assert.doesNotMatch(image, /^[a-z]+:/i, `${image}: a relative link, shipped with the extension`);
    assert.ok(names.includes(`extension/${image}`), `${image} is not in the VSIX`);
  }
});

test('the VSIX is smaller than 5 MB', () => {
  assert.ok(existsSync(vsixPath), `${vsixPath} not found; run \`npm run package\` first`);
  const size = readFileSync(vsixPath).length;
  assert.ok(size < 5 * 1024 * 1024, `the VSIX is ${(size / 1024 / 1024).toFixed(1)} MB`);
});
