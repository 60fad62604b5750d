// The policy gate: decides allow / ask / deny for one tool call from its whole
// effect. Order: built-in protections, then the project's deny rules, then
// ask, then allow (first match wins within each), then the built-in default.
// Anything unclear fails closed (ask, or deny for protected paths).
import path from 'node:path';
import picomatch from 'picomatch';
import type { ToolEffect } from '../tools/tool';
import { protectedPathReason } from '../workspace/containment';
import { commandRisk } from './commandRisk';
import { viewCommand, type CommandLayer, type CommandView } from './commandView';
import type { LoadedPolicy } from './load';
import type { Rule, ToolKindName } from './schema';
import { foldedPath, hasOtherSpelling } from './spelling';

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

interface Facts {
  /** Relative paths the call touches; each with its folded spelling too when that differs. */
  paths: string[] | undefined;
  /** The folded spellings of `paths` (the same list when nothing folds). */
  foldedPaths: string[] | undefined;
  argv: string[] | undefined;
  command: CommandView | undefined;
  envChanges: Record<string, string>;
}

const globOptions = { dot: true } as const;
const foldedGlobOptions = { dot: true, nocase: true } as const;

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

const tokenOptions = { dot: true, nobrace: true, noextglob: true } as const;

/** Arguments against a pattern's tail: one glob per argument, a trailing `**` for "any further arguments". */
function argsMatch(pattern: readonly string[], args: readonly string[]): boolean {
  const open = pattern[pattern.length - 1] === '**';
  const fixed = open ? pattern.slice(0, -1) : pattern;
  if (open ? args.length < fixed.length : args.length !== fixed.length) return false;
  return fixed.every((token, i) => picomatch.isMatch(args[i]!, token, tokenOptions));
}

/** `pattern` against argv as written: one glob per argument, a trailing `**` for "any further arguments". */
export function argvMatches(pattern: readonly string[], argv: readonly string[]): boolean {
  if (argv.length === 0 || !picomatch.isMatch(argv[0]!, pattern[0]!, tokenOptions)) return false;
  return argsMatch(pattern.slice(1), argv.slice(1));
}

/**
 * One program of a command against a pattern. Deny and ask rules match any
 * name the program goes by and any reading of its options; an allow rule
 * naming a bare program covers only the file PATH finds by that name, and
 * only the arguments as written (or git's exact parse).
 */
function layerMatches(pattern: readonly string[], layer: CommandLayer, forAllow: boolean): boolean {
  const first = pattern[0]!;
  let program: boolean;
  if (first.includes('/')) program = layer.programs.some((name) => name.includes('/') && picomatch.isMatch(name, first, tokenOptions)) || picomatch.isMatch(layer.argv[0]!, first, tokenOptions);
  else if (forAllow) program = layer.sameAsOnPath && picomatch.isMatch(layer.program, first, tokenOptions);
  else program = layer.programs.some((name) => picomatch.isMatch(path.basename(name), first, tokenOptions));
  if (!program) return false;
  const lists = forAllow ? layer.exactArgLists : layer.argLists;
  return lists.some((args) => argsMatch(pattern.slice(1), args));
}

/** Every layer of `view` and of the scripts it runs, for deny and ask rules. */
function allLayers(view: CommandView): CommandLayer[] {
  return [...view.layers, ...view.scripted.flatMap(allLayers)];
}

function pathsMatch(rule: Rule, facts: Facts, every: boolean): boolean {
  const globs = rule.paths!;
  if (!facts.paths || facts.paths.length === 0) return false;
  const one = (p: string, i: number) => {
    const raw = picomatch.isMatch(p, globs, globOptions);
    const folded = facts.foldedPaths![i]!;
    // An allow needs the path as written (and its folded spelling) to match.
    if (every) return raw && (folded === p || picomatch.isMatch(folded, globs, foldedGlobOptions));
    // A deny or ask matches any spelling a filesystem may treat as the same name, case folded included.
    return raw || picomatch.isMatch(p, globs, foldedGlobOptions) || picomatch.isMatch(folded, globs, foldedGlobOptions);
  };
  return every ? facts.paths.every(one) : facts.paths.some(one);
}

/**
 * Whether `rule` matches. Deny/ask rules match when ANY touched path/domain
 * or ANY program the command runs matches; allow rules need ALL paths and
 * domains, and `coveredLayers` collects which programs of the command they cover.
 */
function ruleMatches(rule: Rule, request: PolicyRequest, facts: Facts, coveredLayers?: Set<number>): boolean {
  const every = rule.decision === 'allow';
  if (rule.tool !== undefined && !picomatch.isMatch(request.tool, rule.tool)) return false;
  if (rule.kind !== undefined && rule.kind !== request.kind) return false;
  if (rule.paths !== undefined && !pathsMatch(rule, facts, every)) return false;
  if (rule.domains !== undefined) {
    const domains = request.domains ?? [];
    const test = every ? domains.every.bind(domains) : domains.some.bind(domains);
    if (domains.length === 0 || !test((d) => rule.domains!.some((p) => domainMatches(p, d)))) return false;
  }
  if (rule.commands !== undefined) {
    const view = facts.command;
    if (!view) return false;
    if (!every) return allLayers(view).some((layer) => rule.commands!.some((pattern) => layerMatches(pattern, layer, false)));
    let any = false;
    view.layers.forEach((layer, index) => {
      if (rule.commands!.some((pattern) => layerMatches(pattern, layer, true))) {
        coveredLayers?.add(index);
        any = true;
      }
    });
    return any;
  }
  if (every && facts.command) facts.command.layers.forEach((_, index) => coveredLayers?.add(index));
  return true;
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
  hides(tool: Pick<GatedTool, 'name' | 'kind'>, absolute: string): string | undefined {
    const { loaded, root } = this.options;
    if (loaded.status === 'invalid') return undefined;
    const relative = relativeInside(root, absolute);
    if (relative === undefined) return `${absolute} is outside the workspace`;
    const facts = this.pathFacts([relative]);
    const request: PolicyRequest = { tool: tool.name, kind: readingKinds.has(tool.kind) ? tool.kind : 'read', effect: { type: 'none' } };
    for (const decision of ['deny', 'ask'] as const) {
      const index = loaded.policy.rules.findIndex(
        (rule) => rule.decision === decision && rule.paths !== undefined && rule.commands === undefined && rule.domains === undefined && ruleMatches(rule, request, facts),
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
      if (decided.hidesCommands && this.hasCommandDenyRules) {
        return { decision: 'ask', reason: `${decided.reason}; it still asks under --always-approve, because the project denies some commands and this one can run any command` };
      }
      return { decision: 'allow', reason: `${decided.reason}; allowed because the agent was started with --always-approve` };
    }
    return { decision: decided.decision, reason: decided.reason };
  }

  private pathFacts(paths: string[]): Facts {
    return { paths, foldedPaths: paths.map(foldedPath), argv: undefined, command: undefined, envChanges: {} };
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
      facts.argv = effect.command.argv;
      facts.envChanges = effect.command.envChanges;
      facts.command = viewCommand(effect.command.argv, { cwd: effect.command.cwd, pathVariable: effect.command.envChanges.PATH ?? process.env.PATH ?? '' });
    } else if (request.locations && request.locations.length > 0) {
      const paths: string[] = [];
      for (const location of request.locations) {
        const relative = relativeInside(root, location);
        if (relative === undefined) return { decision: 'deny', reason: `${location} is outside the workspace ${root}` };
        paths.push(relative);
      }
      facts = this.pathFacts(paths);
    }
    if (loaded.status === 'invalid') return { decision: 'ask', reason: loaded.error, hidesCommands: true };
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
