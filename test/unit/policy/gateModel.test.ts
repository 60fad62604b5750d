// The policy gate against a small reference model (fast-check): for random
// policies (deny/ask/allow rules over paths and commands), random calls
// (edits of several files, commands behind nice/timeout wrappers) and every
// combination of --always-approve and copy-edit review, the gate decides
// what the model says. The model is written from the README's rules, not
// from the gate's code.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { PolicyGate, type PolicyRequest } from '../../../agent/policy/gate';
import { parsePolicy } from '../../../agent/policy/load';

const root = '/w/proj';

type Decision = 'allow' | 'ask' | 'deny';
const globs: Record<string, (p: string) => boolean> = {
  'src/**': (p) => p.startsWith('src/'),
  '*.lock': (p) => /^[^/]+\.lock$/.test(p),
  'secrets/**': (p) => p.startsWith('secrets/'),
  'docs/*.md': (p) => /^docs\/[^/]+\.md$/.test(p),
};
const files = ['src/a.ts', 'src/b/c.ts', 'pkg.lock', 'docs/x.md', 'docs/deep/y.md', 'secrets/k', 'README.md', '.git/config', '.g\u200cit/hooks/x', '.VSCode/tasks.json'];
// Made-up programs: nothing on PATH has these names, so the model needs no filesystem.
const programs = ['prog-a', 'prog-b'];
const subcommands = ['push', 'status', 'x'];

type PathRule = { decision: Decision; paths: string[] };
type CommandRule = { decision: Decision; commands: string[][] };
type Rule = PathRule | CommandRule;

const pathRule = fc.record({ decision: fc.constantFrom<Decision>('allow', 'ask', 'deny'), paths: fc.uniqueArray(fc.constantFrom(...Object.keys(globs)), { minLength: 1, maxLength: 2 }) });
const commandPattern = fc.oneof(
  fc.tuple(fc.constantFrom(...programs), fc.constantFrom(...subcommands), fc.constant('**')).map((t) => [...t]),
  fc.tuple(fc.constantFrom(...programs), fc.constant('**')).map((t) => [...t]),
  fc.tuple(fc.constantFrom('nice', 'timeout'), fc.constant('**')).map((t) => [...t]),
);
const commandRule = fc.record({ decision: fc.constantFrom<Decision>('allow', 'ask', 'deny'), commands: fc.array(commandPattern, { minLength: 1, maxLength: 2 }) });
const policy = fc.array(fc.oneof(pathRule, commandRule), { maxLength: 5 });

type Call = { type: 'edit'; paths: string[] } | { type: 'command'; wrappers: string[][]; inner: string[] } | { type: 'search'; target: string; file: string };
const call: fc.Arbitrary<Call> = fc.oneof(
  fc.record({ type: fc.constant('edit' as const), paths: fc.uniqueArray(fc.constantFrom(...files), { minLength: 1, maxLength: 3 }) }),
  fc.record({
    type: fc.constant('command' as const),
    wrappers: fc.array(fc.constantFrom<string[]>(['nice'], ['nice', '-n', '5'], ['timeout', '5'], ['timeout', '-s', 'KILL', '9']), { maxLength: 2 }),
    inner: fc.tuple(fc.constantFrom(...programs), fc.constantFrom(...subcommands, '--flag')).map((t) => [...t]),
  }),
  fc.record({ type: fc.constant('search' as const), target: fc.constant('.'), file: fc.constantFrom(...files) }),
);

// ---- the reference model -------------------------------------------------

const protectedDirs = new Set(['.git', '.accord', '.vscode']);
function isProtected(p: string): boolean {
  return p.split('/').some((c) => protectedDirs.has(c.replace(/\p{Default_Ignorable_Code_Point}/gu, '').toLowerCase()));
}

/** Each program a command runs, as written from that program on: `nice -n 5 prog-a push` runs nice and `prog-a push`. */
function layers(c: Extract<Call, { type: 'command' }>): string[][] {
  return [...c.wrappers.map((_, i) => [...c.wrappers.slice(i).flat(), ...c.inner]), c.inner];
}

