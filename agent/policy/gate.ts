// The policy gate: decides allow / ask / deny for one tool call from its whole
// effect. Order: built-in protections, then the project's deny rules, then
// ask, then allow (first match wins within each), then the built-in default.
// Anything unclear fails closed (ask, or deny for protected paths).
import path from 'node:path';
import type { ToolEffect } from '../tools/tool';
import { protectedPathReason } from '../workspace/containment';
import { commandRisk } from './commandRisk';
import { viewCommand, type CommandView } from './commandView';
import type { LoadedPolicy } from './load';
import { ruleMatches, type Facts } from './ruleMatch';
import type { Rule, ToolKindName } from './schema';
import { foldedPath, hasOtherSpelling } from './spelling';

export { argvMatches, domainMatches } from './ruleMatch';

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
  /**
   * The workspace is the session's own copy, reviewed before anything lands
   * in the person's tree: a file change inside it needs no approval unless a
   * rule says `ask` (the review is the approval). False in place.
   */
  copyEditsReviewed?: boolean;
}

const freeKinds = new Set<ToolKindName>(['read', 'search', 'think']);

function relativeInside(root: string, absolute: string): string | undefined {
  const relative = path.relative(root, path.resolve(root, absolute));
  if (relative === '..' || relative.startsWith('..' + path.sep) || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/') || '.';
}

function describeRule(rule: Rule, index: number): string {
  return rule.reason ? `rule ${index + 1} (${rule.reason})` : `rule ${index + 1} of the project policy`;
}

/** Reading and searching kinds: the kinds a path rule keeps away from denied files. */
const readingKinds = new Set<ToolKindName>(['read', 'search']);

export class PolicyGate {
  private readonly hasCommandDenyRules: boolean;

  constructor(private readonly options: PolicyGateOptions) {
    this.hasCommandDenyRules = options.loaded.status !== 'invalid' && options.loaded.policy.rules.some((r) => r.decision === 'deny' && r.commands !== undefined);
  }

  /** The same gate with some options changed (e.g. whether copy edits are reviewed). */
  with(changes: Partial<Omit<PolicyGateOptions, 'loaded' | 'root'>>): PolicyGate {
    return new PolicyGate({ ...this.options, ...changes });
  }

  /** Same shape as the core's PermissionGate.decide. */
  decide(tool: GatedTool, input: unknown, effect: ToolEffect): PolicyDecisionKind {
    return this.explain(this.requestFor(tool, input, effect)).decision;
  }

  /** The core's PermissionGate.why: the reason behind `decide`'s answer. */
  why(tool: GatedTool, input: unknown, effect: ToolEffect): string {
    return this.explain(this.requestFor(tool, input, effect)).reason;
  }

  /**
   * Why a reading, listing or searching `tool` must leave the file at
   * `absolute` out of its results, or undefined when it may show it: a deny
   * or ask rule with `paths` that applies to the tool covers it. The gate
   * decides a search by the folder searched; this keeps each file it finds
   * to the same rules as reading that file.
   */
  hides(tool: Pick<GatedTool, 'name' | 'kind'>, absolute: string, personApproved = false): string | undefined {
    const { loaded, root } = this.options;
    if (loaded.status === 'invalid') return undefined;
    const relative = relativeInside(root, absolute);
    if (relative === undefined) return `${absolute} is outside the workspace`;
    const facts = this.pathFacts([relative]);
    // A rule about reading covers searching and the other way round: both show the file's content.
    const requests = [...readingKinds].map((kind): PolicyRequest => ({ tool: tool.name, kind, effect: { type: 'none' } }));
    // Files an ask rule covers are shown once the person allowed this very call (a search of `private/` they approved).
    for (const decision of personApproved ? (['deny'] as const) : (['deny', 'ask'] as const)) {
      const index = loaded.policy.rules.findIndex(
        (rule) =>
          rule.decision === decision && rule.paths !== undefined && rule.commands === undefined && rule.domains === undefined && requests.some((request) => ruleMatches(rule, request, facts)),
      );
      if (index >= 0) return `${decision === 'deny' ? 'denied' : 'asked'} by ${describeRule(loaded.policy.rules[index]!, index)}`;
    }
    return undefined;
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
      // An invalid policy may have meant to deny this: what it denies is unknown, so nothing is waved through.
      if (this.options.loaded.status === 'invalid') {
        return { decision: 'ask', reason: `${decided.reason}\n--always-approve does not apply while the policy is invalid: what it denies cannot be known.` };
      }
      if (decided.hidesCommands && this.hasCommandDenyRules) {
        return { decision: 'ask', reason: `${decided.reason}; it still asks under --always-approve, because the project denies some commands and this one can run any command` };
      }
      return { decision: 'allow', reason: `${decided.reason}; allowed because the agent was started with --always-approve` };
    }
    return { decision: decided.decision, reason: decided.reason };
  }

  private pathFacts(paths: string[]): Facts {
    return { paths, foldedPaths: paths.map(foldedPath), command: undefined, envChanges: {} };
  }

  /** Built-in protections on a relative path, in every spelling a filesystem may give it. */
  private protectedReason(relative: string): string | null {
    const { root } = this.options;
    const spellings = hasOtherSpelling(relative) ? [relative, foldedPath(relative)] : [relative];
    for (const spelling of spellings) {
      const reason = protectedPathReason(root, path.resolve(root, spelling));
      if (reason) return spelling === relative ? reason : `${reason} (${JSON.stringify(relative)} is spelled with invisible or folded characters that some filesystems ignore)`;
    }
    return null;
  }

  private decideWithoutOverride(request: PolicyRequest): PolicyDecision & { hidesCommands?: boolean } {
    const { root, loaded, sandboxed } = this.options;
    let facts: Facts = this.pathFacts([]);
    facts.paths = undefined;
    facts.foldedPaths = undefined;
    const effect = request.effect;
    if (effect.type === 'files') {
      const absolute = effect.changes.flatMap((c) => (c.movedTo ? [c.path, c.movedTo] : [c.path]));
      const paths: string[] = [];
      for (const file of absolute) {
        const relative = relativeInside(root, file);
        if (relative === undefined) return { decision: 'deny', reason: `${file} is outside the workspace ${root}` };
        const protectedReason = this.protectedReason(relative);
        if (protectedReason) return { decision: 'deny', reason: protectedReason };
        paths.push(relative);
      }
      facts = this.pathFacts(paths);
    } else if (effect.type === 'command') {
      if (relativeInside(root, effect.command.cwd) === undefined) {
        return { decision: 'deny', reason: `the command's working directory ${effect.command.cwd} is outside the workspace ${root}` };
      }
      facts.envChanges = effect.command.envChanges;
      facts.command = viewCommand(effect.command.argv, { cwd: effect.command.cwd, pathVariable: effect.command.envChanges.PATH ?? process.env.PATH ?? '' });
      const named = this.commandPaths(facts.command, effect.command.cwd);
      facts.commandPaths = { paths: named, foldedPaths: named.map(foldedPath) };
    } else if (request.locations && request.locations.length > 0) {
      const paths: string[] = [];
      for (const location of request.locations) {
        const relative = relativeInside(root, location);
        if (relative === undefined) return { decision: 'deny', reason: `${location} is outside the workspace ${root}` };
        paths.push(relative);
      }
      facts = this.pathFacts(paths);
    }
    if (loaded.status === 'invalid') return { decision: 'ask', reason: loaded.error };
    const rules = loaded.policy.rules;
    for (const decision of ['deny', 'ask'] as const) {
      const index = rules.findIndex((rule) => rule.decision === decision && ruleMatches(rule, request, facts));
      if (index >= 0) return { decision, reason: `${decision === 'deny' ? 'denied' : 'asked'} by ${describeRule(rules[index]!, index)}` };
    }
    const allowed = this.allowRule(request, facts);
    if (allowed !== undefined) return this.confirmAllow(facts, `allowed by ${describeRule(rules[allowed]!, allowed)}`, sandboxed);
    if (facts.command?.inlineCode) return { decision: 'ask', reason: `no rule in the project policy allows this, and ${facts.command.inlineCode}`, hidesCommands: true };
    if (effect.type === 'plan') return { decision: 'allow', reason: 'updating the plan changes nothing' };
    if (effect.type === 'none' && freeKinds.has(request.kind)) return { decision: 'allow', reason: `${request.kind} calls inside the workspace run without asking` };
    if (effect.type === 'files' && this.options.copyEditsReviewed) {
      return { decision: 'allow', reason: "the change stays in the session's own copy until the person accepts it in the review" };
    }
    return { decision: 'ask', reason: 'no rule in the project policy allows this' };
  }

  /** Workspace files a command's arguments name (`cat .env`, `cp secrets/k x`, `--file=.env`), relative to the root. */
  private commandPaths(view: CommandView, cwd: string): string[] {
    const named = new Set<string>();
    const layers = [...view.layers, ...view.scripted.flatMap((s) => s.layers)];
    for (const layer of layers) {
      for (const arg of layer.argv.slice(1)) {
        const value = arg.startsWith('-') ? (arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : '') : arg;
        if (!value || value.includes('\0') || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) continue;
        const relative = relativeInside(this.options.root, path.resolve(cwd, value));
        if (relative !== undefined && relative !== '.') named.add(relative);
      }
    }
    return [...named];
  }

  /** The first allow rule that matches; for a command, every program it runs must be covered by some allow rule. */
  private allowRule(request: PolicyRequest, facts: Facts): number | undefined {
    const rules = (this.options.loaded as Extract<LoadedPolicy, { status: 'ok' | 'missing' }>).policy.rules;
    const covered = new Set<number>();
    let first: number | undefined;
    rules.forEach((rule, index) => {
      if (rule.decision !== 'allow' || !ruleMatches(rule, request, facts, covered)) return;
      first ??= index;
    });
    if (first === undefined) return undefined;
    if (facts.command && facts.command.layers.some((_, index) => !covered.has(index))) return undefined;
    return first;
  }

  /** An allow rule never covers an unsandboxed command, a risky one, or one that runs inline code; those ask. */
  private confirmAllow(facts: Facts, reason: string, sandboxed: boolean): PolicyDecision & { hidesCommands?: boolean } {
    const view = facts.command;
    if (view) {
      if (!sandboxed) return { decision: 'ask', reason: `${reason}, but commands are not sandboxed on this machine, so every command asks` };
      if (view.inlineCode) return { decision: 'ask', reason: `${reason}, but ${view.inlineCode}`, hidesCommands: true };
      for (const layer of view.layers) {
        for (const name of new Set([layer.argv[0]!, ...layer.programs.map((p) => path.basename(p))])) {
          const risk = commandRisk([name, ...layer.argv.slice(1)], layer === view.layers[0] ? facts.envChanges : {});
          if (risk) return { decision: 'ask', reason: `${reason}, but ${risk}` };
        }
      }
    }
    return { decision: 'allow', reason };
  }
}
