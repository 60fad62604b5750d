// The built-in tools' input schemas as JSON Schema, made from their zod
// schemas the way turn.ts `modelTools` converts a tool without a JSON form:
// what agent/tools/inputSchemas.gen.ts must hold (scripts/toolSchemas.mts
// writes it, test/unit/tools/inputSchemas.test.ts checks it).
import { z } from 'zod';
import { taskTool } from '../../agent/core/children';
import { Session } from '../../agent/core/session';
import type { Tool } from '../../agent/tools/tool';
import { builtinTools } from '../../agent/tools/index';

/** Every tool a model is offered with a generated schema: the built-ins and `task`. */
export function toolsWithGeneratedSchemas(): Tool<any>[] {
  const parent = new Session('schemas', '/', { model: undefined, reasoningEffort: 'medium' } as never);
  return [...builtinTools(), taskTool(parent, () => { throw new Error('not run'); }, { maxChildren: 1 })];
}

export function generatedInputSchemas(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(toolsWithGeneratedSchemas().map((tool) => [tool.name, z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>]));
}
