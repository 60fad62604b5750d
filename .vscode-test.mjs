// The standard desktop path (@vscode/test-cli): the same mocha suite as
// `npm run test:vscode` (test/vscode/, compiled to out/test/vscode/ by
// scripts/test-desktop.mjs), in a desktop VS Code that @vscode/test-electron
// downloads, or the one ACCORD_VSCODE_DESKTOP names. Run it with
// `npm run test:desktop`, which first checks that a desktop VS Code can be had.
// CI uses the web harness instead (README: "Which VS Code the tests use").
import { defineConfig } from '@vscode/test-cli';

const fromPath = process.env.ACCORD_VSCODE_DESKTOP;

export default defineConfig({
  label: 'desktop',
  files: 'out/test/vscode/**/*.test.js',
  extensionDevelopmentPath: '.',
  workspaceFolder: 'test-workspace',
  ...(fromPath ? { useInstallation: { fromPath } } : { version: process.env.ACCORD_VSCODE_VERSION ?? 'stable' }),
  // A clean profile: no other extensions, no settings sync, no workspace-trust prompt.
  launchArgs: ['--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
  // The tests that click the workbench (test/vscode/ui.ts) need the web harness: here they fail at once, saying so.
  env: { ACCORD_DESKTOP: '1' },
  mocha: { ui: 'bdd', timeout: 60_000, color: false },
});
