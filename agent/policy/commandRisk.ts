// Commands that an `allow` rule must not cover even when its argv pattern
// matches: allowlisted programs with flags that run other programs, extra
// arguments that a script runner hands to a shell, and environment changes
// that inject code (GIT_SSH_COMMAND, LD_PRELOAD, NODE_OPTIONS, ...). Such a
// call is asked about instead; a `deny` rule still applies to it.
import path from 'node:path';

/** Flags (or `--flag=value` prefixes) that make common programs run arbitrary code. */
const execFlagsByProgram: Record<string, string[]> = {
  git: ['-c', '--config-env', '--upload-pack', '--receive-pack', '-u', '--exec', '--exec-path', '--ext-diff', '--textconv', '--template', '--output', '-o'],
  rg: ['--pre', '--pre-glob'],
  find: ['-exec', '-execdir', '-ok', '-okdir', '-fprint', '-fprintf', '-fls'],
  tar: ['--to-command', '--checkpoint-action', '--use-compress-program', '-I', '--info-script', '-F', '--new-volume-script'],
  node: ['-e', '--eval', '-p', '--print', '-r', '--require', '--import', '--loader', '--experimental-loader'],
};

/** Programs whose every use can run arbitrary code: an allow rule naming them still asks. */
const alwaysRisky = new Set(['sed', 'perl', 'python', 'python3', 'ruby', 'awk', 'gawk', 'mawk', 'xargs', 'env', 'sh', 'bash', 'zsh', 'dash', 'eval', 'exec', 'sudo', 'doas', 'su']);

const scriptRunners = new Set(['npm', 'npx', 'pnpm', 'yarn', 'bun']);

// eslint-disable-next-line no-control-regex
const shellSyntax = /[;&|<>`$\n\r]|\$\(/;

function flagMatches(arg: string, flag: string): boolean {
  if (arg === flag) return true;
  if (flag.startsWith('--')) return arg.startsWith(flag + '=');
  // Short flags may carry their value attached: `-cfoo`, `-ufoo`.
  return flag.length === 2 && arg.startsWith(flag) && !arg.startsWith('--');
}

/** Why an allow rule must not cover `argv` with `envChanges`, or undefined when it may. */
export function commandRisk(argv: readonly string[], envChanges: Readonly<Record<string, string>>): string | undefined {
  const names = Object.keys(envChanges);
  if (names.length > 0) return `it sets environment variables (${names.join(', ')}), which can change what the program runs`;
  const program = path.basename(argv[0] ?? '');
  if (alwaysRisky.has(program)) return `"${program}" can run any other program`;
  const args = argv.slice(1);
  const withShellSyntax = args.find((a) => shellSyntax.test(a));
  if (withShellSyntax !== undefined) return `the argument ${JSON.stringify(withShellSyntax)} contains shell syntax that a script or tool may pass to a shell`;
  const assignment = args.find((a) => /^(LD_|DYLD_|GIT_|NODE_OPTIONS|BASH_ENV|PYTHON|PERL5|RUBYOPT)[A-Z_]*=/.test(a));
  if (assignment !== undefined) return `the argument "${assignment}" looks like an environment injection`;
  for (const flag of execFlagsByProgram[program] ?? []) {
    const hit = args.find((a) => flagMatches(a, flag));
    if (hit !== undefined) return `"${program} ${hit}" can run other programs or write outside the command's usual effect`;
  }
  if (program === 'git' && args.some((a) => /^(core|alias|protocol|credential|url|remote|http|diff|filter|uploadpack|receivepack)\.[^=]*=/i.test(a))) {
    return 'it sets git configuration that can run other programs';
  }
  if (scriptRunners.has(program) && args.includes('--')) {
    return `arguments after "--" are handed to a package script, which runs them through a shell`;
  }
  return undefined;
}
