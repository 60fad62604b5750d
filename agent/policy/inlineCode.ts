// Commands that run code given as an argument: a shell with `-c`, an
// interpreter with `-e`/`-c`, awk's program. Nothing about such a command can
// be known from its argv, so no allow rule covers it, and the gate reads the
// shell script only to find commands a deny rule names.

const shells = new Set(['sh', 'bash', 'rbash', 'zsh', 'dash', 'ksh', 'mksh', 'pdksh', 'ash', 'fish', 'csh', 'tcsh', 'yash', 'posh', 'elvish', 'nu', 'xonsh', 'pwsh', 'powershell']);

/** Interpreter → the flags whose value (or the next word) is code. */
const interpreterFlags: Record<string, readonly string[]> = {
  node: ['-e', '--eval', '-p', '--print'],
  nodejs: ['-e', '--eval', '-p', '--print'],
  deno: ['eval'],
  bun: ['-e', '--eval', '-p', '--print'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  php: ['-r'],
  lua: ['-e'],
  Rscript: ['-e'],
  osascript: ['-e'],
};

const awks = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);

function isPython(program: string): boolean {
  return /^(python|pypy)(\d+(\.\d+)?)?$/.test(program);
}

export interface InlineCode {
  /** Why nothing about the command can be known from its argv. */
  reason: string;
  /** The script, when it is shell code the gate can scan for denied commands. */
  shellScript?: string;
}

/** The script of `sh -c SCRIPT` (any flag cluster holding `c`, fish's `--command`), or undefined. */
function shellScript(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === '--') return undefined;
    if (arg === '--command' || arg === '-Command' || arg === '-c' || (/^-[A-Za-z]+$/.test(arg) && arg.includes('c') && !arg.startsWith('--'))) return args[index + 1] ?? '';
    if (arg.startsWith('--command=')) return arg.slice('--command='.length);
    if (arg === '-o' || arg === '+o' || arg === '-O' || arg === '+O' || arg === '--rcfile' || arg === '--init-file') {
      index += 1;
      continue;
    }
    if (!arg.startsWith('-') && !arg.startsWith('+')) return undefined; // a script file: its own program
  }
  return undefined;
}

/** Inline code run by `argv` when its program is called `program`, or undefined. */
export function inlineCode(program: string, argv: readonly string[]): InlineCode | undefined {
  const args = argv.slice(1);
  if (shells.has(program)) {
    const script = shellScript(args);
    if (script !== undefined) return { reason: `"${program} ${args[0]}" runs a shell script given as an argument, which can run any command`, shellScript: script };
    return undefined;
  }
  if (awks.has(program)) return { reason: `"${program}" runs its program argument, which can start any command (system())` };
  const flags = isPython(program) ? ['-c'] : interpreterFlags[program];
  if (!flags) return undefined;
  const hit = args.find((a) => flags.some((f) => a === f || (f.startsWith('--') ? a.startsWith(`${f}=`) : f.length === 2 && a.startsWith(f) && !a.startsWith('--'))));
  if (hit === undefined) return undefined;
  return { reason: `"${program} ${hit.length > 12 ? `${hit.slice(0, 12)}…` : hit}" runs code given as an argument, which can run any command` };
}

/**
 * Commands a shell script names, read the simple way: split at operators and
 * substitutions, then into words with quotes removed. Good enough to find
 * `rm` in `cd x && rm -rf y` for a deny rule; never used to allow anything.
 */
export function commandsInScript(script: string): string[][] {
  const segments = script.split(/\$\(|`|\|\||&&|[;&|\n(){}]|\bthen\b|\bdo\b|\belse\b/);
  const commands: string[][] = [];
  for (const segment of segments) {
    const words = (segment.match(/'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"]+/g) ?? []).map((w) => w.replace(/^'(.*)'$/s, '$1').replace(/^"(.*)"$/s, '$1'));
    // Leading assignments and redirections are not the program.
    while (words.length > 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!) || /^\d*[<>]/.test(words[0]!))) words.shift();
    if (words.length > 0 && !['if', 'fi', 'done', 'esac', 'while', 'until', 'for', '!'].includes(words[0]!)) commands.push(words);
  }
  return commands;
}
