// A durable approval across a full VS Code restart, in a real VS Code with the
// packaged extension: the bundled agent (the bridge to its daemon, with
// --durable-requests) ends the turn `waiting`. Then the workbench page closes
// and the VS Code server process stops; a new server starts on the same
// user-data, extensions and server-data dirs with the same ACCORD_HOME, and a
// new page opens the folder. The panel shows the approval card again, the
// status bar counts it, the native dialog asks again, and "Allow once" there
// answers it once: the command runs exactly once and the turn finishes.
// Twice: with the daemon alive across the restart (the normal case), and with
// the daemon killed too, so the new window's agent starts a new daemon that
// loads the session from its log.
//
// The web workbench keeps VS Code's own state (workspaceState among it) in the
// browser's storage for the server's origin, where desktop VS Code keeps it on
// disk: so the browser profile stays and the new server listens on the same
// port, as a restarted desktop VS Code finds its state again.
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { findMessage, openWorkbench, resultsDir, root, showAccordView, startServer, webviewFrame, type VscodeServer, vsixPath, type Workbench } from '../../scripts/vscode-harness.mjs';
import { reply, startFakeModelServer, type FakeModelServer } from '../fakeModelServer/index';

let model: FakeModelServer;
let server: VscodeServer;
let workbench: Workbench;
let page: Page;
const folder = join(root, 'test-workspace');
// VS Code's user data, extensions and server data: kept across the restart (removed at the end).
const dataDir = mkdtempSync(join(tmpdir(), 'accord-e2e-restart-vscode-'));
const config = mkdtempSync(join(tmpdir(), 'accord-e2e-restart-config-'));
// The agent's own state dir: its own daemon and logs, never a daemon another run (or the person) has going.
const home = mkdtempSync(join(tmpdir(), 'accord-e2e-restart-home-'));
// Where the approved commands append a line each: the count of runs.
const runs = mkdtempSync(join(tmpdir(), 'accord-e2e-restart-runs-'));
const env = {
  ANTHROPIC_API_KEY: 'test-key',
  ACCORD_MODEL: 'anthropic:claude-sonnet-4-5',
  ACCORD_CONFIG_DIR: config,
  ACCORD_HOME: home,
  ACCORD_LOCAL_SERVERS: '',
  ACCORD_SANDBOX: 'off',
  // Long enough that the daemon outlives the restart even on a loaded machine (the harness's default is 5 s).
  ACCORD_DAEMON_IDLE_EXIT: '30m',
};
const lockPath = join(home, 'run', 'daemon.lock');

async function screenshot(name: string): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  await page.screenshot({ path: join(resultsDir, `${name}.png`) }).catch(() => {});
}

