// plan: the model's task list. Kind `think`: ACP's kind for internal
// reasoning and planning; it touches nothing, so it never needs approval.
import { z } from 'zod';
import { once } from '../core/once';
import { failure, success } from './results';
import type { Tool } from './tool';
import { inputJsonSchemas } from './inputSchemas.gen';

const entry = once(() =>
  z.object({
    content: z.string().min(1).describe('What this step does, in a short sentence.'),
    priority: z.enum(['high', 'medium', 'low']),
    status: z.enum(['pending', 'in_progress', 'completed']),
  }),
);

const input = once(() =>
  z.object({
    entries: z.array(entry()).describe('The whole plan, in order. Every call replaces the previous plan.'),
  }),
);
type Input = z.infer<ReturnType<typeof input>>;

export const plan: Tool<Input> = {
  name: 'plan',
  kind: 'think',
  description:
    'Record or update your plan for a multi-step task so the person can follow progress. Send the whole list every time; ' +
    'mark one step in_progress while you work on it and completed when done.',
  get input() {
    return input();
  },
  inputJsonSchema: inputJsonSchemas.plan,
  describe(call) {
    const current = call.entries.find((item) => item.status === 'in_progress');
    return { title: current ? `Plan: ${current.content}` : `Plan (${call.entries.length} steps)`, locations: [] };
  },
  async effect() {
    return { type: 'plan' };
  },
  async run(call, ctx, approved) {
    if (approved.type === 'error') return failure(approved.message);
    ctx.setPlan(call.entries.map(({ content, priority, status }) => ({ content, priority, status })));
    const done = call.entries.filter((item) => item.status === 'completed').length;
    return success(`Plan updated: ${call.entries.length} steps, ${done} completed.`);
  },
};
