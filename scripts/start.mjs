// `npm start [folder]`: builds and packages Accord, makes sure a real VS Code
// is installed (once, into a cache folder), installs the VSIX into it and
// serves VS Code on 127.0.0.1 opened on the folder (default: the current one).
// On a fresh clone it first does its own set-up (scripts/setup.mjs: Debian
// packages, npm ci). Environment: ACCORD_PORT (default: a free port), VERBOSE=1
// (server log), ACCORD_WORKSPACE_TRUST=1 (ask whether to trust the folder, as
// desktop VS Code does), ACCORD_START_PROFILE (VS Code's settings and
// extensions folder; default: next to the VS Code install).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setUp } from './setup.mjs';
import { ensureVscode, root, startServer, vscodePaths, vsixPath } from './vscode-harness.mjs';

const folder = path.resolve(process.argv[2] ?? process.env.INIT_CWD ?? process.cwd());
if (!existsSync(folder) || !statSync(folder).isDirectory()) {
  console.error(`npm start: ${folder} is not a folder. Usage: npm start [folder]`);
  process.exit(2);
}

setUp('start');
const pack = spawnSync('npm', ['run', '-s', 'package'], { cwd: root, stdio: 'inherit' });
if (pack.status !== 0) {
  console.error('npm start: building or packaging the extension failed (see above).');
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const vsix = vsixPath;

try {
  ensureVscode();
} catch (error) {
  console.error(`npm start: ${error.message}`);
  process.exit(1);
}

// Settings, state and extensions persist between runs, next to the VS Code install.
const dataDir = process.env.ACCORD_START_PROFILE ?? path.join(path.dirname(vscodePaths().home), 'start-profile');
const token = randomBytes(24).toString('hex');
const server = await startServer({
  dataDir,
  token,
  vsix,
  // You chose the folder by starting this; ACCORD_WORKSPACE_TRUST=1 brings back VS Code's Restricted Mode prompt.
  workspaceTrust: process.env.ACCORD_WORKSPACE_TRUST === '1',
  port: process.env.ACCORD_PORT ? Number(process.env.ACCORD_PORT) : undefined,
  onLog: (text) => process.env.VERBOSE && process.stdout.write(text),
});

console.log(`\nAccord ${version} is installed in VS Code, serving ${folder}`);
console.log(`Open: ${server.url(folder)}`);
console.log('Press Ctrl+C to stop.\n');

const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
