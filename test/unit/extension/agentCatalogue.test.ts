import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import fc from 'fast-check';
import { agentEntry, CATALOGUE, installCommand } from '../../../extension/agents/catalogue';
import { detect, inNpxCache, onPath } from '../../../extension/agents/detect';
import { agentChoices } from '../../../extension/agents/agentChoices';
import { forIconLabel } from '../../../extension/text/agentText';

const byId = (id: string) => CATALOGUE.find((a) => a.id === id)!;
let root: string;

function executable(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
}

function npxPackage(cache: string, hash: string, pkg: string, name = pkg): string {
  const dir = join(cache, '_npx', hash, 'node_modules', ...pkg.split('/'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0' }));
  return dir;
}

describe('agent catalogue', () => {
  before(() => (root = mkdtempSync(join(tmpdir(), 'accord-catalogue-'))));
  after(() => rmSync(root, { recursive: true, force: true }));

  test('names the six agents the issue asks for, each with a launch line and a way to sign in', () => {
    assert.deepEqual(CATALOGUE.map((a) => a.id), ['gemini', 'claude', 'codex', 'qwen', 'opencode', 'goose']);
    for (const a of CATALOGUE) {
      assert.match(a.command, /^[a-z][a-z0-9-]*$/, `${a.id}: a bare program name, nothing a shell would read`);
      for (const arg of a.args) assert.match(arg, /^[a-z-]+$/);
      assert.ok(a.auth.length > 20, `${a.id} says how to sign in`);
      assert.ok(a.npm || a.installPage, `${a.id} says where it comes from`);
      if (a.installPage) assert.match(a.installPage, /^https:\/\//);
    }
    assert.deepEqual([byId('gemini').command, ...byId('gemini').args], ['gemini', '--acp']);
    assert.deepEqual([byId('opencode').command, ...byId('opencode').args], ['opencode', 'acp']);
    assert.deepEqual([byId('goose').command, ...byId('goose').args], ['goose', 'acp']);
    assert.equal(byId('claude').npm, '@agentclientprotocol/claude-agent-acp');
    assert.equal(byId('codex').npm, '@agentclientprotocol/codex-acp');
  });

  test('the entry runs the installed program, or the package through npx', () => {
    assert.deepEqual(agentEntry(byId('qwen'), 'path'), { name: 'Qwen Code', command: 'qwen', args: ['--acp'] });
    assert.deepEqual(agentEntry(byId('claude'), 'npx'), { name: 'Claude Code', command: 'npx', args: ['--yes', '@agentclientprotocol/claude-agent-acp'] });
    // Goose has no npm package: npx is never made up for it.
    assert.deepEqual(agentEntry(byId('goose'), 'npx'), { name: 'Goose', command: 'goose', args: ['acp'] });
  });

  test('the install is an argv for npm, never a shell line', () => {
    const cmd = installCommand(byId('gemini'))!;
    assert.deepEqual(cmd.args, ['install', '--global', '@google/gemini-cli']);
    assert.equal(installCommand(byId('goose')), undefined);
  });

  test('finds a program on PATH, skipping folders, files that are not executable and empty PATH entries', () => {
    const a = join(root, 'path-a');
    const b = join(root, 'path-b');
    mkdirSync(join(a, 'gemini'), { recursive: true }); // a folder named like the program
    mkdirSync(b, { recursive: true });
    writeFileSync(join(b, 'gemini'), 'not executable');
    executable(join(root, 'path-c', 'gemini'));
    const PATH = ['', a, b, join(root, 'path-c')].join(delimiter);
    assert.equal(onPath('gemini', { PATH }), join(root, 'path-c', 'gemini'));
    assert.equal(onPath('qwen', { PATH }), undefined);
    // A command with a slash is a path, never searched (a configured "../x" must not resolve through PATH).
    assert.equal(onPath('path-c/gemini', { PATH: root }), undefined);
  });

  test('attack: a symlink on PATH to a folder or a dangling target is not an installed agent', () => {
    const dir = join(root, 'links');
    mkdirSync(dir, { recursive: true });
    symlinkSync(root, join(dir, 'qwen'));
    symlinkSync(join(root, 'nowhere'), join(dir, 'opencode'));
    assert.equal(onPath('qwen', { PATH: dir }), undefined);
    assert.equal(onPath('opencode', { PATH: dir }), undefined);
  });

  test('finds a package in the npx cache only when its package.json names it', () => {
    const cache = join(root, 'npm-cache');
    assert.equal(inNpxCache('@agentclientprotocol/codex-acp', cache), undefined); // no _npx folder at all
    npxPackage(cache, 'aaa', '@agentclientprotocol/codex-acp', 'something-else');
    assert.equal(inNpxCache('@agentclientprotocol/codex-acp', cache), undefined);
    const real = npxPackage(cache, 'bbb', '@agentclientprotocol/codex-acp');
    assert.equal(inNpxCache('@agentclientprotocol/codex-acp', cache), real);
    assert.deepEqual(detect(byId('codex'), { PATH: '', npm_config_cache: cache }), { state: 'npx', path: real });
    // PATH wins over the cache.
    executable(join(root, 'bin-codex', 'codex-acp'));
    assert.equal(detect(byId('codex'), { PATH: join(root, 'bin-codex'), npm_config_cache: cache }).state, 'path');
  });

  test('attack: a malformed package.json in the npx cache is skipped, not thrown', () => {
    const cache = join(root, 'bad-cache');
    const dir = join(cache, '_npx', 'x', 'node_modules', 'opencode-ai');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"name": ');
    assert.equal(inNpxCache('opencode-ai', cache), undefined);
    assert.equal(detect(byId('opencode'), { PATH: '', npm_config_cache: cache }).state, 'missing');
  });

  test('choices: configured (by name or by program), installed, installable, or manual', () => {
    const present = new Set(['gemini']);
    const choices = agentChoices(
      CATALOGUE,
      (a) => (present.has(a.id) ? { state: 'path', path: `/usr/bin/${a.command}` } : { state: 'missing' }),
      [{ name: 'My Claude', command: '/opt/bin/claude-agent-acp', args: [] }, { name: 'Codex', command: 'npx', args: ['-y', '@agentclientprotocol/codex-acp'] }],
    );
    const action = Object.fromEntries(choices.map((c) => [c.agent.id, c.action]));
    assert.deepEqual(action, { gemini: 'add', claude: 'configured', codex: 'configured', qwen: 'install', opencode: 'install', goose: 'manual' });
    const claude = choices.find((c) => c.agent.id === 'claude');
    assert.equal(claude?.action === 'configured' && claude.as, 'My Claude');
  });

  test('property: every catalogue agent gets exactly one choice, and "configured" only when an entry runs it or has its name', () => {
    const entry = fc.record({
      name: fc.oneof(fc.constantFrom(...CATALOGUE.map((a) => a.name)), fc.string({ maxLength: 12 })),
      command: fc.oneof(fc.constantFrom(...CATALOGUE.map((a) => a.command), 'npx', 'node'), fc.string({ maxLength: 12 })),
      args: fc.array(fc.oneof(fc.constantFrom(...CATALOGUE.flatMap((a) => (a.npm ? [a.npm] : []))), fc.string({ maxLength: 8 })), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), fc.subarray(CATALOGUE.map((a) => a.id)), (configured, installed) => {
        const choices = agentChoices(CATALOGUE, (a) => (installed.includes(a.id) ? { state: 'path', path: '/x' } : { state: 'missing' }), configured);
        assert.equal(choices.length, CATALOGUE.length);
        for (const c of choices) {
          // Reference model: the same rule, stated plainly.
          const model = configured.some((e) => e.name === c.agent.name || e.command === c.agent.command || (e.command === 'npx' && !!c.agent.npm && e.args.includes(c.agent.npm)));
          assert.equal(c.action === 'configured', model);
          if (!model) assert.equal(c.action, installed.includes(c.agent.id) ? 'add' : c.agent.npm ? 'install' : 'manual');
        }
      }),
    );
  });

  test('attack: a hostile configured name shown in the quick pick cannot carry icons or newlines', () => {
    const label = forIconLabel('$(alert) Claude\nCode\u202E', 60);
    assert.doesNotMatch(label, /(^|[^\\])\$\(/, 'icon syntax shown literally');
    assert.ok(!label.includes('\n') && !label.includes('\u202E'));
  });
});
