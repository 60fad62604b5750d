// `npm test`: builds, then runs every stage and ends with one
// "N passed, N failed" line. Stages are added by the harness (VS Code, UI).
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith('.test.ts')) found.push(path);
  }
  return found.sort();
}

function run(command, commandArgs, { capture = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      process.stdout.write(chunk);
    });
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

let passed = 0;
let failed = 0;

async function unitStage() {
  const files = findTests('test/unit');
  const { code, out } = await run(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
    { capture: true },
  );
  const pass = Number(/^ℹ pass (\d+)/m.exec(out)?.[1] ?? 0);
  const fail = Number(/^ℹ fail (\d+)/m.exec(out)?.[1] ?? 0);
  passed += pass;
  failed += fail + (code !== 0 && fail === 0 ? 1 : 0);
}

const build = await run(process.execPath, ['esbuild.mjs']);
if (build.code !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const typecheck = await run('npm', ['run', '-s', 'typecheck']);
if (typecheck.code !== 0) failed += 1;

if (!only || only === 'unit') await unitStage();

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
