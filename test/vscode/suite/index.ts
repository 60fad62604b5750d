// Loaded by VS Code's extension host (payload `extensionTestsPath`): runs every
// compiled *.test.js next to this folder with mocha and prints one
// "N passed, N failed" line, which scripts/vscode-tests.mjs reads.
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  // ACCORD_VSCODE_GREP runs only the tests whose titles match (while working on one area).
  // ACCORD_VSCODE_SUITE=plain (a window on a folder without git) runs only the "[plain folder]" tests; the git workspace runs the rest.
  const only = process.env.ACCORD_VSCODE_GREP ?? '';
  const plain = process.env.ACCORD_VSCODE_SUITE === 'plain';
  const grep = new RegExp(plain ? `^(?=.*\\[plain folder\\]).*(?:${only})` : `^(?!.*\\[plain folder\\]).*(?:${only})`);
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec', grep });
  const testsRoot = path.resolve(__dirname, '..');
  const files = readdirSync(testsRoot, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.js'))
    .sort();
  for (const file of files) mocha.addFile(path.join(testsRoot, file));
  console.log('@@accord-suite-start'); // the runner hides workbench noise logged before this line
  return new Promise((resolve, reject) => {
    // Counted as they run: with a grep, the suite's total would include tests that did not run.
    let passed = 0;
    const runner = mocha.run((failures) => {
      console.log(`${passed} passed, ${failures} failed`);
      if (failures > 0) reject(new Error(`${failures} of ${passed + failures} extension-host tests failed`));
      else resolve();
    });
    runner.on('pass', () => passed++);
  });
}
