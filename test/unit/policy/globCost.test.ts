// Policy globs are compiled to backtracking regular expressions (picomatch),
// and the agent chooses what they are matched against: a path, an argument of
// any length. One check runs on the event loop of the daemon that serves every
// session, so a pattern whose cost grows with the power of the subject's length
// (`*.*.*` against 4,096 dots took 8 s; `*-*-*-*` against 1,024 dashes 36 s;
// `**/*(*a)*b` against 30 letters 24 s) would stall them all. Such patterns are
// refused on load, and a subject too long to match cheaply never gets an allow
// and always gets a deny or an ask (fail closed). Tests run with the default
// test timeout as their only clock: a regression hangs rather than slows.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { PolicyGate, type PolicyRequest } from '../../../agent/policy/gate';
import { parsePolicy, type LoadedPolicy } from '../../../agent/policy/load';
import type { ToolEffect } from '../../../agent/tools/tool';

const root = '/w/proj';
const policy = (json: unknown): LoadedPolicy => parsePolicy(JSON.stringify(json), '/w/proj/.accord/policy.json');
const gate = (loaded: LoadedPolicy) => new PolicyGate({ loaded, root, sandboxed: true, alwaysApprove: false });

function command(argv: string[]): PolicyRequest {
  const effect: ToolEffect = { type: 'command', command: { argv, cwd: root, envChanges: {}, timeoutMs: 1000 } };
  return { tool: 'run_command', kind: 'execute', effect };
}

function edit(...paths: string[]): PolicyRequest {
  return { tool: 'edit_file', kind: 'edit', effect: { type: 'files', changes: paths.map((p) => ({ path: path.join(root, p), oldText: 'a', newText: 'b' })) } };
}

describe('attack: policy globs whose cost explodes with the subject', () => {
  test('extended globs (exponential backtracking) are refused on load with the reason', () => {
    for (const rule of [
      { decision: 'deny', paths: ['**/*(*a)*b'] },
      { decision: 'allow', paths: ['src/+(a|aa)'] },
      { decision: 'ask', paths: ['!(*.md)'] },
      { decision: 'allow', commands: [['npm', '@(run|test)']] },
      { decision: 'deny', tool: 'mcp__x__?(a)' },
    ]) {
      const loaded = policy({ version: 1, rules: [rule], mcpServers: [{ name: 'x', command: ['x'] }] });
      assert.equal(loaded.status, 'invalid', JSON.stringify(rule));
      if (loaded.status === 'invalid') assert.match(loaded.error, /extended glob/, JSON.stringify(rule));
    }
  });

  test('more than three "*" in one path segment or one argument are refused on load', () => {
    for (const rule of [
      { decision: 'deny', paths: ['logs/*-*-*-*.txt'] },
      { decision: 'allow', commands: [['docker', 'pull', 'registry/*:*-*-*']] },
    ]) {
      const loaded = policy({ version: 1, rules: [rule] });
      assert.equal(loaded.status, 'invalid', JSON.stringify(rule));
      if (loaded.status === 'invalid') assert.match(loaded.error, /at most 3 "\*"/, JSON.stringify(rule));
    }
  });

  test('a 64 KiB argument against a three-star argument pattern: no allow, a deny still denies, at once', () => {
    const dots = '.'.repeat(64 * 1024);
    const allow = gate(policy({ version: 1, rules: [{ decision: 'allow', commands: [['npm', 'install', '*.*.*']] }] }));
    assert.equal(allow.explain(command(['npm', 'install', dots])).decision, 'ask');
    const deny = gate(policy({ version: 1, rules: [{ decision: 'deny', commands: [['npm', 'install', '*.*.*']] }] }));
    assert.equal(deny.explain(command(['npm', 'install', dots])).decision, 'deny');
  });

  test('a path with a 64 KiB name against a three-star path glob: no allow, a deny still denies', () => {
    const dashes = `logs/${'-'.repeat(64 * 1024)}.txt`;
    const allow = gate(policy({ version: 1, rules: [{ decision: 'allow', kind: 'edit', paths: ['logs/*-*-*.txt'] }] }));
    assert.equal(allow.explain(edit(dashes)).decision, 'ask');
    const deny = gate(policy({ version: 1, rules: [{ decision: 'deny', paths: ['logs/*-*-*.txt'] }] }));
    assert.equal(deny.explain(edit(dashes)).decision, 'deny');
  });

  test('happy: ordinary globs still load and match as before, long subjects included where no wildcard is involved', () => {
    const loaded = policy({
      version: 1,
      rules: [
        { decision: 'allow', kind: 'edit', paths: ['src/**', 'logs/*-*-*.txt'] },
        { decision: 'allow', commands: [['npm', 'install', '*@*.*'], ['git', 'commit', '-m', '**'], ['echo', 'literal']] },
        { decision: 'deny', paths: ['**/.env*'] },
      ],
    });
    assert.equal(loaded.status, 'ok');
    const g = gate(loaded);
    assert.equal(g.explain(edit('src/a/b.ts')).decision, 'allow');
    assert.equal(g.explain(edit('logs/2024-01-02.txt')).decision, 'allow');
    assert.equal(g.explain(command(['npm', 'install', 'left-pad@1.3'])).decision, 'allow');
    assert.equal(g.explain(command(['git', 'commit', '-m', 'x'.repeat(100_000)])).decision, 'allow');
    assert.equal(g.explain(edit('config/.env.local')).decision, 'deny');
  });
});

