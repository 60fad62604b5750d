// `npm test`: makes sure the test prerequisites exist (VS Code, Chromium),
// packages the VSIX, builds, then runs every stage and ends with one
// "N passed, N failed" line summing them all. Non-zero exit on any failure.
//   --only unit|vscode|e2e   run one stage (plus what it needs)
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromiumPath, ensureVscode } from './vscode-harness.mjs';

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const wants = (stage) => !only || only === stage;
const started = Date.now();

function findTests(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith('.test.ts')) found.push(path);
  }
  return found.sort();
}

const stageTimeoutMs = Number(process.env.ACCORD_STAGE_TIMEOUT_MIN ?? 15) * 60_000;
let current; // the running child's process group, stopped on Ctrl+C
process.on('SIGINT', () => {
  if (current) try { process.kill(-current.pid, 'SIGTERM'); } catch { /* gone */ }
  process.exit(130);
});

/** Runs a command in its own process group; a stage that outlives the timeout is stopped and fails. */
function run(command, commandArgs, { capture = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'], detached: true });
    current = child;
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      process.stdout.write(chunk);
    });
    const timer = setTimeout(() => {
      console.error(`\n${command} ${commandArgs.slice(0, 4).join(' ')}... still running after ${stageTimeoutMs / 60_000} min: stopped (ACCORD_STAGE_TIMEOUT_MIN).`);
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    }, stageTimeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      current = undefined;
      resolve({ code: code ?? 1, out });
    });
  });
}

const results = [];
function record(stage, pass, fail) {
  results.push({ stage, pass, fail });
}
function banner(title) {
  console.log(`\n=== ${title} ===`);
}

/** node:test files; counts read from its summary; a crash without a failing test counts as one failure. */
async function nodeTestStage(stage, files, concurrency) {
  banner(`${stage}: ${files.length} files`);
  if (files.length === 0) return record(stage, 0, 0);
  const { code, out } = await run(
    process.execPath,
    // --test-force-exit: a file whose tests are done ends even if a stray handle (socket, child) stays open.
    ['--import', 'tsx', '--test', '--test-force-exit', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files],
    { capture: true },
  );
  const pass = Number(/^ℹ pass (\d+)/m.exec(out)?.[1] ?? 0);
  const fail = Number(/^ℹ fail (\d+)/m.exec(out)?.[1] ?? 0);
  record(stage, pass, fail + (code !== 0 && fail === 0 ? 1 : 0));
}

async function vscodeStage() {
  banner('extension-host tests in a real VS Code (test/vscode)');
  const { code, out } = await run(process.execPath, ['scripts/vscode-tests.mjs'], { capture: true });
  const counts = [...out.matchAll(/^(\d+) passed, (\d+) failed$/gm)].at(-1);
  const pass = Number(counts?.[1] ?? 0);
  const fail = Number(counts?.[2] ?? 0);
  record('vscode', pass, fail + (code !== 0 && fail === 0 ? 1 : 0));
}

// 1. Prerequisites. apt packages are .ci/run's job; here we only say what is missing.
if (wants('vscode') || wants('e2e')) {
  if (!existsSync(chromiumPath)) {
    console.error(`Chromium is missing (${chromiumPath}); the VS Code and UI tests need it: sudo apt-get install chromium`);
  }
  try {
    ensureVscode();
  } catch (error) {
    console.error(error.message);
    record('install VS Code', 0, 1);
  }
}

// 2. The VSIX (production build), then the development build the tests run against.
banner('package');
// A stale VSIX must never stand in for one that failed to build.
for (const name of readdirSync('.')) if (/^accord-.*\.vsix$/.test(name)) rmSync(name);
const pack = await run('npm', ['run', '-s', 'package']);
if (pack.code !== 0) record('package', 0, 1);
banner('build');
const build = await run(process.execPath, ['esbuild.mjs']);
if (build.code !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
if (wants('unit')) {
  banner('typecheck');
  const typecheck = await run('npm', ['run', '-s', 'typecheck']);
  record('typecheck', typecheck.code === 0 ? 1 : 0, typecheck.code === 0 ? 0 : 1);
}

// 3. The stages.
if (wants('unit')) await nodeTestStage('unit', [...findTests('test/unit'), ...findTests('test/browser')], 2);
if (wants('vscode') && !results.some((r) => r.stage === 'install VS Code')) await vscodeStage();
if (wants('e2e') && !results.some((r) => r.stage === 'install VS Code')) await nodeTestStage('e2e', findTests('test/e2e'), 1);

banner(`summary (${((Date.now() - started) / 1000).toFixed(0)} s)`);
for (const r of results) console.log(`  ${r.stage.padEnd(16)} ${r.pass} passed, ${r.fail} failed`);
const passed = results.reduce((sum, r) => sum + r.pass, 0);
const failed = results.reduce((sum, r) => sum + r.fail, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
