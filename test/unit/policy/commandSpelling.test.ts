// Finding 6 of issue 11: command rules see through spelling. A deny rule on
// `rm` also catches `/bin/rm`, a symlink to rm, and rm behind env, nice,
// timeout, xargs, sudo, command, exec, find -exec and a shell script; git's
// and npm's global options do not hide the subcommand; a shell with -c
// always asks and no allow rule covers it; --always-approve never runs a
// denied command.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { PolicyGate, type PolicyRequest } from '../../../agent/policy/gate';
import { parsePolicy } from '../../../agent/policy/load';
import { viewCommand } from '../../../agent/policy/commandView';

const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'accord-spelling-')));
after(() => rmSync(root, { recursive: true, force: true }));

/** The real file PATH finds for `name` (rm, ls, git are on every machine these tests run on). */
function which(name: string): string {
  const view = viewCommand([name], { cwd: root, pathVariable: process.env.PATH ?? '' });
  const real = view.layers[0]!.programs.find((p) => p.startsWith('/'));
  assert.ok(real, `${name} is on PATH`);
  return real;
}

symlinkSync(which('rm'), path.join(root, 'innocent'));
symlinkSync(which('rm'), path.join(root, 'ls'));

function gate(rules: unknown[], alwaysApprove = false) {
  const loaded = parsePolicy(JSON.stringify({ version: 1, rules }), path.join(root, '.accord/policy.json'));
  assert.equal(loaded.status, 'ok', JSON.stringify(loaded));
  return new PolicyGate({ loaded, root, sandboxed: true, alwaysApprove });
}

function command(argv: string[]): PolicyRequest {
  return { tool: 'run_command', kind: 'execute', effect: { type: 'command', command: { argv, cwd: root, envChanges: {}, timeoutMs: 1000 } } };
}

describe('deny rules see the program a command really runs', () => {
  const denyRm = gate([{ decision: 'deny', commands: [['rm', '**']], reason: 'removing is for people' }, { decision: 'allow', tool: '*' }], true);
  const cases: string[][] = [
    [which('rm'), 'a'],
    ['/bin/../bin/rm', 'a'],
    ['./innocent', 'a'],
    ['env', 'rm', '-rf', 'a'],
    ['env', '-i', 'FOO=1', '--', 'rm', 'a'],
    ['env', '-u', 'HOME', 'rm', 'a'],
    ['env', '-S', 'rm -rf a'],
    ['nice', '-n', '5', 'rm', 'a'],
    ['nice', '-10', 'rm', 'a'],
    ['timeout', '-s', 'KILL', '5', 'rm', 'a'],
    ['timeout', '--kill-after=1', '5', 'rm', 'a'],
    ['xargs', '-0', '-n', '1', 'rm'],
    ['sudo', '-u', 'root', 'rm', 'a'],
    ['sudo', '-E', 'X=1', 'rm', 'a'],
    ['command', 'rm', 'a'],
    ['exec', '-a', 'ls', 'rm', 'a'],
    ['nohup', 'nice', 'timeout', '3', 'env', 'rm', 'a'],
    ['find', '.', '-name', '*.ts', '-exec', 'rm', '{}', ';'],
    ['find', '.', '-execdir', '/bin/rm', '{}', '+'],
    ['npx', '--yes', '--', 'rm', 'a'],
    ['npm', 'exec', '--', 'rm', 'a'],
    ['bash', '-c', 'cd src && rm -rf build'],
    ['sh', '-ec', 'echo hi; /bin/rm a'],
    ['bash', '-lc', 'true || env rm a'],
    ['npx', '-c', 'rm -rf a'],
  ];
  for (const argv of cases) {
    test(`${JSON.stringify(argv)} is denied, even under --always-approve`, () => {
      const decided = denyRm.explain(command(argv));
      assert.equal(decided.decision, 'deny', `${argv.join(' ')} → ${decided.reason}`);
      assert.match(decided.reason, /removing is for people/);
    });
  }

  test('the programs that merely mention rm are not denied', () => {
    for (const argv of [['echo', 'rm'], ['ls', '-la', 'rm'], ['command', '-v', 'rm'], ['git', 'rm', '--cached', 'a']]) {
      assert.notEqual(denyRm.explain(command(argv)).decision, 'deny', argv.join(' '));
    }
  });
});

