// run_command: one program with its arguments, no shell. The effect is the
// exact argv, cwd, environment additions and timeout the person approves;
// run executes that, streams output to the card, and keeps the output's tail.
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { once } from '../core/once';
import { resolveInside } from '../workspace/containment';
import { errorEffect, errorResult, failure, locate, shown, success, ToolInputError } from './results';
import type { CommandOutcome, Tool } from './tool';
import { inputJsonSchemas } from './inputSchemas.gen';

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
/** Output the model sees: 30 KB, the first quarter from the start and the rest from the end (where the error is). */
export const MAX_OUTPUT_BYTES = 30_000;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const input = once(() =>
  z.object({
    argv: z.array(z.string()).min(1).describe('The program and its arguments, one array element each, e.g. ["npm", "test"] or ["git", "status"]. No shell: pipes, &&, globs, $VARS and redirection are not interpreted.'),
    cwd: z.string().optional().describe('Working directory, relative to the workspace root. Default: the root.'),
    env: z.record(z.string(), z.string()).optional().describe('Environment variables to add or change for this command.'),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe(`Kill the command after this many milliseconds. Default ${DEFAULT_TIMEOUT_MS}.`),
  }),
);
type Input = z.infer<ReturnType<typeof input>>;

/**
 * The argv as one readable line. Arguments with spaces, quotes or control
 * characters are shown JSON-quoted, so a newline or carriage return can never
 * hide part of the command from the person reading it.
 */
export function displayArgv(argv: string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg))).join(' ');
}

function checkArgv(argv: string[]): void {
  if (argv[0]?.trim() === '') throw new ToolInputError('argv[0] is empty: give the program to run first, e.g. ["npm", "test"].');
  if (argv.some((arg) => arg.includes('\0'))) throw new ToolInputError('An argument contains a NUL byte, which no program can receive.');
}

function checkEnv(env: Record<string, string>): void {
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name)) throw new ToolInputError(`"${name}" is not a valid environment variable name (letters, digits and _, not starting with a digit).`);
    if (value.includes('\0')) throw new ToolInputError(`The value of ${name} contains a NUL byte.`);
  }
}

function report(outcome: CommandOutcome, timeoutMs: number): { text: string; failed: boolean } {
  const status = outcome.timedOut
    ? `Timed out after ${timeoutMs} ms and was killed${outcome.signal ? ` (${outcome.signal})` : ''}.`
    : outcome.signal
      ? `Killed by signal ${outcome.signal}.`
      : `Exit code ${outcome.exitCode}.`;
  // A cut output already carries its marker between the start and the end.
  const output = outcome.output === '' ? '(no output)' : outcome.output;
  return { text: `${status}\n${output}`, failed: outcome.timedOut || outcome.signal !== null || outcome.exitCode !== 0 };
}

export const runCommand: Tool<Input> = {
  name: 'run_command',
  kind: 'execute',
  description:
    'Run one program with arguments in the workspace, without a shell, and return its exit code and combined stdout/stderr ' +
    `(its start and end, ${MAX_OUTPUT_BYTES / 1000} KB in all, if longer). To use shell features, run e.g. ["bash", "-c", "..."] explicitly. ` +
    'Commands cannot read input; interactive programs will see end-of-file.',
  get input() {
    return input();
  },
  inputJsonSchema: inputJsonSchemas.run_command,
  describe(call, { root }) {
    return { title: displayArgv(call.argv), locations: [{ path: locate(root, call.cwd ?? '.') }] };
  },
  async effect(call, ctx) {
    try {
      checkArgv(call.argv);
      checkEnv(call.env ?? {});
      const cwd = await resolveInside(ctx.root, call.cwd ?? '.');
      const info = await stat(cwd).catch(() => null);
      if (!info?.isDirectory()) throw new ToolInputError(`The working directory ${shown(ctx.root, cwd)} does not exist or is not a directory.`);
      return { type: 'command', command: { argv: call.argv, cwd, envChanges: call.env ?? {}, timeoutMs: call.timeout_ms ?? DEFAULT_TIMEOUT_MS } };
    } catch (error) {
      return errorEffect(error);
    }
  },
  async run(_call, ctx, approved) {
    if (approved.type === 'error') return failure(approved.message);
    if (approved.type !== 'command') return failure('This call was not approved as a command, so nothing ran.');
    const { argv, cwd, envChanges, timeoutMs } = approved.command;
    try {
      checkArgv(argv);
      checkEnv(envChanges);
      if ((await resolveInside(ctx.root, cwd)) !== cwd) throw new ToolInputError(`The working directory ${cwd} changed after approval; nothing ran.`);
      const outcome = await ctx.commands.run(argv, {
        cwd,
        envChanges,
        timeoutMs,
        signal: ctx.signal,
        onOutput: (chunk) => ctx.progress(chunk),
        maxOutputBytes: MAX_OUTPUT_BYTES,
      });
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const { text, failed } = report(outcome, timeoutMs);
      const result = success(text);
      return failed ? { ...result, isError: true } : result;
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (error instanceof Error && !(error instanceof ToolInputError) && !('code' in error)) return failure(error.message);
      return errorResult(error);
    }
  },
};
