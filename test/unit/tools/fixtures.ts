// Real temp directories and a real ToolContext for tool tests.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PlanEntry, Tool, ToolContext, ToolResult } from '../../../agent/tools/tool';
import { ProcessRunner } from '../../../agent/exec/processRunner';

export interface Sandbox {
  /** Parent temp dir; `root` is the workspace inside it and `outside` a sibling outside it. */
  base: string;
  root: string;
  outside: string;
  cleanup(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), 'accord-tools-')));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(root);
  await mkdir(outside);
  return { base, root, outside, cleanup: () => rm(base, { recursive: true, force: true }) };
}

export interface Recorded {
  ctx: ToolContext;
  progress: string[];
  plans: PlanEntry[][];
  controller: AbortController;
}

export function context(root: string): Recorded {
  const controller = new AbortController();
  const progress: string[] = [];
  const plans: PlanEntry[][] = [];
  const ctx: ToolContext = {
    root,
    signal: controller.signal,
    commands: new ProcessRunner(),
    progress: (text) => progress.push(text),
    setPlan: (entries) => plans.push(entries),
  };
  return { ctx, progress, plans, controller };
}

/** What the turn loop does: parse input, compute the effect, "approve" it, run. */
export async function call<I>(tool: Tool<I>, rawInput: unknown, ctx: ToolContext): Promise<ToolResult> {
  const input = tool.input.parse(rawInput);
  tool.describe(input, ctx);
  const effect = await tool.effect(input, ctx);
  return tool.run(input, ctx, effect);
}
