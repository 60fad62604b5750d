// The sandbox proxy (sandbox-runtime's mux, on 127.0.0.1 in the agent or
// daemon process) must stay out of VS Code's Ports view. VS Code's port
// finder reads every listening socket in /proc/net/tcp{,6} — 127.0.0.1 and
// 0.0.0.0 alike — and names each by its process's command line; a
// `remote.portsAttributes` key that is not a port is a regular expression over
// that command line. package.json contributes one for Accord's agent
// processes with onAutoForward "ignore". These tests hold the expression to
// the command lines Accord really starts, as /proc shows them (NUL-separated),
// and keep it off everything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { configurationDefaults: Record<string, unknown> } };
const attributes = pkg.contributes.configurationDefaults['remote.portsAttributes'] as Record<string, { onAutoForward?: string }>;
const entries = Object.entries(attributes).filter(([, v]) => v.onAutoForward === 'ignore');

/** As VS Code builds it (RegExp(key)), tested against the process's command line. */
const ignored = (cmdline: string) => entries.some(([key]) => RegExp(key).test(cmdline));
const proc = (...argv: string[]) => `${argv.join('\0')}\0`;

test('one ignore entry, keyed by command line (not a port, which a random proxy port cannot match)', () => {
  assert.equal(entries.length, 1);
  assert.ok(!/^\d+(-\d+)?$/.test(entries[0]![0]));
});

test('the bundled agent and its daemon, as the extension and connect.ts start them, are ignored', () => {
  const node = '/home/me/.vscode-server/cli/servers/Stable-abc/server/node';
  const ext = '/home/me/.vscode-server/extensions/accord-dev.accord-0.1.0';
  assert.ok(ignored(proc(node, `${ext}/dist/agent.js`, 'acp')));
  assert.ok(ignored(proc(node, `${ext}/dist/agent.js`, 'daemon')));
  assert.ok(ignored(proc(node, `${ext}/dist/agent.js`, 'daemon', '--listen', '/tmp/accord.sock')));
  assert.ok(ignored(proc('C:\\Program Files\\node.exe', 'C:\\Users\\me\\.vscode\\extensions\\accord\\dist\\agent.js', 'acp')));
  // A clone run with `npm start`, and the same line as ps shows it (spaces).
  assert.ok(ignored(proc('/usr/bin/node', '/work/accord/dist/agent.js', 'acp')));
  assert.ok(ignored('/usr/bin/node /work/accord/dist/agent.js daemon'));
});

test("a person's own servers keep their ports", () => {
  for (const cmdline of [
    proc('node', 'server.js'),
    proc('node', '/proj/dist/agent.js'), // their own agent.js, without Accord's subcommand
    proc('node', '/proj/dist/agent.js', 'serve'),
    proc('node', '/proj/dist/agent.js', 'acpx'),
    proc('node', '/proj/dist/agent.jsx', 'acp'),
    proc('node', '/proj/dist/my-agent.js', 'acp'),
    proc('python3', '-m', 'http.server', '8000'),
    proc('npx', 'vite', '--port', '5173'),
  ]) {
    assert.ok(!ignored(cmdline), `ignored: ${JSON.stringify(cmdline)}`);
  }
});