describe("git's and npm's global options do not hide the subcommand", () => {
  const g = gate([
    { decision: 'deny', commands: [['git', 'push', '**'], ['npm', 'publish', '**'], ['kubectl', 'delete', '**']], reason: 'people publish' },
    { decision: 'allow', commands: [['git', 'status', '**'], ['git', 'log', '**']] },
  ]);
  for (const argv of [
    ['git', '--no-pager', 'push'],
    ['git', '--no-pager', '-C', 'x', 'push', 'origin'],
    ['git', '-C', 'x', '--git-dir', '.git', 'push'],
    ['git', '-c', 'push.default=current', 'push'],
    ['git', '-P', '--bare', 'push'],
    [which('git'), 'push'],
    ['npm', '--prefix', 'x', 'publish'],
    ['npm', '--silent', 'publish'],
    ['npm', '-w', 'pkg', 'publish', '--access', 'public'],
    ['npm', '--registry=https://r.example', 'publish'],
    ['kubectl', '-n', 'prod', 'delete', 'pod', 'x'],
    ['kubectl', '--context', 'prod', 'delete', 'pod', 'x'],
  ]) {
    test(`${argv.join(' ')} is denied`, () => assert.equal(g.explain(command(argv)).decision, 'deny'));
  }

  test("an allow rule covers git's global options when the subcommand is allowed", () => {
    assert.equal(g.explain(command(['git', '--no-pager', 'status'])).decision, 'allow');
    assert.equal(g.explain(command(['git', '--no-pager', 'log', '--oneline'])).decision, 'allow');
    assert.equal(g.explain(command(['git', '--no-pager', 'commit'])).decision, 'ask');
  });
});

describe('a shell with -c always asks and is never matched by an allow', () => {
  test('allow rules naming the shell, or everything, still ask', () => {
    for (const rules of [[{ decision: 'allow', commands: [['bash', '**'], ['sh', '**']] }], [{ decision: 'allow', tool: '*' }], [{ decision: 'allow', kind: 'execute' }]]) {
      const g = gate(rules);
      for (const argv of [['bash', '-c', 'echo hi'], ['sh', '-c', 'ls'], ['bash', '-xc', 'ls'], ['env', 'bash', '-c', 'ls'], ['node', '-e', 'process.exit()'], ['python3', '-c', 'print(1)'], ['awk', 'BEGIN{system("id")}']]) {
        const decided = g.explain(command(argv));
        assert.equal(decided.decision, 'ask', `${JSON.stringify(rules)}: ${argv.join(' ')} → ${decided.reason}`);
      }
    }
  });

  test('--always-approve does not run a script the policy cannot see into when some command is denied', () => {
    const g = gate([{ decision: 'deny', commands: [['rm', '**']] }], true);
    for (const argv of [['bash', '-c', '$(printf rm) a'], ['sh', '-c', 'eval "$X"'], ['python3', '-c', 'import os; os.remove("a")']]) {
      assert.equal(g.explain(command(argv)).decision, 'ask', argv.join(' '));
    }
    assert.equal(g.explain(command(['make'])).decision, 'allow', 'ordinary asks still become allow');
    const noDenials = gate([], true);
    assert.equal(noDenials.explain(command(['bash', '-c', 'make all'])).decision, 'allow', 'with nothing denied there is nothing a script could hide');
  });
});

describe('allow rules cover the program PATH finds, not a look-alike', () => {
  const g = gate([{ decision: 'allow', commands: [['ls', '**'], ['nice', '**']] }]);

  test('the PATH program is allowed under its name and its real path', () => {
    assert.equal(g.explain(command(['ls', '-la'])).decision, 'allow');
    assert.equal(g.explain(command([which('ls'), '-la'])).decision, 'allow');
  });

  test('a workspace file named like an allowed program is not covered', () => {
    assert.notEqual(g.explain(command(['./ls', '-la'])).decision, 'allow');
    assert.notEqual(g.explain(command([path.join(root, 'ls')])).decision, 'allow');
  });

  test('a wrapper is allowed only when what it runs is allowed too', () => {
    assert.equal(g.explain(command(['nice', 'ls'])).decision, 'allow');
    assert.equal(g.explain(command(['nice', 'make'])).decision, 'ask');
  });
});

describe('path rules also see the files a command names', () => {
  const g = gate([{ decision: 'deny', paths: ['.env', 'secrets/**'], reason: 'secrets stay secret' }, { decision: 'allow', paths: ['**'] }, { decision: 'allow', commands: [['cat', '**'], ['cp', '**'], ['grep', '**']] }]);
  const at = (argv: string[], cwd = root): PolicyRequest => ({ tool: 'run_command', kind: 'execute', effect: { type: 'command', command: { argv, cwd, envChanges: {}, timeoutMs: 1000 } } });

  test('cat .env, cp secrets/..., --file=.env, a script naming it, another spelling: denied', () => {
    for (const argv of [['cat', '.env'], ['cp', 'secrets/k', '/tmp/x'], ['grep', '--file=.env', 'x'], ['bash', '-c', 'cat .env | head'], ['cat', 'sub/../.env'], ['cat', '.E\u200bNV'], ['cat', 'secrets']]) {
      const decided = g.explain(at(argv));
      assert.equal(decided.decision, 'deny', `${argv.join(' ')} → ${decided.reason}`);
    }
    assert.equal(g.explain(at(['cat', '../.env'], path.join(root, 'sub'))).decision, 'deny', 'relative to the working directory');
  });

  test('other files are unaffected, and a path allow never allows a command', () => {
    assert.equal(g.explain(at(['cat', 'src/a.ts'])).decision, 'allow');
    const pathsOnly = gate([{ decision: 'allow', paths: ['**'] }]);
    assert.equal(pathsOnly.explain(at(['cat', 'src/a.ts'])).decision, 'ask');
  });
});
