// What a command really runs, for the gate's command rules. The argv as
// written is only one spelling: `/bin/rm`, `./x` (a symlink to rm), `env rm`,
// `git --no-pager push` and `npm --prefix x publish` name the same programs
// and subcommands. Each program a command runs becomes a layer with every
// name it goes by and every argument list a rule may be matched against.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { commandsInScript, inlineCode } from './inlineCode';
import { unwrap } from './wrappers';
import { isExecutableFile } from '../sandbox/whichSync';

export interface CommandLayer {
  /** This layer's argv as written. */
  argv: string[];
  /** Names the program goes by: as written, its basename, and the real path of the file that runs and that file's basename. */
  programs: string[];
  /** The basename as written: the name an allow rule's first word is matched with. */
  program: string;
  /** Argument lists a deny or ask rule is matched against: as written, and with leading options removed in each reading. */
  argLists: string[][];
  /** Argument lists an allow rule may match: as written and, for git, the exact parse without global options. */
  exactArgLists: string[][];
  /** argv[0] is a bare name, or a path to the very file PATH finds for its basename: an allow rule naming the basename covers it. */
  sameAsOnPath: boolean;
}

export interface CommandView {
  layers: CommandLayer[];
  /** Set when a layer runs code given as an argument: no allow rule covers the command. */
  inlineCode?: string;
  /** Commands named inside inline shell scripts, each a view of its own (for deny and ask rules only). */
  scripted: CommandView[];
}

export interface ResolveContext {
  cwd: string;
  /** The PATH the command runs with. */
  pathVariable: string;
}

const MAX_LAYERS = 16;

/** git's options that come before the subcommand and take the next word. */
const gitValueOptions = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--list-cmds', '--attr-source']);

function onPath(name: string, context: ResolveContext): string | undefined {
  for (const dir of context.pathVariable.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.resolve(context.cwd, dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function realOrUndefined(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** The leading options of `args` removed, reading every unknown option as a flag (`flags`) or as taking the next word (`values`). */
function withoutLeadingOptions(args: readonly string[], readAs: 'flags' | 'values'): string[] {
  let index = 0;
  while (index < args.length) {
    const arg = args[index]!;
    if (arg === '--') return args.slice(index + 1);
    if (!arg.startsWith('-') || arg === '-') break;
    index += readAs === 'values' && !arg.includes('=') ? 2 : 1;
  }
  return args.slice(index);
}

/** git's own parse: global options (with their values) before the subcommand. */
function gitSubcommand(args: readonly string[]): string[] {
  let index = 0;
  while (index < args.length) {
    const arg = args[index]!;
    if (!arg.startsWith('-')) break;
    index += gitValueOptions.has(arg) ? 2 : 1;
  }
  return args.slice(index);
}

function uniqueLists(lists: string[][]): string[][] {
  const seen = new Set<string>();
  return lists.filter((list) => {
    const key = JSON.stringify(list);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function layerFor(argv: string[], context: ResolveContext): CommandLayer {
  const written = argv[0]!;
  const program = path.basename(written);
  const resolved = written.includes('/') ? path.resolve(context.cwd, written) : onPath(written, context);
  const real = realOrUndefined(resolved);
  const programs = [...new Set([written, program, ...(real ? [real, path.basename(real)] : [])])];
  let sameAsOnPath = !written.includes('/');
  if (!sameAsOnPath && real !== undefined) sameAsOnPath = realOrUndefined(onPath(program, context)) === real;
  const args = argv.slice(1);
  const exact = [args, ...(programs.includes('git') ? [gitSubcommand(args)] : [])];
  return {
    argv,
    programs,
    program,
    argLists: uniqueLists([...exact, withoutLeadingOptions(args, 'flags'), withoutLeadingOptions(args, 'values')]),
    exactArgLists: uniqueLists(exact),
    sameAsOnPath,
  };
}

/** Every program `argv` runs, outermost first, with wrappers seen through. */
export function viewCommand(argv: readonly string[], context: ResolveContext, depth = 0): CommandView {
  const view: CommandView = { layers: [], scripted: [] };
  const pending: string[][] = [[...argv]];
  while (pending.length > 0 && view.layers.length < MAX_LAYERS) {
    const current = pending.shift()!;
    if (current.length === 0 || !current[0]) continue;
    const layer = layerFor(current, context);
    view.layers.push(layer);
    for (const name of new Set([layer.program, ...layer.programs.map((p) => path.basename(p))])) {
      const code = inlineCode(name, current);
      if (code) {
        view.inlineCode ??= code.reason;
        if (code.shellScript !== undefined && depth < 3) {
          for (const command of commandsInScript(code.shellScript)) view.scripted.push(viewCommand(command, context, depth + 1));
        }
      }
      // A multi-call binary (busybox) runs its applet by the name it was called with, not as a wrapper.
      if (name === 'busybox' && layer.program !== 'busybox') continue;
      const inner = unwrap(name, current);
      if (inner.script !== undefined) {
        view.inlineCode ??= `"${name}" runs a shell command given as an argument, which can run any command`;
        if (depth < 3) for (const command of commandsInScript(inner.script)) view.scripted.push(viewCommand(command, context, depth + 1));
      }
      if (inner.inner) pending.push(inner.inner);
      for (const more of inner.more ?? []) pending.push(more);
    }
  }
  if (pending.length > 0) view.inlineCode ??= 'it nests more wrappers than the policy follows';
  return view;
}
