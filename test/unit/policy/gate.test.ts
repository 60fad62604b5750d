import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { refuseClientWidening, refuseSessionMcpServers } from '../../../agent/policy/clientMeta';
import { PolicyGate, argvMatches, domainMatches, type PolicyRequest } from '../../../agent/policy/gate';
import { EMPTY_POLICY, loadPolicy, parsePolicy, policyChangedSince, type LoadedPolicy } from '../../../agent/policy/load';
import { policySchemas } from '../../../agent/policy/schema';
import type { PermissionGate } from '../../../agent/core/gate';
import type { ToolEffect } from '../../../agent/tools/tool';

const root = '/w/proj';

function policy(json: unknown): LoadedPolicy {
  return parsePolicy(JSON.stringify(json), '/w/proj/.accord/policy.json');
}

function gate(loaded: LoadedPolicy, extra: { sandboxed?: boolean; alwaysApprove?: boolean } = {}) {
  return new PolicyGate({ loaded, root, sandboxed: extra.sandboxed ?? true, alwaysApprove: extra.alwaysApprove ?? false });
}

function command(argv: string[], envChanges: Record<string, string> = {}, cwd = root): PolicyRequest {
  const effect: ToolEffect = { type: 'command', command: { argv, cwd, envChanges, timeoutMs: 1000 } };
  return { tool: 'run_command', kind: 'execute', effect };
}

function edit(...paths: string[]): PolicyRequest {
  return { tool: 'edit_file', kind: 'edit', effect: { type: 'files', changes: paths.map((p) => ({ path: path.join(root, p), oldText: 'a', newText: 'b' })) } };
}

const allowlist = policy({
  version: 1,
  rules: [
    { decision: 'allow', commands: [['git', 'status', '**'], ['git', 'log', '**'], ['git', 'fetch', '**'], ['echo', '**'], ['ls', '**'], ['npm', 'test'], ['npm', 'test', '**']] },
    { decision: 'allow', kind: 'edit', paths: ['src/**'] },
  ],
});

describe('policy loading', () => {
  const dirs: string[] = [];
  after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  test('a missing file means no standing permissions, not an error', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'accord-policy-'));
    dirs.push(dir);
    const loaded = await loadPolicy(dir);
    assert.equal(loaded.status, 'missing');
    assert.equal(gate(loaded).explain(command(['ls'])).decision, 'ask');
  });

  test('an invalid file names the field and every call asks, even ones a rule would allow', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'accord-policy-'));
    dirs.push(dir);
    await mkdir(path.join(dir, '.accord'));
    await writeFile(path.join(dir, '.accord/policy.json'), JSON.stringify({ version: 1, rules: [{ decision: 'allow', commands: [['ls']] }, { decision: 'alow', tool: '*' }] }));
    const loaded = await loadPolicy(dir);
    assert.equal(loaded.status, 'invalid');
    if (loaded.status !== 'invalid') return;
    assert.match(loaded.error, /rules\[1\]\.decision/);
    assert.match(loaded.error, /ask before every action/);
    const g = gate(loaded);
    assert.equal(g.explain(command(['ls'])).decision, 'ask');
    assert.equal(g.explain({ tool: 'read_file', kind: 'read', effect: { type: 'none' } }).decision, 'ask');
  });

  test('a change to the policy file during the session is detected', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'accord-policy-'));
    dirs.push(dir);
    await mkdir(path.join(dir, '.accord'));
    await writeFile(path.join(dir, '.accord/policy.json'), '{"version":1}');
    const loaded = await loadPolicy(dir);
    assert.equal(await policyChangedSince(loaded), undefined);
    await writeFile(path.join(dir, '.accord/policy.json'), '{"version":1,"rules":[{"decision":"allow","tool":"*"}]}');
    assert.match((await policyChangedSince(loaded)) ?? '', /changed while the session was running/);
    const missing = await loadPolicy(path.join(dir, 'nowhere'));
    assert.equal(await policyChangedSince(missing), undefined);
  });

  test('broken JSON, unknown fields and a bad domain are each a clear error', () => {
    const broken = parsePolicy('{ "version": 1,', 'p.json');
    assert.equal(broken.status, 'invalid');
    assert.match(broken.status === 'invalid' ? broken.error : '', /not valid JSON/);
    const unknown = policy({ version: 1, rules: [{ decision: 'allow', command: ['ls'] }] });
    assert.match(unknown.status === 'invalid' ? unknown.error : '', /rules\[0\]/);
    const domain = policy({ version: 1, network: { allowedDomains: ['https://evil.test/x'] } });
    assert.match(domain.status === 'invalid' ? domain.error : '', /network\.allowedDomains\[0\]/);
    const star = policy({ version: 1, rules: [{ decision: 'allow', commands: [['**']] }] });
    assert.equal(star.status, 'invalid');
    const mcp = policy({ version: 1, mcpServers: [{ name: 'docs', command: ['node', 'server.js'] }] });
    assert.equal(mcp.status, 'ok');
  });
});

