// write_file: create a file or replace all of it. The effect shows the whole
// old text (null when the file is new) and the whole new text.
import { z } from 'zod';
import { once } from '../core/once';
import { resolveWritable } from '../workspace/containment';
import { applyFileChanges } from './applyChanges';
import { errorEffect, locate, shown } from './results';
import { readForEdit } from './textFiles';
import type { Tool } from './tool';
import { inputJsonSchemas } from './inputSchemas.gen';

const input = once(() =>
  z.object({
    path: z.string().describe('File to create or overwrite, relative to the workspace root. Missing parent directories are created.'),
    content: z.string().describe('The complete new content of the file.'),
  }),
);
type Input = z.infer<ReturnType<typeof input>>;

export const writeFile: Tool<Input> = {
  name: 'write_file',
  kind: 'edit',
  description:
    'Create a text file, or replace the whole content of an existing one. ' +
    'For changes to part of an existing file prefer edit_file, which is easier to review.',
  get input() {
    return input();
  },
  inputJsonSchema: inputJsonSchemas.write_file,
  describe(call, { root }) {
    return { title: `Write ${call.path}`, locations: [{ path: locate(root, call.path) }] };
  },
  async effect(call, ctx) {
    try {
      const absolute = await resolveWritable(ctx.root, call.path);
      const oldText = await readForEdit(ctx.root, absolute);
      if (oldText === call.content) return { type: 'error', message: `${shown(ctx.root, absolute)} already has exactly this content; nothing to change.` };
      return { type: 'files', changes: [{ path: absolute, oldText, newText: call.content }] };
    } catch (error) {
      return errorEffect(error);
    }
  },
  async run(_call, ctx, approved) {
    return applyFileChanges(ctx.root, approved, ctx.signal, (change) =>
      `${change.oldText === null ? 'Created' : 'Wrote'} ${shown(ctx.root, change.path)} (${change.newText?.split('\n').length ?? 0} lines).`,
    );
  },
};