function daemonPid(): number | undefined {
  try {
    const { pid } = JSON.parse(readFileSync(lockPath, 'utf8')) as { pid: unknown };
    return typeof pid === 'number' ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Alive and not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const runLines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);

before(async () => {
  assert.ok(existsSync(vsixPath), `${vsixPath} not found; run \`npm run package\` first`);
  model = await startFakeModelServer();
  server = await startServer({ dataDir, vsix: vsixPath, env: { ...env, ACCORD_ANTHROPIC_BASE_URL: model.baseUrl } });
  workbench = await openWorkbench(server, { folder, onLog: () => {} });
  page = workbench.page;
});

after(async () => {
  if (page) await screenshot('restart-last');
  await workbench?.close();
  await server?.close();
  await model?.close();
  // The daemon outlives the window by design: stop it before its directory goes.
  spawnSync(process.execPath, [join(root, 'dist/agent.js'), 'daemon', 'stop'], { env: { PATH: process.env.PATH, HOME: config, ACCORD_HOME: home }, stdio: 'ignore', timeout: 60_000 });
  const left = daemonPid();
  if (left !== undefined && running(left)) process.kill(left, 'SIGKILL');
  for (const dir of [dataDir, config, home, runs]) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function openPanel(): Promise<void> {
  await showAccordView(page);
  await webviewFrame(page).locator('#agent-status[data-state="connected"]').waitFor({ timeout: 120_000 });
}

const approvalsWaiting = () => page.locator('.part.statusbar').getByText(/1 approval waiting/).first();

/**
 * Quits VS Code: the page closes (running its unload, as a window closing
 * does) and the server process stops with the bundled agent's bridge. Then
 * `between` runs (the daemon may be killed there), and VS Code starts again.
 */
async function restartVscode(between: () => Promise<void>): Promise<void> {
  const context = page.context();
  const port = server.port;
  const closed = new Promise((resolve) => page.once('close', resolve));
  // A "leave this page?" prompt would keep it open: quitting answers it as a closing window does.
  page.on('dialog', (dialog) => void dialog.accept().catch(() => {}));
  await page.close({ runBeforeUnload: true });
  await closed;
  await server.close();
  await between();
  server = await startServerOn(port);
  page = await context.newPage();
  await page.goto(server.url(folder));
}

/**
 * The same port, so the same origin and so the same browser storage. Another
 * process may hold it for a moment (a free-port probe): wait and try again.
 */
async function startServerOn(port: number): Promise<VscodeServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServer({ dataDir, port, env: { ...env, ACCORD_ANTHROPIC_BASE_URL: model.baseUrl } });
    } catch (error) {
      if (attempt >= 30 || !/the port is taken/.test(String(error))) throw error;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

async function askThenRestart(marker: string, between: () => Promise<void>): Promise<{ runsFile: string; requestsAtAsk: number }> {
  await openPanel();
  const runsFile = join(runs, `${marker}.txt`);
  model.script(
    // A command: it always asks (edits of the session's own copy do not).
    reply.tool(`toolu_${marker}`, 'run_command', { argv: ['sh', '-c', `echo ${marker} >> ${runsFile}`] }),
    reply.text(`Restarted and finished ${marker}.`),
  );
  const composer = webviewFrame(page).locator('.composer textarea');
  await composer.click();
  await composer.fill(`run the ${marker} check`);
  await composer.press('Enter');

  assert.ok(await findMessage(page, marker, 120_000), 'the approval is asked before the restart');
  await webviewFrame(page).getByText(/Waiting for your approval/).first().waitFor({ timeout: 120_000 });
  await webviewFrame(page).locator('.approval-banner', { hasText: marker }).first().waitFor({ timeout: 60_000 });
  await approvalsWaiting().waitFor({ timeout: 60_000 });
  await screenshot(`restart-${marker}-before`);
  const requestsAtAsk = model.requests.length;

  await restartVscode(between);
  assert.equal(runLines(runsFile), 0, 'nothing ran before the answer');
  return { runsFile, requestsAtAsk };
}

async function answerOnceAfterRestart(marker: string, runsFile: string, requestsAtAsk: number): Promise<void> {
  await openPanel();
  let again;
  try {
    again = await findMessage(page, marker, 180_000);
  } catch (error) {
    await screenshot(`restart-${marker}-no-approval-after`);
    throw error;
  }
  // The panel's card and the status bar show the approval again, before it is answered.
  await webviewFrame(page).locator('.approval-banner', { hasText: marker }).first().waitFor({ timeout: 60_000 });
  await approvalsWaiting().waitFor({ timeout: 60_000 });
  await screenshot(`restart-${marker}-after`);
  assert.equal(model.requests.length, requestsAtAsk, 'the restart asked the model nothing');

  await again.getByRole('button', { name: 'Allow once', exact: true }).click();
  await webviewFrame(page).getByText(`Restarted and finished ${marker}.`).first().waitFor({ timeout: 120_000 });
  await screenshot(`restart-${marker}-finished`);
  await approvalsWaiting().waitFor({ state: 'detached', timeout: 60_000 });
  await webviewFrame(page).locator('.approval-banner').first().waitFor({ state: 'detached', timeout: 60_000 });

  // Answered once: the command ran once, and one model request followed, carrying its output exactly once.
  assert.equal(runLines(runsFile), 1, 'the approved command ran exactly once');
  assert.equal(model.requests.length, requestsAtAsk + 1);
  const messages = model.requests.at(-1)!.body.messages as Array<{ content: unknown }>;
  const results = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c: any) => c.type === 'tool_result' && c.tool_use_id === `toolu_${marker}`);
  assert.equal(results.length, 1, 'one result for the approved call');
}

test('a durable approval survives a VS Code restart while the daemon stays up, and the native dialog answers it once', { timeout: 600_000 }, async () => {
  let daemon: number | undefined;
  const { runsFile, requestsAtAsk } = await askThenRestart('restartalive', async () => {
    daemon = daemonPid();
    assert.ok(daemon !== undefined && running(daemon), 'the daemon outlives VS Code');
  });
  await answerOnceAfterRestart('restartalive', runsFile, requestsAtAsk);
  assert.equal(daemonPid(), daemon, 'the restarted VS Code used the same daemon');
});

test('a durable approval survives a VS Code restart with its daemon killed, loaded from the log by a new daemon', { timeout: 600_000 }, async () => {
  let killed: number | undefined;
  const { runsFile, requestsAtAsk } = await askThenRestart('restartkilled', async () => {
    killed = daemonPid();
    assert.ok(killed !== undefined && running(killed), 'the daemon outlives VS Code');
    process.kill(killed, 'SIGKILL');
    await waitFor('the killed daemon is gone', () => !running(killed!));
  });
  await answerOnceAfterRestart('restartkilled', runsFile, requestsAtAsk);
  const now = daemonPid();
  assert.ok(now !== undefined && now !== killed && running(now), 'a new daemon serves the restarted window');
});
