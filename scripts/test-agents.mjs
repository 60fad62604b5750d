// `npm run test:agents` (opt-in, never part of `npm test` or CI): installs the
// catalogue agents' npm packages from the registry into .cache/accord-agents
// (or ACCORD_AGENTS_DIR) and runs test/agents/: each package's launch line,
// its answer to initialize in Accord's minimal environment, and a turn against
// the fake model server where the agent can be pointed at one.
//   ACCORD_AGENTS=claude,codex   only these catalogue ids
//   --no-install                 use what is already in the folder
//   --no-vscode                  skip the turns through the extension in a real VS Code
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { CATALOGUE } from '../extension/agents/catalogue.ts';

const dir = resolve(process.env.ACCORD_AGENTS_DIR ?? '.cache/accord-agents');
const only = (process.env.ACCORD_AGENTS ?? '').split(',').filter(Boolean);
const wanted = CATALOGUE.filter((a) => a.npm && (only.length === 0 || only.includes(a.id)));

if (!process.argv.includes('--no-install')) {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'accord-test-agents', private: true }));
  for (const agent of wanted) {
    console.log(`installing ${agent.npm} into ${dir}`);
    // One package at a time: one that cannot be installed here is reported and skipped by the tests, not fatal.
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', dir, `${agent.npm}@latest`], { stdio: 'inherit' });
    if (r.status !== 0) console.error(`could not install ${agent.npm} (npm exited with ${r.status}); its tests are skipped`);
  }
}

const env = { ...process.env, ACCORD_AGENTS_DIR: dir };
const launch = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-timeout=900000', '--test-reporter=spec', 'test/agents/launch.test.ts'], { stdio: 'inherit', env });
let code = launch.status ?? 1;
if (!process.argv.includes('--no-vscode')) {
  // The same turns through the extension, in the real VS Code the other extension-host tests use.
  const build = spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'inherit' });
  const vscodeRun = build.status === 0
    ? spawnSync(process.execPath, ['scripts/vscode-tests.mjs'], { stdio: 'inherit', env: { ...env, ACCORD_VSCODE_GREP: 'catalogue agents through the extension' } })
    : build;
  if (vscodeRun.status !== 0) code = code || 1;
}
process.exit(code);
