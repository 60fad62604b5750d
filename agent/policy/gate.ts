// The policy gate: decides allow / ask / deny for one tool call from its whole
// effect. Order: built-in protections, then the project's deny rules, then
// ask, then allow (first match wins within each), then the built-in default.
// Anything unclear fails closed (ask, or deny for protected paths).
import path from 'node:path';
import picomatch from 'picomatch';
import type { ToolEffect } from '../tools/tool';
import { protectedPathReason } from '../workspace/containment';
import { commandRisk } from './commandRisk';
import type { LoadedPolicy } from './load';
import type { Rule, ToolKindName } from './schema';

export type PolicyDecisionKind = 'allow' | 'ask' | 'deny';

export interface PolicyRequest {
  tool: string;
  kind: ToolKindName;
  effect: ToolEffect;
  /** Network destinations of the call (`host` or `host:port`), for fetch-like tools. */
  domains?: string[];
  /** Absolute paths the call reads or searches (from the tool's `describe`), for calls whose effect names no files. */
  locations?: string[];
}

/** What the gate needs of a tool: its name, kind and, when it has one, `describe` for the paths it touches. */
export interface GatedTool {
  name: string;
  kind: ToolKindName;
  describe?(input: any, ctx: { root: string }): { locations: Array<{ path: string }> };
}

export interface PolicyDecision {
  decision: PolicyDecisionKind;
  /** For the person and the model: which rule or built-in decided, and why. */
  reason: string;
}

export interface PolicyGateOptions {
  loaded: LoadedPolicy;
  /** The session workspace root (real path); rule globs are relative to it. */
  root: string;
  /** False when commands run without the OS sandbox: then every command asks. */
  sandboxed: boolean;
  /** `accord acp --always-approve`, chosen by the person launching: ask becomes allow; deny stays. */
  alwaysApprove: boolean;
}

interface Facts {
  paths: string[] | undefined;
  argv: string[] | undefined;
  envChanges: Record<string, string>;
}

const freeKinds = new Set<ToolKindName>(['read', 'search', 'think']);