function patternMatches(pattern: string[], argv: string[]): boolean {
  const open = pattern.at(-1) === '**';
  const fixed = open ? pattern.slice(0, -1) : pattern;
  if (open ? argv.length < fixed.length : argv.length !== fixed.length) return false;
  return fixed.every((token, i) => token === argv[i]);
}

function commandRuleCovers(rule: CommandRule, layer: string[]): boolean {
  return rule.commands.some((p) => patternMatches(p, layer));
}

function model(rules: Rule[], c: Call, alwaysApprove: boolean, copyEditsReviewed: boolean): Decision {
  const decided = ((): Decision => {
    if (c.type === 'edit') {
      if (c.paths.some(isProtected)) return 'deny';
      const pathRules = rules.filter((r): r is PathRule => 'paths' in r);
      for (const decision of ['deny', 'ask'] as const) {
        if (pathRules.some((r) => r.decision === decision && c.paths.some((p) => r.paths.some((g) => globs[g]!(p))))) return decision;
      }
      if (pathRules.some((r) => r.decision === 'allow' && c.paths.every((p) => r.paths.some((g) => globs[g]!(p))))) return 'allow';
      return copyEditsReviewed ? 'allow' : 'ask';
    }
    if (c.type === 'search') return 'allow'; // searching the root: the files are hidden one by one instead
    const ls = layers(c);
    const commandRules = rules.filter((r): r is CommandRule => 'commands' in r);
    for (const decision of ['deny', 'ask'] as const) {
      if (commandRules.some((r) => r.decision === decision && ls.some((l) => commandRuleCovers(r, l)))) return decision;
    }
    const allows = commandRules.filter((r) => r.decision === 'allow');
    if (ls.every((l) => allows.some((r) => commandRuleCovers(r, l)))) return 'allow';
    return 'ask';
  })();
  return decided === 'ask' && alwaysApprove ? 'allow' : decided;
}

function hiddenByModel(rules: Rule[], file: string): boolean {
  return rules.some((r) => 'paths' in r && r.decision !== 'allow' && r.paths.some((g) => globs[g]!(file)));
}

// ---- the gate --------------------------------------------------------------

function request(c: Call): PolicyRequest {
  if (c.type === 'edit') return { tool: 'edit_file', kind: 'edit', effect: { type: 'files', changes: c.paths.map((p) => ({ path: path.join(root, p), oldText: 'a', newText: 'b' })) } };
  if (c.type === 'search') return { tool: 'search', kind: 'search', effect: { type: 'none' }, locations: [path.join(root, c.target)] };
  return { tool: 'run_command', kind: 'execute', effect: { type: 'command', command: { argv: [...c.wrappers.flat(), ...c.inner], cwd: root, envChanges: {}, timeoutMs: 1000 } } };
}

test('the gate decides as the reference model for random policies and calls', () => {
  fc.assert(
    fc.property(policy, call, fc.boolean(), fc.boolean(), (rules, c, alwaysApprove, copyEditsReviewed) => {
      const loaded = parsePolicy(JSON.stringify({ version: 1, rules }), 'policy.json');
      assert.equal(loaded.status, 'ok');
      const gate = new PolicyGate({ loaded, root, sandboxed: true, alwaysApprove, copyEditsReviewed });
      const got = gate.explain(request(c));
      assert.equal(got.decision, model(rules, c, alwaysApprove, copyEditsReviewed), `${JSON.stringify(c)} under ${JSON.stringify(rules)}: ${got.reason}`);
      if (c.type === 'search') {
        assert.equal(gate.hides({ name: 'search', kind: 'search' }, path.join(root, c.file)) !== undefined, hiddenByModel(rules, c.file), `hides ${c.file}`);
      }
    }),
    { numRuns: 2000 },
  );
});
