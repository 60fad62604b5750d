// scripts/setup.mjs: when `npm start` / `npm test` run npm ci, and what they do
// about missing Debian packages (install as root or with sudo, else stop with the command).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { debianPackages, missingDebianPackages, packagesFor, planDebianInstall, staleNodeModules } from '../../../scripts/setup.mjs';

const root = join(import.meta.dirname, '../../..');

describe('staleNodeModules', () => {
  /** A project folder with a lock file and, optionally, node_modules and npm's install marker, at given ages (s). */
  function project(t: { after: (fn: () => void) => void }, layout: { lock: number; modules?: boolean; marker?: number }) {
    const dir = mkdtempSync(join(tmpdir(), 'accord-setup-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const lock = join(dir, 'package-lock.json');
    writeFileSync(lock, '{}');
    utimesSync(lock, layout.lock, layout.lock);
    if (layout.modules || layout.marker !== undefined) mkdirSync(join(dir, 'node_modules'));
    if (layout.marker !== undefined) {
      const marker = join(dir, 'node_modules', '.package-lock.json');
      writeFileSync(marker, '{}');
      utimesSync(marker, layout.marker, layout.marker);
    }
    return dir;
  }

  test('a fresh clone (no node_modules) needs npm ci', (t) => {
    assert.equal(staleNodeModules(project(t, { lock: 1000 })), 'node_modules is missing');
  });
  test('node_modules without the marker npm writes last (an interrupted install) needs npm ci', (t) => {
    assert.equal(staleNodeModules(project(t, { lock: 1000, modules: true })), 'node_modules is incomplete');
  });
  test('an install older than package-lock.json (a pull changed the lock) needs npm ci', (t) => {
    assert.equal(staleNodeModules(project(t, { lock: 2000, marker: 1000 })), 'node_modules is older than package-lock.json');
  });
  test('an install newer than, or as old as, package-lock.json is kept', (t) => {
    assert.equal(staleNodeModules(project(t, { lock: 1000, marker: 2000 })), undefined);
    assert.equal(staleNodeModules(project(t, { lock: 1000, marker: 1000 })), undefined);
  });
});

describe('Debian packages', () => {
  test('npm test needs every package npm start needs, plus chromium', () => {
    const start = packagesFor('start');
    const all = packagesFor('test');
    for (const name of start) assert.ok(all.includes(name), name);
    assert.ok(all.includes('chromium') && !start.includes('chromium'));
    assert.deepEqual(new Set(all), new Set(debianPackages.map((p) => p.name)));
    for (const name of ['git', 'ripgrep', 'bubblewrap', 'socat', 'libkrb5-dev']) assert.ok(start.includes(name), name);
  });

  test('nothing missing: nothing to do, whoever we are', () => {
    assert.deepEqual(planDebianInstall('test', [], undefined), { action: 'none' });
  });

  test('as root: apt-get directly, announced in one line', () => {
    const plan = planDebianInstall('test', ['chromium', 'socat'], { prefix: [], how: 'as root' });
    assert.equal(plan.action, 'install');
    assert.ok(plan.action === 'install');
    assert.deepEqual(plan.prefix, []);
    assert.equal(plan.line, 'installing Debian packages chromium socat with apt-get (as root)');
    assert.ok(!plan.line.includes('\n'));
  });

  test('with passwordless sudo: apt-get through sudo -n', () => {
    const plan = planDebianInstall('start', ['ripgrep'], { prefix: ['sudo', '-n'], how: 'with sudo' });
    assert.ok(plan.action === 'install');
    assert.deepEqual(plan.prefix, ['sudo', '-n']);
  });

  test('neither root nor sudo: stop with the exact command that installs exactly what is missing', () => {
    const plan = planDebianInstall('test', ['chromium', 'libkrb5-dev'], undefined);
    assert.ok(plan.action === 'stop');
    assert.equal(plan.byHand, 'sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium libkrb5-dev');
    assert.ok(plan.message.includes(`\n  ${plan.byHand}`));
    assert.match(plan.message, /run npm test again/);
  });

  test('dpkg is asked, not guessed: an installed package is not missing, an unknown one is', { skip: spawnSync('dpkg-query', ['--version']).error ? 'no dpkg here' : false }, () => {
    // dpkg itself is always installed on Debian; the other name exists in no archive.
    assert.deepEqual(missingDebianPackages(['dpkg', 'accord-no-such-package']), ['accord-no-such-package']);
  });

  test('.ci/run uses the same installer rather than a list of its own', () => {
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    assert.match(ci, /node scripts\/setup\.mjs test/);
    assert.doesNotMatch(ci, /apt-get install/);
  });
});