describe('policy decisions', () => {
  test('deny comes before allow, whatever the order in the file', () => {
    const loaded = policy({ version: 1, rules: [{ decision: 'allow', tool: '*' }, { decision: 'deny', commands: [['curl', '**']] }] });
    assert.equal(gate(loaded).explain(command(['curl', 'http://x'])).decision, 'deny');
    assert.equal(gate(loaded).explain(command(['ls'])).decision, 'allow');
  });

  test('ask comes before allow: ask git push + allow git *', () => {
    const loaded = policy({ version: 1, rules: [{ decision: 'allow', commands: [['git', '**']] }, { decision: 'ask', commands: [['git', 'push', '**']] }] });
    assert.equal(gate(loaded).explain(command(['git', 'push', 'origin'])).decision, 'ask');
    assert.equal(gate(loaded).explain(command(['git', 'diff'])).decision, 'allow');
  });

  test('first match wins within a decision and the reason names the rule', () => {
    const loaded = policy({ version: 1, rules: [{ decision: 'deny', kind: 'execute', reason: 'no shell here' }, { decision: 'deny', commands: [['ls']], reason: 'second' }] });
    assert.match(gate(loaded).explain(command(['ls'])).reason, /rule 1 \(no shell here\)/);
  });

  test('the policy gate plugs into the core as its PermissionGate', () => {
    const asCore: PermissionGate = gate(allowlist);
    assert.equal(typeof asCore.decide, 'function');
  });

  test('the empty policy, written out in load.ts, is what the schema makes of { "version": 1 }', () => {
    assert.deepEqual(EMPTY_POLICY, policySchemas().PolicySchema.parse({ version: 1 }));
  });

  test('unmatched calls ask; reads and plans run', () => {
    const g = gate({ status: 'missing', policy: EMPTY_POLICY, file: 'x' });
    assert.equal(g.explain(command(['make'])).decision, 'ask');
    assert.equal(g.explain(edit('a.ts')).decision, 'ask');
    assert.equal(g.explain({ tool: 'read_file', kind: 'read', effect: { type: 'none' } }).decision, 'allow');
    assert.equal(g.explain({ tool: 'plan', kind: 'think', effect: { type: 'plan' } }).decision, 'allow');
    assert.equal(g.decide({ name: 'grep', kind: 'search' }, {}, { type: 'none' }), 'allow');
  });

  test('an allow rule with paths needs every touched path to match; deny needs one', () => {
    assert.equal(gate(allowlist).explain(edit('src/a.ts', 'src/b/c.ts')).decision, 'allow');
    assert.equal(gate(allowlist).explain(edit('src/a.ts', 'package.json')).decision, 'ask');
    const denyLock = policy({ version: 1, rules: [{ decision: 'allow', kind: 'edit' }, { decision: 'deny', paths: ['**/*.lock'] }] });
    assert.equal(gate(denyLock).explain(edit('src/a.ts', 'yarn.lock')).decision, 'deny');
  });

  test('protected paths are denied whatever a rule says, in any spelling', () => {
    const allowAll = policy({ version: 1, rules: [{ decision: 'allow', tool: '*' }, { decision: 'allow', paths: ['**'] }] });
    for (const p of ['.accord/policy.json', '.git/hooks/pre-commit', '.git/config', '.vscode/settings.json', '.VSCode/tasks.json', '.GIT/config', 'sub/.bashrc', '.envrc', '.zshrc']) {
      const decided = gate(allowAll, { alwaysApprove: true }).explain(edit(p));
      assert.equal(decided.decision, 'deny', p);
    }
    const move: PolicyRequest = { tool: 'move', kind: 'move', effect: { type: 'files', changes: [{ path: `${root}/src/a`, movedTo: `${root}/.accord/policy.json`, oldText: null, newText: null }] } };
    assert.equal(gate(allowAll).explain(move).decision, 'deny');
  });

  test('deny rules with paths also cover reads, through the tool\'s own describe()', () => {
    const loaded = policy({ version: 1, rules: [{ decision: 'deny', paths: ['.env', 'secrets/**'], reason: 'secrets' }] });
    const readFile = { name: 'read_file', kind: 'read' as const, describe: (input: { path: string }) => ({ locations: [{ path: path.join(root, input.path) }] }) };
    assert.equal(gate(loaded).decide(readFile, { path: '.env' }, { type: 'none' }), 'deny');
    assert.equal(gate(loaded).decide(readFile, { path: 'secrets/k.pem' }, { type: 'none' }), 'deny');
    assert.equal(gate(loaded).decide(readFile, { path: 'src/a.ts' }, { type: 'none' }), 'allow');
    assert.equal(gate(loaded).decide(readFile, { path: '../other/x' }, { type: 'none' }), 'deny');
  });

  test('paths and working directories outside the workspace are denied', () => {
    const allowAll = policy({ version: 1, rules: [{ decision: 'allow', tool: '*' }] });
    assert.equal(gate(allowAll).explain(edit('../proj-evil/x')).decision, 'deny');
    assert.equal(gate(allowAll).explain({ ...edit('x'), effect: { type: 'files', changes: [{ path: '/etc/passwd', oldText: '', newText: 'x' }] } }).decision, 'deny');
    assert.equal(gate(allowAll).explain(command(['ls'], {}, '/w')).decision, 'deny');
  });

  test('--always-approve turns ask into allow but never overrides deny', () => {
    const loaded = policy({ version: 1, rules: [{ decision: 'deny', commands: [['rm', '**']] }] });
    const g = gate(loaded, { alwaysApprove: true });
    assert.equal(g.explain(command(['make'])).decision, 'allow');
    assert.match(g.explain(command(['make'])).reason, /--always-approve/);
    assert.equal(g.explain(command(['rm', '-rf', '/'])).decision, 'deny');
  });

  test('without the sandbox an allow rule still asks for commands', () => {
    assert.equal(gate(allowlist, { sandboxed: false }).explain(command(['ls'])).decision, 'ask');
    assert.equal(gate(allowlist, { sandboxed: true }).explain(command(['ls'])).decision, 'allow');
  });
});

