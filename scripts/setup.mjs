// The set-up `npm start`, `npm test` and `.ci/run` share, so that each works
// straight after cloning: the Debian packages (installed with apt-get when we
// are root or have passwordless sudo, else we stop with the exact command),
// then `npm ci` when node_modules is missing or older than package-lock.json.
// Plain Node only: this runs before any dependency is installed.
//   node scripts/setup.mjs [start|test]   (default: test)
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const windows = process.platform === 'win32';

/**
 * The one list of Debian packages (README and .ci/run point here).
 * `for`: which command needs it; `test` needs everything `start` does.
 */
export const debianPackages = [
  { name: 'git', for: 'start', why: 'the agent works on a git clone of the project' },
  { name: 'ripgrep', for: 'start', why: "the agent's search tool" },
  { name: 'bubblewrap', for: 'start', why: "the agent's command sandbox" },
  { name: 'socat', for: 'start', why: "the command sandbox's network bridge" },
  { name: 'libkrb5-dev', for: 'start', why: "headers for the VS Code server's native kerberos module" },
  { name: 'python3', for: 'start', why: 'node-gyp, for the VS Code server’s native modules' },
  { name: 'make', for: 'start', why: 'node-gyp' },
  { name: 'g++', for: 'start', why: 'node-gyp' },
  { name: 'chromium', for: 'test', why: 'the browser and UI tests' },
];

const say = (text) => console.log(`setup: ${text}`);

/** Package names `command` needs. */
export function packagesFor(command) {
  return debianPackages.filter((p) => p.for === 'start' || command === 'test').map((p) => p.name);
}

/** The packages dpkg does not report as installed; undefined where there is no dpkg (not Debian). */
export function missingDebianPackages(names) {
  const probe = spawnSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev}\\n', ...names], { encoding: 'utf8' });
  if (probe.error) return undefined;
  const installed = new Set(
    probe.stdout.split('\n').map((line) => line.trim().split(/\s+/)).filter(([, status]) => status === 'ii').map(([name]) => name.replace(/:.*$/, '')),
  );
  return names.filter((name) => !installed.has(name));
}

/** How we may run apt-get: as root directly, through passwordless sudo, or not at all. */
function aptRunner() {
  if (process.getuid?.() === 0) return { prefix: [], how: 'as root' };
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  if (!sudo.error && sudo.status === 0) return { prefix: ['sudo', '-n'], how: 'with sudo' };
  return undefined;
}

/** Runs apt-get quietly; its output is shown only when it fails. */
function aptGet(prefix, args) {
  const command = [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', '-o', 'DPkg::Lock::Timeout=600', ...args];
  const result = spawnSync(command[0], command.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: result.status === 0, command: command.join(' '), output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error?.message ?? ''}` };
}

/**
 * What to do about missing packages: nothing, install them (how), or stop with the exact command.
 * Pure, so the decision is tested without root: `runner` is what aptRunner() found.
 */
export function planDebianInstall(command, missing, runner) {
  if (missing.length === 0) return { action: 'none' };
  const byHand = `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (!runner) {
    return { action: 'stop', byHand, message: `npm ${command} needs these Debian packages: ${missing.join(' ')}\nInstall them, then run npm ${command} again:\n  ${byHand}` };
  }
  return { action: 'install', byHand, prefix: runner.prefix, line: `installing Debian packages ${missing.join(' ')} with apt-get (${runner.how})` };
}

/** Installs the missing Debian packages `command` needs, or throws with the exact command to run. */
export function ensureDebianPackages(command) {
  if (process.platform !== 'linux') return;
  const names = packagesFor(command);
  const missing = missingDebianPackages(names);
  if (missing === undefined) {
    say(`no dpkg here (not Debian/Ubuntu): make sure these are installed: ${names.join(', ')}`);
    return;
  }
  const plan = planDebianInstall(command, missing, missing.length > 0 ? aptRunner() : undefined);
  if (plan.action === 'none') return;
  if (plan.action === 'stop') throw new Error(plan.message);
  say(plan.line);
  // A fresh machine may have no package lists at all; a failed update (one mirror down) may still leave usable ones.
  const update = aptGet(plan.prefix, ['update', '-qq']);
  let install = aptGet(plan.prefix, ['install', '-y', '-qq', '--no-install-recommends', ...missing]);
  if (!install.ok && /dpkg --configure -a/.test(install.output)) {
    // An earlier install was interrupted (a killed CI run, a reboot): apt refuses until dpkg finishes it.
    say('dpkg was interrupted earlier: running dpkg --configure -a, then the install again');
    const [program, ...args] = [...plan.prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'dpkg', '--configure', '-a'];
    spawnSync(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    install = aptGet(plan.prefix, ['install', '-y', '-qq', '--no-install-recommends', ...missing]);
  }
  const still = missingDebianPackages(missing) ?? missing;
  if (!install.ok || still.length > 0) {
    const updateLog = update.ok ? '' : `${update.command} failed:\n${update.output}\n`;
    throw new Error(`${updateLog}${install.command} failed:\n${install.output}\nstill missing: ${still.join(' ')}; try by hand:\n  ${plan.byHand}`);
  }
}

/** Why node_modules needs `npm ci`, or undefined when it is up to date with package-lock.json. */
export function staleNodeModules(dir = root) {
  // npm writes node_modules/.package-lock.json at the end of every install: its age is the install's age.
  const marker = path.join(dir, 'node_modules', '.package-lock.json');
  if (!existsSync(marker)) return existsSync(path.join(dir, 'node_modules')) ? 'node_modules is incomplete' : 'node_modules is missing';
  if (statSync(marker).mtimeMs < statSync(path.join(dir, 'package-lock.json')).mtimeMs) return 'node_modules is older than package-lock.json';
  return undefined;
}

/** Runs `npm ci` when node_modules is missing or stale; throws when it fails. */
export function ensureNodeModules() {
  const reason = staleNodeModules();
  if (!reason) return;
  say(`${reason}: running npm ci`);
  // Windows needs a shell to run npm.cmd.
  const npmCi = () => spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', shell: windows });
  let result = npmCi();
  if (result.status !== 0) {
    // A network hiccup on one of hundreds of downloads should not fail a fresh clone's first run.
    say('npm ci failed (see above); trying once more');
    result = npmCi();
  }
  if (result.status !== 0) throw new Error(`npm ci failed twice (exit ${result.status ?? result.error?.message}); see above. Fix that, then run the command again.`);
}

/** Everything `npm start` or `npm test` needs before it can build; exits with a clear message when it cannot. */
export function setUp(command) {
  try {
    ensureDebianPackages(command);
    ensureNodeModules();
  } catch (error) {
    console.error(`\nsetup: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const command = process.argv[2] ?? 'test';
  if (command !== 'start' && command !== 'test') {
    console.error('usage: node scripts/setup.mjs [start|test]');
    process.exit(2);
  }
  setUp(command);
}
