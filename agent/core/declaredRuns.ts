// Declared runs: named sequences of commands from the project's reviewed
// `.accord/policy.json`, started by `!run <name> [args]` (or `/<name> args`),
// no model involved. The whole plan is drawn up front (one pending `execute`
// tool call per step), then the steps run in order in the session's sandboxed
// runner, streaming their output as message chunks. A failing step stops the
// run; the remaining steps are closed as not run and the `onFailure` steps
// each open and close their own tool call. A gate step asks the person first
// (under --durable-requests the turn ends `waiting`; the answer resumes the
// run at that step). An unknown name or bad arguments end with `refusal` and
// nothing runs.
import { randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { splitCommandLine } from '../policy/commandLine';
import type { DeclaredRun, RunStep } from '../policy/schema';
import type { Session } from './session';
import type { Tool, ToolEffect } from '../tools/tool';
import type { TurnDeps } from './turn';
import type { ToolCallFields, StopReason } from './updates';

const ARGS = '{args}';
const RUN_COMMAND = 'run_command';
const DEFAULT_STEP_TIMEOUT_MS = 10 * 60_000;
const MAX_OUTPUT_BYTES = 256 * 1024;
/** Marks a pending durable approval that belongs to a declared run's gate, not to a model tool call. */
export const RUN_GATE_TOOL = '_accord/run';

export interface RunGateInput {
  run: string;
  args: string[];
  /** Index of the gate step; the run resumes there. */
  step: number;
  toolCallIds: string[];
}

/** The run name and arguments when `line` (after "!") is `run <name> [args]`. */
export function runLine(line: string): { name: string; argsText: string } | undefined {
  const match = /^run\s+(\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  return match ? { name: match[1]!, argsText: match[2] ?? '' } : undefined;
}

export type RunDeps = Pick<TurnDeps, 'commands' | 'permissions' | 'observer' | 'beforeChange' | 'gate' | 'tools'> & {
  runs: Readonly<Record<string, DeclaredRun>>;
};

/**
 * Why the policy denies running `argv` in `cwd` (the rule), or undefined. A declared
 * step is a command like any other: the project's deny rules (and the
 * built-in ones) apply to it as they would to the model's run_command. Its
 * `ask` rules do not: the run itself is the reviewed, declared approval.
 */
async function deniedBecause(step: RunStep, argv: string[], cwd: string, deps: RunDeps): Promise<string | undefined> {
  const tool = deps.tools.find((t) => t.name === RUN_COMMAND) ?? ({ name: RUN_COMMAND, kind: 'execute' } as Tool<unknown>);
  const input = { argv, ...(step.cwd ? { cwd: step.cwd } : {}), ...(step.env ? { env: step.env } : {}) };
  const effect: ToolEffect = { type: 'command', command: { argv, cwd, envChanges: step.env ?? {}, timeoutMs: (step.timeoutSeconds ?? 0) * 1000 || DEFAULT_STEP_TIMEOUT_MS } };
  if ((await deps.gate.decide(tool, input, effect)) !== 'deny') return undefined;
  return deps.gate.why?.(tool, input, effect) ?? 'denied by the project policy';
}

async function say(session: Session, text: string): Promise<void> {
  await session.updates.emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
}

function expand(step: RunStep, args: string[]): string[] {
  return step.argv.flatMap((token) => (token === ARGS ? args : [token]));
}

/** The step's cwd inside the workspace, or an error: a run never works outside it (symlinks included). */
async function stepCwd(root: string, step: RunStep): Promise<string | { error: string }> {
  const realRoot = await realpath(root);
  const wanted = path.resolve(realRoot, step.cwd ?? '.');
  const real = await realpath(wanted).catch(() => undefined);
  if (!real) return { error: `The step's cwd ${JSON.stringify(step.cwd)} does not exist in the workspace.` };
  const relative = path.relative(realRoot, real);
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return { error: `The step's cwd ${JSON.stringify(step.cwd)} is outside the workspace, so it was not run.` };
  }
  return real;
}

function card(runName: string, step: RunStep, args: string[], toolCallId: string): ToolCallFields & { title: string } {
  return {
    toolCallId,
    title: `${runName} / ${step.name}`,
    kind: 'execute',
    status: 'pending',
    rawInput: { argv: expand(step, args), ...(step.cwd ? { cwd: step.cwd } : {}), ...(step.env ? { env: step.env } : {}) },
  };
}

/** Starts `!run <name> [args]`. */
export async function startDeclaredRun(session: Session, name: string, argsText: string, deps: RunDeps): Promise<StopReason> {
  const signal = session.beginTurn();
  try {
    const run = Object.hasOwn(deps.runs, name) ? deps.runs[name] : undefined;
    if (!run) {
      const known = Object.keys(deps.runs);
      await say(session, `There is no declared run named "${name}". ${known.length ? `The project's .accord/policy.json declares: ${known.join(', ')}.` : 'The project\'s .accord/policy.json declares no runs.'}`);
      return 'refusal';
    }
    const split = argsText.trim() ? splitCommandLine(argsText) : { ok: true as const, argv: [] };
    if (!split.ok) {
      await say(session, `The arguments of run "${name}" could not be read: ${split.reason}`);
      return 'refusal';
    }
    const takesArgs = [...run.steps, ...(run.onFailure ?? [])].some((s) => s.argv.includes(ARGS));
    if (split.argv.length > 0 && !takesArgs) {
      await say(session, `Run "${name}" takes no arguments (no step has "${ARGS}"), so nothing ran.`);
      return 'refusal';
    }
    // A step the policy denies refuses the whole run before anything runs (not half a plan).
    for (const step of run.steps) {
      const cwd = await stepCwd(session.root, step);
      const denied = typeof cwd === 'string' ? await deniedBecause(step, expand(step, split.argv), cwd, deps) : undefined;
      if (denied) {
        await say(session, `Run "${name}" was refused: its step "${step.name}" runs ${JSON.stringify(expand(step, split.argv))}, which the policy denies (${denied}). Nothing ran.`);
        return 'refusal';
      }
    }
    const ids = run.steps.map(() => `run_${randomUUID()}`);
    // The whole plan first, so the client can draw it before anything runs.
    for (const [index, step] of run.steps.entries()) {
      await session.updates.emit({ sessionUpdate: 'tool_call', ...card(name, step, split.argv, ids[index]!) });
    }
    return await runFrom(session, name, run, split.argv, ids, 0, deps, signal, false);
  } finally {
    session.endTurn();
  }
}

/** Resumes a run whose gate was answered (durable approvals). */
export async function resumeDeclaredRun(session: Session, input: RunGateInput, allowed: boolean, deps: RunDeps): Promise<StopReason> {
  const signal = session.beginTurn();
  try {
    const run = Object.hasOwn(deps.runs, input.run) ? deps.runs[input.run] : undefined;
    if (!run) {
      for (const id of input.toolCallIds.slice(input.step)) await closeNotRun(session, id, `Run "${input.run}" is no longer declared, so it did not go on.`);
      return 'end_turn';
    }
    if (!allowed) return await declined(session, input.run, run, input.toolCallIds, input.step);
    return await runFrom(session, input.run, run, input.args, input.toolCallIds, input.step, deps, signal, true);
  } finally {
    session.endTurn();
  }
}

async function closeNotRun(session: Session, toolCallId: string, text: string): Promise<void> {
  await session.updates.emit({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [{ type: 'content', content: { type: 'text', text } }] });
}

async function declined(session: Session, runName: string, run: DeclaredRun, ids: string[], at: number): Promise<StopReason> {
  await closeNotRun(session, ids[at]!, 'The person declined this gate, so the run stopped here.');
  for (const id of ids.slice(at + 1)) await closeNotRun(session, id, 'Not run: the run stopped at a declined gate.');
  await finish(session, runName, `Run "${runName}" stopped: the gate "${run.steps[at]!.name}" was declined. ${at} of ${run.steps.length} steps had run.`);
  return 'end_turn';
}

async function finish(session: Session, runName: string, summary: string): Promise<void> {
  await say(session, `\n${summary}\n`);
  // The model learns what the person ran, so the next message can refer to it.
  session.appendHistory({ role: 'user', content: `I ran the declared run "${runName}" myself. ${summary}` });
}

async function runFrom(
  session: Session,
  runName: string,
  run: DeclaredRun,
  args: string[],
  ids: string[],
  start: number,
  deps: RunDeps,
  signal: AbortSignal,
  gateApproved: boolean,
): Promise<StopReason> {
  for (let index = start; index < run.steps.length; index++) {
    const step = run.steps[index]!;
    const toolCallId = ids[index]!;
    if (signal.aborted) break;
    if (step.gate && !(index === start && gateApproved)) {
      const answer = await deps.permissions.ask({ ...card(runName, step, args, toolCallId), content: [{ type: 'content', content: { type: 'text', text: `Run ${JSON.stringify(expand(step, args))}${step.cwd ? ` in ${step.cwd}` : ''}: a gate of run "${runName}".` } }] }, signal);
      if (typeof answer === 'object') {
        const input: RunGateInput = { run: runName, args, step: index, toolCallIds: ids };
        const pending = { requestId: answer.deferred, toolCallId, toolName: RUN_GATE_TOOL, input, toolCall: card(runName, step, args, toolCallId) };
        session.pendingPermissions.set(pending.requestId, pending);
        deps.observer?.deferred?.(pending);
        return 'waiting';
      }
      if (answer === 'cancelled' || signal.aborted) break;
      if (answer === 'reject') return declined(session, runName, run, ids, index);
    }
    const outcome = await runStep(session, runName, step, args, toolCallId, deps, signal);
    if (!outcome.ok) {
      for (const id of ids.slice(index + 1)) await closeNotRun(session, id, `Not run: step "${step.name}" failed.`);
      const recovered: string[] = [];
      for (const recovery of run.onFailure ?? []) {
        if (signal.aborted) break;
        const id = `run_${randomUUID()}`;
        await session.updates.emit({ sessionUpdate: 'tool_call', ...card(runName, recovery, args, id), title: `${runName} / on failure: ${recovery.name}` });
        const result = await runStep(session, runName, recovery, args, id, deps, signal);
        recovered.push(`${recovery.name} ${result.ok ? 'passed' : `failed (${result.why})`}`);
      }
      if (signal.aborted) return 'cancelled';
      await finish(session, runName, `Run "${runName}" failed at step "${step.name}" (${outcome.why}); ${index} of ${run.steps.length} steps passed.${recovered.length ? ` On failure: ${recovered.join('; ')}.` : ''}`);
      return 'end_turn';
    }
  }
  if (signal.aborted) {
    for (const id of ids) await session.updates.emit({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'failed' });
    return 'cancelled';
  }
  await finish(session, runName, `Run "${runName}" passed: all ${run.steps.length} steps succeeded.`);
  return 'end_turn';
}

async function runStep(session: Session, runName: string, step: RunStep, args: string[], toolCallId: string, deps: RunDeps, signal: AbortSignal): Promise<{ ok: true } | { ok: false; why: string }> {
  const fail = async (why: string) => {
    await closeNotRun(session, toolCallId, why);
    return { ok: false as const, why };
  };
  const cwd = await stepCwd(session.root, step);
  if (typeof cwd !== 'string') return fail(cwd.error);
  const argv = expand(step, args);
  // Checked again as it runs: the workspace (a symlinked cwd, a planted program) may have changed since the plan.
  const denied = await deniedBecause(step, argv, cwd, deps);
  if (denied) return fail(`The policy denies this command (${denied}), so it was not run.`);
  if (deps.beforeChange) {
    try {
      await deps.beforeChange(`${runName} / ${step.name}`);
    } catch (error) {
      return fail(`Could not record the state before this step, so it was not run: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  await session.updates.emit({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
  await say(session, `\n$ ${argv.join(' ')}\n`);
  let streamed = Promise.resolve();
  let outcome;
  try {
    outcome = await deps.commands.run(argv, {
      cwd,
      envChanges: step.env ?? {},
      timeoutMs: (step.timeoutSeconds ?? 0) * 1000 || DEFAULT_STEP_TIMEOUT_MS,
      signal,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      onOutput: (chunk) => {
        streamed = streamed.then(() => say(session, chunk));
      },
    });
  } catch (error) {
    await streamed;
    return fail(`Could not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  await streamed;
  const why = outcome.timedOut ? 'timed out' : outcome.exitCode === 0 ? undefined : outcome.exitCode === null ? `killed by ${outcome.signal}` : `exit code ${outcome.exitCode}`;
  const tail = outcome.output.slice(-8_000);
  await session.updates.emit({
    sessionUpdate: 'tool_call_update',
    toolCallId,
    status: why || signal.aborted ? 'failed' : 'completed',
    content: [{ type: 'content', content: { type: 'text', text: `${tail}${why ? `\n(${why})` : ''}` } }],
    rawOutput: { exitCode: outcome.exitCode, signal: outcome.signal, timedOut: outcome.timedOut, truncated: outcome.truncated },
  });
  deps.observer?.toolIo({ toolCallId, toolName: RUN_GATE_TOOL, input: { run: runName, step: step.name, argv }, output: tail, isError: why !== undefined });
  if (signal.aborted) return { ok: false, why: 'cancelled' };
  return why ? { ok: false, why } : { ok: true };
}
