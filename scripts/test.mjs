// `npm test`: does its own set-up on a fresh clone (scripts/setup.mjs: Debian
// packages, npm ci), makes sure VS Code is installed, packages the VSIX,
// builds, then runs every stage and ends with one "N passed, N failed" line
// summing them all, after the names of the failed tests. Non-zero exit on any failure.
//   --only unit|vscode|e2e|fresh-clone   run one stage (plus what it needs)
//   --fresh-clone                        also run the fresh-clone check last (CI does)
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setUp } from './setup.mjs';
import { ensureVscode } from './vscode-harness.mjs';

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const wants = (stage) => (stage === 'fresh-clone' ? only === stage || (!only && args.includes('--fresh-clone')) : !only || only === stage);
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

// A backstop only: a hanging test already fails by name after 5 min (--test-timeout); under heavy load
// (8 test runs on 2 cores) the unit stage alone took over 15 min.
const stageTimeoutMs = Number(process.env.ACCORD_STAGE_TIMEOUT_MIN ?? 30) * 60_000;
let current; // the running child's process group, stopped on Ctrl+C
process.on('SIGINT', () => {
  if (current) try { process.kill(-current.pid, 'SIGTERM'); } catch { /* gone */ }
  process.exit(130);
});

/** The live processes of a process group ("pid command"), read from /proc; none where there is no /proc. */
function groupMembers(pgid) {
  if (!existsSync('/proc')) return [];
  const members = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // Fields after the parenthesised command: state, ppid, pgrp.
      const [state, , pgrp] = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      if (Number(pgrp) !== pgid || state === 'Z') continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      if (cmdline) members.push(`${pid} ${cmdline.slice(0, 160)}`); // an empty one is a process already exiting
    } catch { /* gone meanwhile */ }
  }
  return members;
}

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
      // Whatever the stage left running in its process group (a helper, a server) would skew the next stage.
      const left = groupMembers(child.pid);
      if (left.length > 0) {
        console.error(`${command} ${commandArgs.slice(0, 4).join(' ')}... left ${left.length} process(es) running; stopping them:`);
        for (const p of left) console.error(`  ${p}`);
        try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone meanwhile */ }
      }
      resolve({ code: code ?? 1, out });
    });
  });
}

const results = [];
function record(stage, pass, fail, failures = [], note = '') {
  results.push({ stage, pass, fail, failures, note });
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
    // --test-timeout: a test that hangs fails by name after 5 min (tests that need longer say so) instead of
    // the whole stage being stopped with no name at ACCORD_STAGE_TIMEOUT_MIN.
    // test/support/srtWhich.mjs: sandbox-runtime run from source looks programs up in-process, as the bundle does.
    // test/support/providerUtilsHeaders.mjs: provider-utils builds request headers without undici, as in the bundle.
    ['--import', 'tsx', '--import', './test/support/srtWhich.mjs', '--import', './test/support/providerUtilsHeaders.mjs', '--test', '--test-force-exit', '--test-timeout=300000', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files],
    { capture: true },
  );
  const pass = Number(/^ℹ pass (\d+)/m.exec(out)?.[1] ?? 0);
  const fail = Number(/^ℹ fail (\d+)/m.exec(out)?.[1] ?? 0);
  // The spec reporter repeats each failed test after "✖ failing tests:"; keep those names for the summary.
  const failing = out.split('\n✖ failing tests:')[1] ?? '';
  // Each entry: "test at FILE:LINE:COL", "✖ NAME (DURATION)", then the error's first line.
  const failures = [...new Set([...failing.matchAll(/^(?:test at (.+)\n)?\s*✖ (.+?)(?: \([\d.]+m?s\))?\n\s*(.*)$/gm)]
    .map(([, where, name, error]) => `${name}${where ? ` (${where})` : ''}${error ? `: ${error.slice(0, 200)}` : ''}`))];
  if (code !== 0 && fail === 0) failures.push(`the test run itself exited with code ${code} (see its output above)`);
  record(stage, pass, fail + (code !== 0 && fail === 0 ? 1 : 0), failures);
}

