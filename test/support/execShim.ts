// Counting the children a test's code starts, without timing: a shim named
// like the program, first on PATH, appends each run's argv to a log in a temp
// dir and then runs the real program (found on PATH when the shim is made).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface ExecShim {
  /** The folder to put first on PATH. */
  bin: string;
  /** The real program the shim runs, or undefined when there is none (the shim then fails as "not found", exit 127). */
  real: string | undefined;
  /** The runs logged since the last call (each an argv without the program), and forgets them. */
  runs(): Promise<string[][]>;
}

/** A shim for `name` in `dir`/bin, logging to `dir`/`name`.log. Several shims may share a dir. */
export async function execShim(dir: string, name: string): Promise<ExecShim> {
  const real = execFileSync('sh', ['-c', `command -v ${name} || true`], { encoding: 'utf8' }).trim() || undefined;
  const bin = path.join(dir, 'bin');
  const log = path.join(dir, `${name}.log`);
  await mkdir(bin, { recursive: true });
  // One line per run, its words separated by \x1f (argv words may hold spaces).
  const record = `(IFS="$(printf '\\037')"; printf '%s\\n' "$*") >> '${log}'\n`;
  await writeFile(path.join(bin, name), `#!/bin/sh\n${record}${real ? `exec '${real}' "$@"` : 'exit 127'}\n`);
  await chmod(path.join(bin, name), 0o755);
  return {
    bin,
    real,
    async runs() {
      const text = existsSync(log) ? await readFile(log, 'utf8') : '';
      await writeFile(log, '');
      return text.split('\n').filter(Boolean).map((line) => line.split('\u001f'));
    },
  };
}
