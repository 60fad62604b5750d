// Programs that run another program given on their own command line
// (`env rm x`, `timeout 5 rm x`, `find . -exec rm {} +`), and how to find
// the inner argv. A command rule must see every program a command runs, so
// the gate matches each layer, not just the outermost word.

interface WrapperSpec {
  /** Options that take a value (short as `-u`, long as `--user`); every other `-x` is a flag. */
  valueOptions: readonly string[];
  /** Operands before the command (`timeout DURATION cmd`). */
  leadingOperands?: number;
  /** `NAME=value` words may precede the command (`env`, `sudo`). */
  assignments?: boolean;
  /** Options after which the wrapper does not run the command (`command -v rm` only prints). */
  queryOptions?: readonly string[];
  /** A command that a wrapper runs when none is given (`xargs` runs echo). */
  defaultCommand?: readonly string[];
}

const specs: Record<string, WrapperSpec> = {
  env: { valueOptions: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'], assignments: true },
  nice: { valueOptions: ['-n', '--adjustment'] },
  timeout: { valueOptions: ['-k', '--kill-after', '-s', '--signal'], leadingOperands: 1 },
  xargs: {
    valueOptions: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var'],
    defaultCommand: ['echo'],
  },
  sudo: { valueOptions: ['-u', '--user', '-g', '--group', '-C', '--close-from', '-D', '--chdir', '-h', '--host', '-p', '--prompt', '-r', '--role', '-t', '--type', '-T', '--command-timeout', '-U', '--other-user'], assignments: true, queryOptions: ['-l', '--list', '-v', '--validate', '-k', '-K', '-V'] },
  doas: { valueOptions: ['-u', '-C'] },
  command: { valueOptions: [], queryOptions: ['-v', '-V'] },
  exec: { valueOptions: ['-a'] },
  nohup: { valueOptions: [] },
  time: { valueOptions: ['-f', '--format', '-o', '--output'] },
  stdbuf: { valueOptions: ['-i', '--input', '-o', '--output', '-e', '--error'] },
  setsid: { valueOptions: [] },
  ionice: { valueOptions: ['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid'] },
  chroot: { valueOptions: ['--groups', '--userspec'], leadingOperands: 1 },
  unshare: { valueOptions: ['--propagation', '--setgroups', '-S', '--setuid', '-G', '--setgid', '-R', '--root', '-w', '--wd'] },
  flock: { valueOptions: ['-w', '--timeout', '-E', '--conflict-exit-code'], leadingOperands: 1 },
  busybox: { valueOptions: [] },
  watch: { valueOptions: ['-n', '--interval', '-d', '--differences', '-q', '--equexit'] },
  strace: { valueOptions: ['-e', '-o', '-p', '-s', '-u', '-E', '-P', '-a', '-b', '-I', '-O', '-S', '-X'] },
  ltrace: { valueOptions: ['-e', '-o', '-p', '-s', '-u', '-a', '-n'] },
  caffeinate: { valueOptions: ['-t', '-w'] },
  npx: { valueOptions: ['-p', '--package', '--cache', '--userconfig', '--registry'] },
  bunx: { valueOptions: ['-p', '--package'] },
};

/** Package-manager subcommands that run a program: `npm exec -- rm`, `pnpm dlx x`, `yarn exec x`. */
const execSubcommands: Record<string, readonly string[]> = {
  npm: ['exec', 'x'],
  pnpm: ['exec', 'dlx'],
  yarn: ['exec', 'dlx'],
  bun: ['x'],
};

/** find's actions that run a program, ended by `;` or `+`. */
const findActions = new Set(['-exec', '-execdir', '-ok', '-okdir']);

export interface Unwrapped {
  /** The argv the wrapper runs, or undefined when it runs none. */
  inner?: string[];
  /** Extra argvs run by the same command (find runs one per `-exec`). */
  more?: string[][];
  /** Inline code for a shell given by the wrapper (`npx -c 'rm -rf x'`, `env -S '...'` is split instead). */
  script?: string;
}

function splitWords(text: string): string[] {
  return text.split(/\s+/).filter(Boolean).map((w) => w.replace(/^['"]|['"]$/g, ''));
}

function optionName(arg: string): string {
  return arg.startsWith('--') ? arg.split('=')[0]! : arg;
}

/**
 * Skips the options of a wrapper per `spec`; returns the index of the first
 * word of the inner command (argv.length when none) and any `-S` string.
 */
function skipOptions(args: readonly string[], spec: WrapperSpec): { index: number; query: boolean; split?: string } {
  const values = new Set(spec.valueOptions);
  let index = 0;
  let query = false;
  let split: string | undefined;
  while (index < args.length) {
    const arg = args[index]!;
    if (arg === '--') {
      index += 1;
      break;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    if (spec.queryOptions?.includes(optionName(arg))) query = true;
    if (arg.startsWith('--')) {
      const name = optionName(arg);
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : values.has(name) ? args[++index] : undefined;
      if (name === '--split-string' && value !== undefined) split = value;
      index += 1;
      continue;
    }
    // A cluster of short options: the first one that takes a value takes the rest of the word, or the next word.
    for (let at = 1; at < arg.length; at += 1) {
      const flag = `-${arg[at]}`;
      if (spec.queryOptions?.includes(flag)) query = true;
      if (!values.has(flag)) continue;
      const value = at + 1 < arg.length ? arg.slice(at + 1) : args[++index];
      if (flag === '-S' && value !== undefined) split = value;
      break;
    }
    index += 1;
  }
  return { index, query, ...(split !== undefined ? { split } : {}) };
}

function unwrapFind(args: readonly string[]): Unwrapped {
  const runs: string[][] = [];
  for (let index = 0; index < args.length; index += 1) {
    if (!findActions.has(args[index]!)) continue;
    const end = args.findIndex((a, i) => i > index && (a === ';' || a === '+'));
    runs.push(args.slice(index + 1, end < 0 ? args.length : end));
    if (end < 0) break;
    index = end;
  }
  const [inner, ...more] = runs.filter((r) => r.length > 0);
  return inner ? { inner, more } : {};
}

function unwrapPackageExec(args: readonly string[]): Unwrapped {
  const dashes = args.indexOf('--');
  const call = args.findIndex((a) => a === '-c' || a === '--call' || a.startsWith('--call='));
  if (call >= 0 && (dashes < 0 || call < dashes)) {
    const arg = args[call]!;
    return { script: arg.startsWith('--call=') ? arg.slice('--call='.length) : (args[call + 1] ?? '') };
  }
  if (dashes >= 0) return args.length > dashes + 1 ? { inner: args.slice(dashes + 1) } : {};
  const { index } = skipOptions(args, { valueOptions: ['-p', '--package', '--workspace', '-w'] });
  return index < args.length ? { inner: args.slice(index) } : {};
}

/** What `argv` (whose program's name is `program`) runs in turn, if it is a wrapper. */
export function unwrap(program: string, argv: readonly string[]): Unwrapped {
  const args = argv.slice(1);
  if (program === 'find') return unwrapFind(args);
  if (program === 'npx' || program === 'bunx' || program === 'pnpx') return unwrapPackageExec(args);
  const subcommands = execSubcommands[program];
  if (subcommands) {
    const at = args.findIndex((a) => !a.startsWith('-'));
    if (at >= 0 && subcommands.includes(args[at]!)) return unwrapPackageExec(args.slice(at + 1));
    return {};
  }
  const spec = specs[program];
  if (!spec) return {};
  const { index: start, query, split } = skipOptions(args, spec);
  if (query) return {};
  let index = start;
  // A stray `--` among the assignments is skipped as well: reading too far only ever finds more to deny.
  if (spec.assignments) while (index < args.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(args[index]!) || args[index] === '--')) index += 1;
  index += spec.leadingOperands ?? 0;
  const rest = args.slice(index);
  const inner = [...(split !== undefined ? splitWords(split) : []), ...rest];
  if (inner.length === 0) return spec.defaultCommand ? { inner: [...spec.defaultCommand] } : {};
  return { inner };
}

export function isWrapper(program: string): boolean {
  return program in specs || program === 'find' || program in execSubcommands || program === 'pnpx';
}