describe('allowlist bypass attempts (git status, git log, git fetch, echo, ls, npm test allowed)', () => {
  const cases: Array<[string, string[], Record<string, string>?]> = [
    ['git -c core.pager', ['git', '-c', 'core.pager=sh -c id', 'log']],
    ['git log -c core.pager', ['git', 'log', '-c', 'core.pager=sh']],
    ['git -c alias', ['git', '-c', 'alias.x=!sh', 'x']],
    ['git --upload-pack', ['git', '--upload-pack=touch /tmp/pwn', 'fetch']],
    ['git fetch --upload-pack', ['git', 'fetch', '--upload-pack=touch /tmp/pwn', 'origin']],
    ['git fetch -u', ['git', 'fetch', '-utouch', 'origin']],
    ['git log --output', ['git', 'log', '--output=/home/u/.bashrc']],
    ['git status --config-env', ['git', 'status', '--config-env=core.pager=X']],
    ['npm test -- && rm -rf', ['npm', 'test', '--', '&&', 'rm', '-rf', '/']],
    ['npm test -- --require', ['npm', 'test', '--', '--require', './evil.js']],
    ['echo $(curl)', ['echo', '$(curl evil)']],
    ['echo `id`', ['echo', '`id`']],
    ['ls ; curl', ['ls', ';', 'curl', 'evil']],
    ['GIT_SSH_COMMAND env', ['git', 'fetch', 'origin'], { GIT_SSH_COMMAND: 'sh -c id' }],
    ['LD_PRELOAD env', ['ls'], { LD_PRELOAD: '/tmp/evil.so' }],
    ['NODE_OPTIONS env', ['npm', 'test'], { NODE_OPTIONS: '--require /tmp/x.js' }],
    ['env wrapper', ['env', 'GIT_SSH_COMMAND=x', 'git', 'status']],
    ['argv env assignment', ['ls', 'LD_PRELOAD=/tmp/x.so']],
    ['sh -c', ['sh', '-c', 'git status; curl evil']],
    ['newline in argument', ['echo', 'a\nrm -rf x']],
  ];
  for (const [name, argv, env] of cases) {
    test(`${name} is not auto-allowed`, () => {
      const decided = gate(allowlist).explain(command(argv, env ?? {}));
      assert.notEqual(decided.decision, 'allow', `${argv.join(' ')} → ${decided.reason}`);
      assert.ok(decided.reason.length > 10);
    });
  }

  test('the plain allowlisted commands are allowed', () => {
    for (const argv of [['git', 'status'], ['git', 'log', '--oneline'], ['npm', 'test'], ['echo', 'hi'], ['ls', '-la']]) {
      assert.equal(gate(allowlist).explain(command(argv)).decision, 'allow', argv.join(' '));
    }
  });
});