describe('attack: path rules that look broader than they match', () => {
  const read = (p: string): PolicyRequest => ({ tool: 'read_file', kind: 'read', effect: { type: 'none' }, locations: [path.join(root, p)] });

  test('a deny naming a folder (gitignore style: "secrets", "secrets/", "secrets/**/") covers everything in it', () => {
    for (const glob of ['secrets', 'secrets/', 'secrets/**/', 'secrets//']) {
      const g = gate(policy({ version: 1, rules: [{ decision: 'deny', paths: [glob] }] }));
      for (const p of ['secrets', 'secrets/key.txt', 'secrets/a/b.txt']) assert.equal(g.explain(read(p)).decision, 'deny', `${glob} vs ${p}`);
      assert.equal(g.explain(read('secretsx/key.txt')).decision, 'allow', `${glob} must not cover secretsx/`);
      const ask = gate(policy({ version: 1, rules: [{ decision: 'ask', paths: [glob] }] }));
      assert.equal(ask.explain(read('secrets/a/b.txt')).decision, 'ask', `ask ${glob}`);
    }
  });

  test('a deny written in NFD covers the NFC spelling (macOS treats both as one name), and one NTFS stream of a file is that file', () => {
    const nfd = gate(policy({ version: 1, rules: [{ decision: 'deny', paths: ['cafe\u0301.txt'] }] }));
    assert.equal(nfd.explain(read('caf\u00e9.txt')).decision, 'deny');
    assert.equal(nfd.explain(read('cafe\u0301.txt')).decision, 'deny');
    const stream = gate(policy({ version: 1, rules: [{ decision: 'deny', paths: ['secret.txt'] }] }));
    assert.equal(stream.explain(read('secret.txt::$DATA')).decision, 'deny');
    assert.equal(stream.explain(read('secret.txt:hidden')).decision, 'deny');
  });

  test('a path glob written from the root ("/secrets/**") would match nothing: the file is invalid and says how to write it', () => {
    const loaded = policy({ version: 1, rules: [{ decision: 'deny', paths: ['/secrets/**'] }] });
    assert.equal(loaded.status, 'invalid');
    if (loaded.status === 'invalid') assert.match(loaded.error, /relative to the workspace root/);
  });

  test('happy: an allow stays exactly as wide as written (a folder name allows the folder, not its files)', () => {
    const g = gate(policy({ version: 1, rules: [{ decision: 'allow', kind: 'edit', paths: ['src'] }] }));
    assert.equal(g.explain(edit('src/a.ts')).decision, 'ask');
  });
});
