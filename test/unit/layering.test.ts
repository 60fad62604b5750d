// The towers stay apart: the agent and the webview never import `vscode`, and
// the agent core imports neither `vscode` nor the ACP SDK (adapters do).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|mts|js)$/.test(name) ? [path] : [];
  });
}

function importersOf(dir: string, pattern: RegExp): string[] {
  return sources(dir).filter((file) => pattern.test(readFileSync(file, 'utf8')));
}

const importOf = (module: string) =>
  new RegExp(`(from\\s+|import\\s*\\(\\s*|require\\s*\\(\\s*|import\\s+)['"]${module}['"]`);

test('agent/ does not import vscode', () => {
  assert.deepEqual(importersOf('agent', importOf('vscode')), []);
});

test('webview/ does not import vscode', () => {
  assert.deepEqual(importersOf('webview', importOf('vscode')), []);
});

test('agent/core imports neither vscode nor the ACP SDK', () => {
  assert.deepEqual(importersOf('agent/core', importOf('(vscode|@agentclientprotocol/sdk[^\'"]*)')), []);
});

test('the pattern catches every import form', () => {
  const pattern = importOf('vscode');
  for (const line of [`import * as vscode from 'vscode';`, `const v = require("vscode")`, `await import('vscode')`, `import 'vscode';`]) {
    assert.match(line, pattern, line);
  }
  assert.doesNotMatch(`import { x } from './vscodeish';`, pattern);
});

test('protocol/ (shared by the agent and the extension) imports neither vscode nor the ACP SDK', () => {
  assert.deepEqual(importersOf('protocol', importOf('(vscode|@agentclientprotocol/sdk[^\'"]*)')), []);
});

// The SDK's stable entry carries its own copy of the v1 zod schemas (~2 MB of heap in every agent process, beside
// the unstable copy the agent speaks); everything it exports (RequestError, methods, types) the unstable entry has too.
test("agent/ imports the ACP SDK's v1 through its unstable entry only: one set of v1 schemas in the agent's heap", () => {
  assert.deepEqual(importersOf('agent', importOf('@agentclientprotocol/sdk')), []);
});

// The extension's direct link to the daemon runs in the light entry (extension.ts starts it before main.ts is
// evaluated): what it reaches under agent/ must stay the bridge's small modules, never the agent core or the SDK.
test("the extension's daemon link reaches only the daemon's small client modules", () => {
  const seen = new Set<string>();
  const queue = ['extension/agents/daemonLink.ts'];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^import\s+(?!type\b)[^'"]*['"]([^'"]+)['"]/gm)) {
      assert.ok(!specifier!.startsWith('@agentclientprotocol/sdk') && specifier !== 'vscode', `${file} imports ${specifier}`);
      if (specifier!.startsWith('.')) queue.push(join(file, '..', `${specifier}.ts`));
    }
  }
  assert.deepEqual([...seen].filter((f) => f.startsWith('agent/')).sort(), ['agent/cli/options.ts', 'agent/daemon/address.ts', 'agent/daemon/connect.ts', 'agent/daemon/handshake.ts']);
});
