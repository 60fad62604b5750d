// Runs the mocha suite in test/vscode/ inside the extension host of a real
// VS Code, with Accord loaded from this folder as a development extension.
// Prints the suite's output and exits with its result (124 on timeout).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compileVscodeTests } from './compile-vscode-tests.mjs';
import { openWorkbench, root, startServer } from './vscode-harness.mjs';

// The whole suite's limit (each test has its own mocha timeout): generous, since the suite grows and a loaded
// 2-core machine runs it several times slower; a hang still ends here, before the stage's backstop.
const timeoutMs = Number(process.env.ACCORD_VSCODE_TEST_TIMEOUT_MS ?? 900_000);
const outDir = path.join(root, 'out/test/vscode');

// Compile the suite: one CommonJS file per test, `vscode` and `mocha` resolved at run time.
await compileVscodeTests(root);

const SUITE_START = '@@accord-suite-start'; // printed by test/vscode/suite/index.ts

/**
 * One VS Code window on `folder` running the suite; `suite` picks the tests
 * (test/vscode/suite/index.ts): "workspace" all but the plain-folder ones,
 * "plain" only those titled "[plain folder]".
 */
async function runSuite(folder, suite) {
  let suiteStarted = false;
  const workbenchLog = [];
  const lines = [];
  const started = Date.now();
  // A scripted chat model provider, installed beside Accord, so the vscode-lm tests need no signed-in Copilot.
  const server = await startServer({ smokeTestDriver: true, env: { ACCORD_VSCODE_SUITE: suite }, extensionFolders: [path.join(root, 'test/vscode/fakeLmProvider')] });
  const workbench = await openWorkbench(server, {
    folder,
    payload: [
      ['extensionDevelopmentPath', server.remote(root)],
      ['extensionTestsPath', server.remote(path.join(outDir, 'suite/index.js'))],
      ['skipWelcome', 'true'],
    ],
    onLog: (type, raw) => {
      const text = raw.replace(/\x1b\[[0-9;]*m/g, ''); // mocha colours its output when it thinks it is on CI
      // The workbench logs a lot before the suite starts (offline gallery errors...); show it only with VERBOSE=1.
      if (text === SUITE_START) suiteStarted = true;
      else if (suiteStarted || process.env.VERBOSE) {
        lines.push(text);
        (type === 'error' ? console.error : console.log)(text);
      } else workbenchLog.push(text);
    },
  });
  const timeout = new Promise((resolve) => setTimeout(() => resolve(124), timeoutMs).unref());
  const code = await Promise.race([workbench.exitCode, timeout]);
  if (code === 124) console.error(`extension-host tests (${suite}) timed out after ${timeoutMs / 1000} s`);
  if (code !== 0 && !suiteStarted) console.error(`--- workbench log ---\n${workbenchLog.join('\n')}`);
  if (code !== 0) console.error(`--- VS Code server log ---\n${server.output.join('')}`);
  console.log(`extension-host tests (${suite}) finished with code ${code} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await workbench.close();
  await server.close();
  const counts = lines.map((l) => /^(\d+) passed, (\d+) failed$/.exec(l)).filter(Boolean).at(-1);
  return { code, passed: Number(counts?.[1] ?? 0), failed: Number(counts?.[2] ?? 0) };
}

const results = [await runSuite(path.join(root, 'test-workspace'), 'workspace')];
// The same agent and review in a folder that is not a git repository (the agent works in a shadow copy).
const plain = mkdtempSync(path.join(tmpdir(), 'accord-plain-folder-'));
try {
  writeFileSync(path.join(plain, 'README.md'), '# A folder without git\n');
  results.push(await runSuite(plain, 'plain'));
} finally {
  rmSync(plain, { recursive: true, force: true });
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(results.find((r) => r.code !== 0)?.code ?? 0);
