// The README's promise, checked: clone this repository into a temp folder, run
// `npm start` there with no `npm ci` first, wait for the URL it prints, fetch
// that URL, stop it with Ctrl+C (SIGINT), and check nothing is left running.
// Prints the time from clone to URL. CI runs it last (`npm test -- --fresh-clone`).
// Skipped, with one line saying why, when the npm registry cannot be reached.
//   --cold   also an empty npm cache and a fresh VS Code install (slow: minutes)
//   --keep   keep the temp folder (for a look after a failure)
// ACCORD_FRESH_CLONE_TIMEOUT_MIN: how long to wait for the URL (default 20).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cold = process.argv.includes('--cold');
const keep = process.argv.includes('--keep');
const timeoutMs = Number(process.env.ACCORD_FRESH_CLONE_TIMEOUT_MIN ?? 20) * 60_000;
const say = (text) => console.log(`fresh clone: ${text}`);
const redact = (text) => text.replace(/tkn=[0-9a-f]+/g, 'tkn=<token>');
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Any HTTP answer from the registry means it is reachable; only a network error or a timeout means it is not. */
async function registryProblem() {
  const configured = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', cwd: root }).stdout?.trim();
  const registry = configured || 'https://registry.npmjs.org/';
  try {
    await fetch(new URL('-/ping', registry.endsWith('/') ? registry : `${registry}/`), { signal: AbortSignal.timeout(20_000) });
    return undefined;
  } catch (error) {
    return `skipped: the npm registry (${registry}) cannot be reached (${error?.cause?.code ?? error?.cause?.errors?.[0]?.code ?? error?.cause?.message ?? error?.message ?? error}), so npm ci cannot run in a fresh clone`;
  }
}

/** Processes whose command line mentions `dir` (what a stopped `npm start` must not leave behind). */
function processesUnder(dir) {
  const found = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(dir)) found.push({ pid: Number(pid), cmdline: cmdline.trim() });
    } catch { /* gone meanwhile */ }
  }
  return found;
}

const waitFor = async (condition, ms) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return condition();
};

/** GETs the workbench URL as a browser would: VS Code trades the token in the URL for a cookie and redirects. */
async function fetchWorkbench(url) {
  let target = url;
  let cookie = '';
  for (let hop = 0; hop < 5; hop++) {
    const response = await fetch(target, { redirect: 'manual', headers: cookie ? { cookie } : {}, signal: AbortSignal.timeout(60_000) });
    const setCookie = response.headers.getSetCookie().map((c) => c.split(';')[0]);
    if (setCookie.length > 0) cookie = setCookie.join('; ');
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      target = new URL(location, target).href;
      continue;
    }
    return { status: response.status, body: await response.text() };
  }
  throw new Error('too many redirects');
}

const problem = process.env.ACCORD_FRESH_CLONE_FORCE_SKIP ? 'skipped: ACCORD_FRESH_CLONE_FORCE_SKIP is set' : await registryProblem();
if (problem) {
  say(problem);
  process.exit(0);
}

const tmp = realpathSync(mkdtempSync(path.join(tmpdir(), 'accord-fresh-clone-')));
const clone = path.join(tmp, 'accord');
let child;
let failed = false;
const log = [];
const fail = (text) => {
  failed = true;
  console.error(`fresh clone: FAILED: ${text}`);
};

async function cleanUp() {
  if (child && child.exitCode === null && child.signalCode === null) try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
  // A server start.mjs failed to stop would hold the folder; it is found by the temp path on its command line.
  for (const { pid } of processesUnder(tmp)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  if (keep) say(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, async () => { await cleanUp(); process.exit(130); });

try {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  say(`cloning ${head}${dirty ? ' (the committed HEAD: uncommitted changes are not part of this check)' : ''} into ${tmp}${cold ? ', cold: empty npm cache, fresh VS Code install' : ''}`);
  const started = Date.now();
  const cloned = spawnSync('git', ['clone', '--quiet', '--no-hardlinks', root, clone], { encoding: 'utf8' });
  if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);

  // A shell straight after cloning: none of our own npm's variables, nothing learnt from this checkout.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|INIT_CWD$)/i.test(name)));
  env.ACCORD_START_PROFILE = path.join(tmp, 'profile');
  delete env.ACCORD_PORT;
  if (cold) {
    env.ACCORD_VSCODE_DIR = path.join(tmp, 'vscode');
    env.npm_config_cache = path.join(tmp, 'npm-cache');
  }
  child = spawn('npm', ['start'], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let pending = '';
    const onData = (chunk) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        log.push(redact(line));
        console.log(`  | ${redact(line)}`);
        const match = /^Open: (http\S+)/.exec(line);
        if (match) resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => reject(new Error(`npm start ended (${signal ?? `exit ${code}`}) before printing a URL`)));
    setTimeout(() => reject(new Error(`no URL within ${timeoutMs / 60_000} min (ACCORD_FRESH_CLONE_TIMEOUT_MIN)`)), timeoutMs).unref();
  });
  const elapsed = Date.now() - started;
  say(`clone → URL in ${seconds(elapsed)}${cold ? ' (cold)' : ''}`);

  const page = await fetchWorkbench(url);
  if (page.status !== 200) fail(`GET of the printed URL answered HTTP ${page.status}: ${redact(page.body.slice(0, 300))}`);
  else if (!/<html/i.test(page.body) || !/workbench/i.test(page.body)) fail(`the printed URL answered 200 but not with VS Code's workbench page: ${redact(page.body.slice(0, 300))}`);
  else say('the URL serves the VS Code workbench');

  // Ctrl+C, as a person would; npm start must stop VS Code's server too.
  process.kill(-child.pid, 'SIGINT');
  const exited = await waitFor(() => child.exitCode !== null || child.signalCode !== null, 120_000);
  if (!exited) fail('npm start did not end within 2 min of Ctrl+C');
  const origin = new URL(url).origin;
  const serverGone = await waitFor(async () => {
    try { await fetch(`${origin}/version`, { signal: AbortSignal.timeout(5000) }); return false; } catch { return true; }
  }, 60_000);
  if (!serverGone) fail(`VS Code's server still answers on ${origin} after npm start ended`);
  const leftovers = processesUnder(tmp);
  if (serverGone && leftovers.length > 0) {
    // The server closes its port before its helpers exit: give them a moment before calling it a leak.
    const stillThere = await waitFor(() => processesUnder(tmp).length === 0, 30_000);
    if (!stillThere) fail(`processes left running after Ctrl+C:\n${processesUnder(tmp).map((p) => `  ${p.pid} ${redact(p.cmdline).slice(0, 200)}`).join('\n')}`);
  }
  if (!failed) say(`passed (clone → URL ${seconds(elapsed)}${cold ? ', cold' : ''})`);
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
  if (log.length === 0) console.error('(npm start printed nothing)');
} finally {
  await cleanUp();
}
process.exit(failed ? 1 : 0);
