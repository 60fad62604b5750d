// move_file: rename or move one file inside the workspace. It never replaces
// an existing destination unless asked, and then the effect shows the text
// that would be lost.
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { once } from '../core/once';
import { resolveWritable } from '../workspace/containment';
import { diffContent } from './applyChanges';
import { errorEffect, errorResult, failure, locate, shown, success, ToolInputError } from './results';
import { changedSinceApproval, readForDelete, readForEdit } from './textFiles';
import type { FileChange, Tool } from './tool';
import { inputJsonSchemas } from './inputSchemas.gen';

const input = once(() =>
  z.object({
    source: z.string().describe('File to move, relative to the workspace root.'),
    destination: z.string().describe('New path, relative to the workspace root. Missing parent directories are created.'),
    overwrite: z.boolean().optional().describe('Replace the destination if it already exists. Default false.'),
  }),
);
type Input = z.infer<ReturnType<typeof input>>;

export const moveFile: Tool<Input> = {
  name: 'move_file',
  kind: 'move',
  description: 'Move or rename one text file inside the workspace. Fails if the destination exists unless overwrite is true.',
  get input() {
    return input();
  },
  inputJsonSchema: inputJsonSchemas.move_file,
  describe(call, { root }) {
    return { title: `Move ${call.source} → ${call.destination}`, locations: [{ path: locate(root, call.source) }, { path: locate(root, call.destination) }] };
  },
  async effect(call, ctx) {
    try {
      const source = await resolveWritable(ctx.root, call.source);
      const destination = await resolveWritable(ctx.root, call.destination);
      if (source === destination) throw new ToolInputError('source and destination are the same file; nothing to move.');
      const text = await readForDelete(ctx.root, source);
      if (text === null) throw new ToolInputError(`${shown(ctx.root, source)} does not exist. Use list_files to find the right path.`);
      const replaced = await readForEdit(ctx.root, destination);
      const changes: FileChange[] = [{ path: source, oldText: text, newText: text, movedTo: destination }];
      if (replaced !== null) {
        if (!call.overwrite) {
          throw new ToolInputError(`${shown(ctx.root, destination)} already exists. Choose another destination, or set overwrite to replace it.`);
        }
        changes.push({ path: destination, oldText: replaced, newText: text });
      }
      return { type: 'files', changes };
    } catch (error) {
      return errorEffect(error);
    }
  },
  async run(_call, ctx, approved) {
    if (approved.type === 'error') return failure(approved.message);
    const [move, replaced, ...extra] = approved.type === 'files' ? approved.changes : [];
    if (!move?.movedTo || extra.length > 0 || (replaced && replaced.path !== move.movedTo)) {
      return failure('This call was not approved as a move, so nothing was moved.');
    }
    const source = move.path;
    const destination = move.movedTo;
    try {
      const sourceName = shown(ctx.root, source);
      const destinationName = shown(ctx.root, destination);
      if ((await resolveWritable(ctx.root, source)) !== source) throw changedSinceApproval(sourceName);
      if ((await resolveWritable(ctx.root, destination)) !== destination) throw changedSinceApproval(destinationName);
      if ((await readForDelete(ctx.root, source)) !== move.oldText) throw changedSinceApproval(sourceName);
      if ((await readForEdit(ctx.root, destination)) !== (replaced?.oldText ?? null)) throw changedSinceApproval(destinationName);
      await mkdir(path.dirname(destination), { recursive: true });
      await rename(source, destination);
      return success(`Moved ${sourceName} to ${destinationName}.`, [diffContent(move), ...(replaced ? [diffContent(replaced)] : [])]);
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      return errorResult(error);
    }
  },
};
