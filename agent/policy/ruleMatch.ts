// Whether one policy rule matches one call: paths (in every spelling a
// filesystem may treat as the same), commands (every program the command
// runs, by every name it goes by), domains. Deny and ask rules match when
// anything matches; allow rules need everything covered.
import path from 'node:path';
import picomatch from 'picomatch';
import type { CommandLayer, CommandView } from './commandView';
import type { PolicyRequest } from './gate';
import type { Rule } from './schema';

/** What the gate knows of a call, for matching. */
export interface Facts {
  /** Relative paths the call touches. */
  paths: string[] | undefined;
  /** The folded spellings of `paths` (see spelling.ts), index for index. */
  foldedPaths: string[] | undefined;
  command: CommandView | undefined;
  /**
   * Files a command's arguments name inside the workspace (relative, with
   * their folded spellings), for deny and ask path rules only: `cat .env`
   * touches `.env`. Never used by allow rules, so a path allow does not
   * become a command allow.
   */
  commandPaths?: { paths: string[]; foldedPaths: string[] };
  envChanges: Record<string, string>;
}

const globOptions = { dot: true } as const;
const foldedGlobOptions = { dot: true, nocase: true } as const;

export function domainMatches(pattern: string, destination: string): boolean {
  const [patternHost = '', patternPort] = pattern.toLowerCase().split(':');
  const [host = '', port] = destination.toLowerCase().split(':');
  if (patternPort !== undefined && patternPort !== port) return false;
  if (patternHost.startsWith('*.')) return host.endsWith(patternHost.slice(1)) && host.length > patternHost.length - 1;
  return host === patternHost;
}

const tokenOptions = { dot: true, nobrace: true, noextglob: true } as const;

/**
 * Subjects the agent chooses (an argument, a tool name, a path segment)
 * longer than this are not matched against a glob with two or more "*": the
 * cost grows with the length to the power of the stars (schema.ts caps them
 * at three). Such a subject never gets an allow and always gets a deny or an
 * ask (`unmatched`: what the rule's kind makes of it). No real file name is longer.
 */
export const MAX_GLOB_SUBJECT = 255;
/** A path longer than PATH_MAX names no file: the same, for path rules. */
const MAX_GLOB_PATH = 4096;

const costly = (glob: string) => glob !== '**' && glob.indexOf('*') !== glob.lastIndexOf('*');

/** `subject` against `glob`, or `tooLong` when it is too long to match cheaply. */
function globMatch(subject: string, glob: string, options: picomatch.PicomatchOptions, tooLong: boolean): boolean {
  if (subject.length > MAX_GLOB_SUBJECT && costly(glob)) return tooLong;
  return picomatch.isMatch(subject, glob, options);
}

/** Arguments against a pattern's tail: one glob per argument, a trailing `**` for "any further arguments". */
function argsMatch(pattern: readonly string[], args: readonly string[], tooLong: boolean): boolean {
  const open = pattern[pattern.length - 1] === '**';
  const fixed = open ? pattern.slice(0, -1) : pattern;
  if (open ? args.length < fixed.length : args.length !== fixed.length) return false;
  return fixed.every((token, i) => globMatch(args[i]!, token, tokenOptions, tooLong));
}

/** `pattern` against argv as written: one glob per argument, a trailing `**` for "any further arguments". An argument too long to match does not. */
export function argvMatches(pattern: readonly string[], argv: readonly string[]): boolean {
  if (argv.length === 0 || !globMatch(argv[0]!, pattern[0]!, tokenOptions, false)) return false;
  return argsMatch(pattern.slice(1), argv.slice(1), false);
}

/**
 * One program of a command against a pattern. Deny and ask rules match any
 * name the program goes by and any reading of its options; an allow rule
 * naming a bare program covers only the file PATH finds by that name, and
 * only the arguments as written (or git's exact parse).
 */