describe('matchers', () => {
  test('argv patterns are positional and anchored', () => {
    assert.ok(argvMatches(['git', 'status'], ['git', 'status']));
    assert.ok(!argvMatches(['git', 'status'], ['git', 'status', '-s']));
    assert.ok(argvMatches(['git', 'status', '**'], ['git', 'status']));
    assert.ok(argvMatches(['npm', 'run', 'test:*'], ['npm', 'run', 'test:unit']));
    assert.ok(!argvMatches(['git', 'log', '**'], ['git', '-c', 'x', 'log']));
    assert.ok(!argvMatches(['ls', '*'], ['ls', 'a/b']));
  });

  test('domain patterns', () => {
    assert.ok(domainMatches('registry.npmjs.org', 'registry.npmjs.org'));
    assert.ok(domainMatches('*.example.com', 'a.example.com'));
    assert.ok(!domainMatches('*.example.com', 'example.com'));
    assert.ok(!domainMatches('*.example.com', 'evilexample.com'));
    assert.ok(!domainMatches('example.com:443', 'example.com:80'));
    const loaded = policy({ version: 1, rules: [{ decision: 'allow', kind: 'fetch', domains: ['docs.example.com'] }] });
    const fetch = (d: string[]): PolicyRequest => ({ tool: 'fetch', kind: 'fetch', effect: { type: 'none' }, domains: d });
    assert.equal(gate(loaded).explain(fetch(['docs.example.com'])).decision, 'allow');
    assert.equal(gate(loaded).explain(fetch(['docs.example.com', 'evil.test'])).decision, 'ask');
  });
});