async function vscodeStage() {
  banner('extension-host tests in a real VS Code (test/vscode)');
  const { code, out } = await run(process.execPath, ['scripts/vscode-tests.mjs'], { capture: true });
  const counts = [...out.matchAll(/^(\d+) passed, (\d+) failed$/gm)].at(-1);
  const pass = Number(counts?.[1] ?? 0);
  const fail = Number(counts?.[2] ?? 0);
  // After "N failing", mocha lists each failure as "  1) suite", nested titles, "test title:", then the error.
  const report = out.split(/^\s+\d+ failing$/m)[1] ?? '';
  const failures = [...report.matchAll(/^\s+\d+\) (.+)\n((?:.*\n)*?)\s*(.+):\n\s*(.*)$/gm)]
    .map(([, suite, middle, name, error]) => [suite, ...middle.split('\n').map((l) => l.trim()).filter(Boolean), name].join(' › ') + (error ? `: ${error.slice(0, 200)}` : ''));
  if (code !== 0 && fail === 0) failures.push(`the extension-host run exited with code ${code} (see its output above)`);
  record('vscode', pass, fail + (code !== 0 && fail === 0 ? 1 : 0), failures);
}

/** scripts/fresh-clone.mjs: `npm start` in a fresh clone prints a URL that serves VS Code. A skip counts neither way. */
async function freshCloneStage() {
  banner('fresh clone: npm start straight after git clone (scripts/fresh-clone.mjs)');
  const { code, out } = await run(process.execPath, ['scripts/fresh-clone.mjs'], { capture: true });
  const skipped = /^fresh clone: (skipped.*)$/m.exec(out);
  if (skipped) return record('fresh-clone', 0, 0, [], skipped[1]);
  const failures = [...out.matchAll(/^fresh clone: FAILED: (.+)$/gm)].map((m) => m[1]);
  if (code !== 0 && failures.length === 0) failures.push(`exited with code ${code} (see above)`);
  record('fresh-clone', code === 0 ? 1 : 0, code === 0 ? 0 : 1, failures);
}

// 1. Prerequisites: Debian packages and node_modules, then VS Code.
setUp('test');
if (wants('vscode') || wants('e2e') || wants('fresh-clone')) {
  try {
    ensureVscode();
  } catch (error) {
    console.error(error.message);
    record('install VS Code', 0, 1, [error.message]);
  }
}

// 2. The VSIX (production build), then the development build the tests run against.
//    The fresh-clone check alone needs neither: the clone builds itself.
let built = true;
if (only !== 'fresh-clone') {
  banner('package');
  // A stale VSIX must never stand in for one that failed to build.
  for (const name of readdirSync('.')) if (/^accord-.*\.vsix$/.test(name)) rmSync(name);
  const pack = await run('npm', ['run', '-s', 'package']);
  if (pack.code !== 0) record('package', 0, 1, [`npm run package exited with code ${pack.code} (see above)`]);
  banner('build');
  const build = await run(process.execPath, ['esbuild.mjs']);
  if (build.code !== 0) {
    built = false;
    record('build', 0, 1, [`node esbuild.mjs exited with code ${build.code} (see above); no test stage ran`]);
  }
}
if (built && wants('unit')) {
  banner('typecheck');
  const typecheck = await run('npm', ['run', '-s', 'typecheck']);
  record('typecheck', typecheck.code === 0 ? 1 : 0, typecheck.code === 0 ? 0 : 1, typecheck.code === 0 ? [] : ['tsc reported errors (see above)']);
}

// 3. The stages.
const haveVscode = !results.some((r) => r.stage === 'install VS Code');
if (built && wants('unit')) await nodeTestStage('unit', [...findTests('test/unit'), ...findTests('test/browser')], 2);
if (built && haveVscode && wants('vscode')) await vscodeStage();
if (built && haveVscode && wants('e2e')) await nodeTestStage('e2e', findTests('test/e2e'), 1);
if (haveVscode && wants('fresh-clone')) await freshCloneStage();

banner(`summary (${((Date.now() - started) / 1000).toFixed(0)} s)`);
for (const r of results) {
  console.log(`  ${r.stage.padEnd(16)} ${r.pass} passed, ${r.fail} failed${r.note ? ` (${r.note})` : ''}`);
  for (const name of r.failures.slice(0, 20)) console.log(`      ✖ ${name}`);
  if (r.failures.length > 20) console.log(`      … and ${r.failures.length - 20} more (see above)`);
}
const passed = results.reduce((sum, r) => sum + r.pass, 0);
const failed = results.reduce((sum, r) => sum + r.fail, 0);
console.log(`${passed} passed, ${failed} failed`);
// Nothing run at all is a failure, unless all that was asked for was skipped with a reason.
process.exit(failed === 0 && (passed > 0 || (results.length > 0 && results.every((r) => r.note))) ? 0 : 1);
