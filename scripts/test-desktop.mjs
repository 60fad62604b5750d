// `npm run test:desktop`: the extension-host mocha suite (test/vscode/) in a
// desktop VS Code through the standard @vscode/test-cli path (.vscode-test.mjs).
// It needs a desktop VS Code (downloaded by @vscode/test-electron from
// Microsoft's update server, or ACCORD_VSCODE_DESKTOP=/path/to/code) and, on
// Linux, a display (DISPLAY, or xvfb-run). Where either is missing it fails
// with one line saying which. CI uses the web harness (`npm run test:vscode`);
// README: "Which VS Code the tests use".
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { downloadAndUnzipVSCode } from '@vscode/test-electron';
import { compileVscodeTests } from './compile-vscode-tests.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fail = (reason) => {
  console.error(`test:desktop: cannot run: ${reason}`);
  process.exit(1);
};
const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

let executable = process.env.ACCORD_VSCODE_DESKTOP;
if (executable && !existsSync(executable)) fail(`ACCORD_VSCODE_DESKTOP=${executable} does not exist`);
if (!executable) {
  try {
    // An idle timeout: a machine that cannot reach the update server says so in seconds, not minutes.
    executable = await downloadAndUnzipVSCode({ version: process.env.ACCORD_VSCODE_VERSION ?? 'stable', cachePath: path.join(root, '.vscode-test'), timeout: 20_000 });
  } catch (error) {
    const reason = String(error instanceof Error ? error.message : error).split('\n')[0].slice(0, 200);
    fail(`no desktop VS Code could be downloaded (${reason}); set ACCORD_VSCODE_DESKTOP to a VS Code executable, or run npm run test:vscode (the web harness CI uses)`);
  }
}

const xvfb = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
if (xvfb && !onPath('xvfb-run')) fail('no display: set DISPLAY, or install xvfb-run (apt-get install xvfb)');

const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) fail('the build failed (see above)');
await compileVscodeTests(root);

const cli = path.join(root, 'node_modules/.bin/vscode-test');
const [command, args] = xvfb ? ['xvfb-run', ['-a', cli]] : [cli, []];
const run = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ACCORD_VSCODE_DESKTOP: executable } });
process.exit(run.status ?? 1);