describe('client requests to widen permissions', () => {
  test('yoloMode and friends are refused with a clear message', () => {
    for (const meta of [{ yoloMode: true }, { 'zed.dev': { autoApprove: 'all' } }, { bypassPermissions: 1 }, { always_approve: true }]) {
      assert.match(refuseClientWidening(meta) ?? '', /editor cannot widen what a project allows/);
    }
    assert.equal(refuseClientWidening({ yoloMode: false, other: 1 }), undefined);
    assert.equal(refuseClientWidening(undefined), undefined);
  });

  test('an always-approve request is accepted only when the launch granted --always-approve, and only as true', () => {
    const granted = { alwaysApprove: true };
    for (const meta of [{ yoloMode: true }, { 'zed.dev': { autoApprove: true } }, { always_approve: true }]) assert.equal(refuseClientWidening(meta, granted), undefined);
    // More than ask→allow (no sandbox, no deny rules), or not plainly true: still refused.
    for (const meta of [{ bypassPermissions: true }, { dangerouslySkipPermissions: true }, { yoloMode: 'all' }, { yoloMode: 1 }, { permissionMode: 'bypassPermissions' }, { yoloMode: true, trustAll: true }]) {
      assert.match(refuseClientWidening(meta, granted) ?? '', /accord acp --always-approve/, JSON.stringify(meta));
    }
    assert.match(refuseClientWidening({ yoloMode: true }, {}) ?? '', /For automation, start the agent as `accord acp --always-approve`/);
  });

  test('MCP servers named in session/new are refused with where to declare them', () => {
    assert.match(refuseSessionMcpServers([{ name: 'files' }]) ?? '', /\.accord\/policy\.json.*mcpServers/);
    assert.equal(refuseSessionMcpServers([]), undefined);
  });
});

describe('issue 11 finding 9: no silent gaps in the policy', () => {
  test('refuseClientWidening looks at any depth, in arrays too, and at modes named by value', () => {
    let deep: Record<string, unknown> = { autoApprove: true };
    for (let i = 0; i < 10_000; i += 1) deep = { nested: deep };
    assert.match(refuseClientWidening(deep) ?? '', /"autoApprove"/);
    assert.match(refuseClientWidening({ a: { b: { c: { d: { e: { yolo: 1 } } } } } }) ?? '', /"yolo"/);
    assert.match(refuseClientWidening({ list: [{ x: [{ bypassPermissions: true }] }] }) ?? '', /bypassPermissions/);
    assert.match(refuseClientWidening({ 'vendor.dev': { permissionMode: 'bypassPermissions' } }) ?? '', /permissionMode: bypassPermissions/);
    assert.equal(refuseClientWidening({ a: { b: { c: { d: { e: { yolo: false, mode: 'isolated' } } } } } }), undefined);
  });

  test('a rule naming an unknown or wrong-case tool makes the policy invalid, so everything asks, and says which', () => {
    const wrongCase = policy({ version: 1, rules: [{ decision: 'deny', tool: 'Read_File', paths: ['.env'] }] });
    assert.equal(wrongCase.status, 'invalid');
    if (wrongCase.status === 'invalid') assert.match(wrongCase.error, /rules\[0\]\.tool: "Read_File" names no tool; tool names are case-sensitive: did you mean "read_file"\?/);
    const unknown = policy({ version: 1, rules: [{ decision: 'allow', kind: 'read' }, { decision: 'deny', tool: 'grep' }] });
    assert.equal(unknown.status, 'invalid');
    if (unknown.status === 'invalid') assert.match(unknown.error, /rules\[1\]\.tool: "grep" names no tool; the tools are read_file, list_files, search/);
    const undeclaredServer = policy({ version: 1, rules: [{ decision: 'deny', tool: 'mcp__docs__*' }] });
    assert.equal(undeclaredServer.status, 'invalid');
    if (undeclaredServer.status === 'invalid') assert.match(undeclaredServer.error, /server must be declared in "mcpServers" \(declared: none\)/);
    assert.equal(policy({ version: 1, rules: [{ decision: 'deny', tool: 'mcp:docs:search' }] }).status, 'invalid');
    const g = gate(wrongCase);
    assert.equal(g.explain({ tool: 'read_file', kind: 'read', effect: { type: 'none' } }).decision, 'ask');
    const unattended = gate(wrongCase, { alwaysApprove: true });
    assert.equal(unattended.explain(command(['rm', '-rf', 'x'])).decision, 'ask', '--always-approve cannot wave through what a broken policy may deny');
    assert.match(unattended.explain(command(['ls'])).reason, /--always-approve does not apply while the policy is invalid/);
    assert.match(g.explain({ tool: 'read_file', kind: 'read', effect: { type: 'none' } }).reason, /Read_File/);
  });

  test('known tools, globs over them and declared MCP servers are valid', () => {
    const ok = policy({
      version: 1,
      rules: [
        { decision: 'allow', tool: '*' },
        { decision: 'allow', tool: 'read_*' },
        { decision: 'allow', tool: 'mcp__docs__*' },
        { decision: 'deny', tool: 'mcp__docs__delete' },
        { decision: 'ask', tool: 'mcp__*' },
        { decision: 'ask', tool: '{edit_file,write_file}' },
      ],
      mcpServers: [{ name: 'docs', command: ['node', 'x.js'] }],
    });
    assert.equal(ok.status, 'ok', JSON.stringify(ok));
  });

  test('unknown fields anywhere are invalid', () => {
    for (const json of [{ version: 1, rulez: [] }, { version: 1, rules: [{ decision: 'deny', path: ['x'] }] }, { version: 1, network: { allowed: [] } }, { version: 1, environment: { passs: [] } }]) {
      assert.equal(policy(json).status, 'invalid', JSON.stringify(json));
    }
  });

  test('.git, .env and denied paths spelled with zero-width or ignorable code points, or folded case, are caught', () => {
    const allowAll = policy({ version: 1, rules: [{ decision: 'allow', tool: '*' }, { decision: 'allow', paths: ['**'] }, { decision: 'deny', paths: ['secrets/**', '.env'] }] });
    const g = gate(allowAll, { alwaysApprove: true });
    for (const p of ['.g\u200cit/hooks/pre-commit', '.gi\u200dt/config', '\u200b.git/HEAD', '.G\u200cIT/config', '.git\ufe0f/index', '.accord\u200d/policy.json', '.vs\u00adcode/tasks.json', 'sub/.\u200bbashrc', '.git./config', '.git /config']) {
      const decided = g.explain(edit(p));
      assert.equal(decided.decision, 'deny', `${JSON.stringify(p)} → ${decided.reason}`);
    }
    for (const p of ['secr\u200bets/key.pem', 'Secrets/key.pem', '.e\u200cnv', '.ENV']) {
      assert.equal(g.explain(edit(p)).decision, 'deny', JSON.stringify(p));
      const readFile = { name: 'read_file', kind: 'read' as const, describe: (input: { path: string }) => ({ locations: [{ path: path.join(root, input.path) }] }) };
      assert.equal(g.decide(readFile, { path: p }, { type: 'none' }), 'deny', `read ${JSON.stringify(p)}`);
    }
    assert.equal(g.explain(edit('src/a.ts')).decision, 'allow');
  });
});