function relativeInside(root: string, absolute: string): string | undefined {
  const relative = path.relative(root, path.resolve(root, absolute));
  if (relative === '..' || relative.startsWith('..' + path.sep) || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/') || '.';
}

export function domainMatches(pattern: string, destination: string): boolean {
  const [patternHost = '', patternPort] = pattern.toLowerCase().split(':');
  const [host = '', port] = destination.toLowerCase().split(':');
  if (patternPort !== undefined && patternPort !== port) return false;
  if (patternHost.startsWith('*.')) return host.endsWith(patternHost.slice(1)) && host.length > patternHost.length - 1;
  return host === patternHost;
}

/** `pattern` against argv: one glob per argument, a trailing `**` for "any further arguments". */
export function argvMatches(pattern: readonly string[], argv: readonly string[]): boolean {
  const open = pattern[pattern.length - 1] === '**';
  const fixed = open ? pattern.slice(0, -1) : pattern;
  if (open ? argv.length < fixed.length : argv.length !== fixed.length) return false;
  return fixed.every((token, i) => picomatch.isMatch(argv[i]!, token, { dot: true, nobrace: true, noextglob: true }));
}

/** Whether `rule` matches. Deny/ask rules match when ANY touched path/domain matches; allow rules need ALL. */
function ruleMatches(rule: Rule, request: PolicyRequest, facts: Facts): boolean {
  const every = rule.decision === 'allow';
  const test = <T>(items: T[], predicate: (item: T) => boolean) => (every ? items.every(predicate) : items.some(predicate));
  if (rule.tool !== undefined && !picomatch.isMatch(request.tool, rule.tool)) return false;
  if (rule.kind !== undefined && rule.kind !== request.kind) return false;
  if (rule.paths !== undefined) {
    if (!facts.paths || facts.paths.length === 0) return false;
    const globs = rule.paths;
    if (!test(facts.paths, (p) => picomatch.isMatch(p, globs, { dot: true }))) return false;
  }
  if (rule.commands !== undefined) {
    const argv = facts.argv;
    if (!argv || !rule.commands.some((pattern) => argvMatches(pattern, argv))) return false;
  }
  if (rule.domains !== undefined) {
    const domains = request.domains ?? [];
    if (domains.length === 0 || !test(domains, (d) => rule.domains!.some((p) => domainMatches(p, d)))) return false;
  }
  return true;
}

function describeRule(rule: Rule, index: number): string {
  return rule.reason ? `rule ${index + 1} (${rule.reason})` : `rule ${index + 1} of the project policy`;
}

export class PolicyGate {
  constructor(private readonly options: PolicyGateOptions) {}

  /** Same shape as the core's PermissionGate.decide. */
  decide(tool: GatedTool, input: unknown, effect: ToolEffect): PolicyDecisionKind {
    return this.explain(this.requestFor(tool, input, effect)).decision;
  }

  /** The core's PermissionGate.why: the reason behind `decide`'s answer. */
  why(tool: GatedTool, input: unknown, effect: ToolEffect): string {
    return this.explain(this.requestFor(tool, input, effect)).reason;
  }

  private requestFor(tool: GatedTool, input: unknown, effect: ToolEffect): PolicyRequest {
    let locations: string[] | undefined;
    try {
      locations = tool.describe?.(input, { root: this.options.root }).locations.map((l) => l.path);
    } catch {
      // A call the tool cannot describe names no paths; its own checks refuse it.
    }
    return { tool: tool.name, kind: tool.kind, effect, ...(locations ? { locations } : {}) };
  }

  explain(request: PolicyRequest): PolicyDecision {
    const decided = this.decideWithoutOverride(request);
    if (decided.decision === 'ask' && this.options.alwaysApprove) {
      return { decision: 'allow', reason: `${decided.reason}; allowed because the agent was started with --always-approve` };
    }
    return decided;
  }

  private decideWithoutOverride(request: PolicyRequest): PolicyDecision {
    const { root, loaded, sandboxed } = this.options;
    const facts: Facts = { paths: undefined, argv: undefined, envChanges: {} };
    const effect = request.effect;
    if (effect.type === 'files') {
      const absolute = effect.changes.flatMap((c) => (c.movedTo ? [c.path, c.movedTo] : [c.path]));
      const paths: string[] = [];
      for (const file of absolute) {
        const relative = relativeInside(root, file);
        if (relative === undefined) return { decision: 'deny', reason: `${file} is outside the workspace ${root}` };
        const protectedReason = protectedPathReason(root, path.resolve(root, file));
        if (protectedReason) return { decision: 'deny', reason: protectedReason };
        paths.push(relative);
      }
      facts.paths = paths;
    } else if (effect.type === 'command') {
      if (relativeInside(root, effect.command.cwd) === undefined) {
        return { decision: 'deny', reason: `the command's working directory ${effect.command.cwd} is outside the workspace ${root}` };
      }
      facts.argv = effect.command.argv;
      facts.envChanges = effect.command.envChanges;
    } else if (request.locations && request.locations.length > 0) {
      const paths: string[] = [];
      for (const location of request.locations) {
        const relative = relativeInside(root, location);
        if (relative === undefined) return { decision: 'deny', reason: `${location} is outside the workspace ${root}` };
        paths.push(relative);
      }
      facts.paths = paths;
    }
    if (loaded.status === 'invalid') return { decision: 'ask', reason: loaded.error };
    const rules = loaded.policy.rules;
    for (const decision of ['deny', 'ask', 'allow'] as const) {
      const index = rules.findIndex((rule) => rule.decision === decision && ruleMatches(rule, request, facts));
      if (index < 0) continue;
      const rule = rules[index]!;
      if (decision !== 'allow') return { decision, reason: `${decision === 'deny' ? 'denied' : 'asked'} by ${describeRule(rule, index)}` };
      return this.confirmAllow(facts, `allowed by ${describeRule(rule, index)}`, sandboxed);
    }
    if (effect.type === 'plan') return { decision: 'allow', reason: 'updating the plan changes nothing' };
    if (effect.type === 'none' && freeKinds.has(request.kind)) return { decision: 'allow', reason: `${request.kind} calls inside the workspace run without asking` };
    return { decision: 'ask', reason: 'no rule in the project policy allows this' };
  }

  /** An allow rule never covers an unsandboxed command or a risky one; those ask. */
  private confirmAllow(facts: Facts, reason: string, sandboxed: boolean): PolicyDecision {
    if (facts.argv) {
      if (!sandboxed) return { decision: 'ask', reason: `${reason}, but commands are not sandboxed on this machine, so every command asks` };
      const risk = commandRisk(facts.argv, facts.envChanges);
      if (risk) return { decision: 'ask', reason: `${reason}, but ${risk}` };
    }
    return { decision: 'allow', reason };
  }
}
