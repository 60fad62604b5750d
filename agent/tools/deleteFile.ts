// delete_file: remove one file. The effect carries its whole text so the
// person sees what is lost; run deletes only if the file still holds it.
import { unlink } from 'node:fs/promises';
import { z } from 'zod';
import { once } from '../core/once';
import { resolveWritable } from '../workspace/containment';
import { diffContent } from './applyChanges';
import { errorEffect, errorResult, failure, locate, shown, success, ToolInputError } from './results';
import { changedSinceApproval, readForDelete } from './textFiles';
import type { Tool } from './tool';
import { inputJsonSchemas } from './inputSchemas.gen';

const input = once(() =>
  z.object({
    path: z.string().describe('File to delete, relative to the workspace root. Directories are not deleted.'),
  }),
);
type Input = z.infer<ReturnType<typeof input>>;

export const deleteFile: Tool<Input> = {
  name: 'delete_file',
  kind: 'delete',
  description: 'Delete one text file from the workspace. Does not delete directories.',
  get input() {
    return input();
  },
  inputJsonSchema: inputJsonSchemas.delete_file,
  describe(call, { root }) {
    return { title: `Delete ${call.path}`, locations: [{ path: locate(root, call.path) }] };
  },
  async effect(call, ctx) {
    try {
      const absolute = await resolveWritable(ctx.root, call.path);
      const oldText = await readForDelete(ctx.root, absolute);
      if (oldText === null) throw new ToolInputError(`${shown(ctx.root, absolute)} does not exist; nothing to delete.`);
      return { type: 'files', changes: [{ path: absolute, oldText, newText: null }] };
    } catch (error) {
      return errorEffect(error);
    }
  },
  async run(_call, ctx, approved) {
    if (approved.type === 'error') return failure(approved.message);
    const change = approved.type === 'files' && approved.changes.length === 1 ? approved.changes[0] : undefined;
    if (!change || change.newText !== null || change.movedTo !== undefined) return failure('This call was not approved as a deletion, so nothing was deleted.');
    try {
      const name = shown(ctx.root, change.path);
      if ((await resolveWritable(ctx.root, change.path)) !== change.path) throw changedSinceApproval(name);
      if ((await readForDelete(ctx.root, change.path)) !== change.oldText) throw changedSinceApproval(name);
      await unlink(change.path);
      return success(`Deleted ${name}.`, [diffContent(change)]);
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      return errorResult(error);
    }
  },
};