describe('issue 11 finding 5: what listings and searches leave out', () => {
  test('deny and ask path rules hide files from list_files and search; rules about reading or searching count for both', () => {
    const loaded = policy({
      version: 1,
      rules: [
        { decision: 'deny', paths: ['.env', 'secrets/**'] },
        { decision: 'ask', kind: 'read', paths: ['private/**'] },
        { decision: 'deny', tool: 'read_file', paths: ['only-read/**'] },
        { decision: 'deny', kind: 'edit', paths: ['generated/**'] },
      ],
    });
    const g = gate(loaded);
    const search = { name: 'search', kind: 'search' as const };
    const list = { name: 'list_files', kind: 'read' as const };
    for (const tool of [search, list]) {
      for (const file of ['.env', 'secrets/a/b.pem', 'private/notes.md', 'sub/../.env', '.E\u200bNV']) assert.ok(g.hides(tool, path.join(root, file)), `${tool.name} ${file}`);
      for (const file of ['src/a.ts', 'generated/x.ts', 'only-read/x']) assert.equal(g.hides(tool, path.join(root, file)), undefined, `${tool.name} ${file}`);
    }
    assert.ok(g.hides({ name: 'read_file', kind: 'read' }, path.join(root, 'only-read/x')));
    assert.ok(g.hides(search, '/elsewhere/x'), 'outside the workspace is never shown');
    assert.equal(g.hides(search, path.join(root, 'private/notes.md'), true), undefined, 'an ask file is shown in a call the person allowed');
    assert.ok(g.hides(search, path.join(root, 'secrets/k'), true), 'a denied file never is');
  });
});