function layerMatches(pattern: readonly string[], layer: CommandLayer, forAllow: boolean): boolean {
  const first = pattern[0]!;
  const tooLong = !forAllow;
  const matches = (name: string) => globMatch(name, first, tokenOptions, tooLong);
  let program: boolean;
  if (first.includes('/')) program = layer.programs.some((name) => name.includes('/') && matches(name)) || matches(layer.argv[0]!);
  else if (forAllow) program = layer.sameAsOnPath && matches(layer.program);
  else program = layer.programs.some((name) => matches(path.basename(name)));
  if (!program) return false;
  const lists = forAllow ? layer.exactArgLists : layer.argLists;
  return lists.some((args) => argsMatch(pattern.slice(1), args, tooLong));
}

/** Every layer of `view` and of the scripts it runs, for deny and ask rules. */
function allLayers(view: CommandView): CommandLayer[] {
  return [...view.layers, ...view.scripted.flatMap(allLayers)];
}

function pathsMatch(rule: Rule, facts: Facts, every: boolean): boolean {
  const globs = rule.paths!;
  if (!facts.paths || facts.paths.length === 0) return false;
  const one = (p: string, i: number) => {
    // No file has such a path; matching it could take long (see MAX_GLOB_SUBJECT): no allow, any deny or ask.
    if (tooLongForGlobs(p) || tooLongForGlobs(facts.foldedPaths![i]!)) return !every;
    const raw = picomatch.isMatch(p, globs, globOptions);
    const folded = facts.foldedPaths![i]!;
    // An allow needs the path as written (and its folded spelling) to match.
    if (every) return raw && (folded === p || picomatch.isMatch(folded, globs, foldedGlobOptions));
    // A deny or ask matches any spelling a filesystem may treat as the same name, case folded included,
    // and covers what is inside a folder it names (`secrets`, `secrets/`: gitignore's reading).
    return withFolders(p, folded).some(([one, oneFolded]) => picomatch.isMatch(one, globs, globOptions) || picomatch.isMatch(one, globs, foldedGlobOptions) || picomatch.isMatch(oneFolded, globs, foldedGlobOptions));
  };
  return every ? facts.paths.every(one) : facts.paths.some(one);
}

/** `relative` and each folder above it (`a/b/c`, `a/b`, `a`), with the folded spelling alongside. */
function withFolders(relative: string, folded: string): Array<[string, string]> {
  const parts = relative.split('/');
  const foldedParts = folded.split('/');
  const out: Array<[string, string]> = [];
  for (let n = parts.length; n > 0; n--) {
    out.push([parts.slice(0, n).join('/'), foldedParts.length === parts.length ? foldedParts.slice(0, n).join('/') : folded]);
  }
  return out;
}

/** A command's arguments that could name a file: one too long for a file name is text (a commit message), not a path. */
function fileLikeArguments(named: { paths: string[]; foldedPaths: string[] }): { paths: string[]; foldedPaths: string[] } {
  const keep = named.paths.map((p, i) => !tooLongForGlobs(p) && !tooLongForGlobs(named.foldedPaths[i]!));
  return { paths: named.paths.filter((_, i) => keep[i]), foldedPaths: named.foldedPaths.filter((_, i) => keep[i]) };
}

function tooLongForGlobs(relative: string): boolean {
  return relative.length > MAX_GLOB_PATH || relative.split('/').some((segment) => segment.length > MAX_GLOB_SUBJECT);
}

/**
 * Whether `rule` matches. Deny/ask rules match when ANY touched path/domain
 * or ANY program the command runs matches; allow rules need ALL paths and
 * domains, and `coveredLayers` collects which programs of the command they cover.
 */
export function ruleMatches(rule: Rule, request: PolicyRequest, facts: Facts, coveredLayers?: Set<number>): boolean {
  const every = rule.decision === 'allow';
  if (rule.tool !== undefined && !globMatch(request.tool, rule.tool, {}, !every)) return false;
  if (rule.kind !== undefined && rule.kind !== request.kind) return false;
  if (rule.paths !== undefined) {
    const named = !every && facts.command && facts.commandPaths ? { ...facts, ...fileLikeArguments(facts.commandPaths) } : facts;
    if (!pathsMatch(rule, named, every)) return false;
  }
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

