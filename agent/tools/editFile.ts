// edit_file: replace an exact piece of text. The effect carries the whole old
// and new file so the person approves exactly what will be written.
import { z } from 'zod';
import { once } from '../core/once';
import { resolveWritable } from '../workspace/containment';
import { applyFileChanges } from './applyChanges';
import { errorEffect, locate, shown, ToolInputError } from './results';
import { readForEdit } from './textFiles';
import type { Tool } from './tool';
import { inputJsonSchemas } from './inputSchemas.gen';

const input = once(() =>
  z.object({
    path: z.string().describe('File to edit, relative to the workspace root.'),
    old_string: z.string().describe('The exact text to replace, including whitespace and indentation. Must occur exactly once unless replace_all is set.'),
    new_string: z.string().describe('The text to put in its place.'),
    replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one.'),
  }),
);
type Input = z.infer<ReturnType<typeof input>>;

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/**
 * Models write "\n"; a CRLF file would then never match. When the LF text is
 * absent but its CRLF form is present, edit in the file's own line endings.
 */
function matchLineEndings(text: string, find: string, replace: string): { find: string; replace: string } {
  if (find.includes('\r') || !find.includes('\n') || !text.includes('\r\n') || text.includes(find)) return { find, replace };
  const crlf = (value: string) => value.replace(/\r?\n/g, '\r\n');
  return text.includes(crlf(find)) ? { find: crlf(find), replace: crlf(replace) } : { find, replace };
}

export const editFile: Tool<Input> = {
  name: 'edit_file',
  kind: 'edit',
  description:
    'Edit a text file by replacing old_string with new_string exactly (no regex, whitespace matters). ' +
    'old_string must appear exactly once; include surrounding lines to make it unique, or set replace_all. ' +
    'Read the file first. To create a file or replace all of it, use write_file.',
  get input() {
    return input();
  },
  inputJsonSchema: inputJsonSchemas.edit_file,
  describe(call, { root }) {
    return { title: `Edit ${call.path}`, locations: [{ path: locate(root, call.path) }] };
  },
  async effect(call, ctx) {
    try {
      const absolute = await resolveWritable(ctx.root, call.path);
      const name = shown(ctx.root, absolute);
      if (call.old_string === '') throw new ToolInputError('old_string is empty. To create a file or replace its whole content, use write_file.');
      if (call.old_string === call.new_string) throw new ToolInputError('old_string and new_string are identical; there is nothing to change.');
      const oldText = await readForEdit(ctx.root, absolute);
      if (oldText === null) throw new ToolInputError(`${name} does not exist. Use write_file to create it, or list_files to find the right path.`);
      const { find, replace } = matchLineEndings(oldText, call.old_string, call.new_string);
      const matches = countOccurrences(oldText, find);
      if (matches === 0) {
        throw new ToolInputError(`old_string was not found in ${name}. Read the file again and copy the exact text, including whitespace and indentation.`);
      }
      if (matches > 1 && !call.replace_all) {
        throw new ToolInputError(`old_string occurs ${matches} times in ${name}. Include more surrounding lines so it matches exactly once, or set replace_all to change all ${matches}.`);
      }
      const newText = oldText.split(find).join(replace);
      return { type: 'files', changes: [{ path: absolute, oldText, newText }] };
    } catch (error) {
      return errorEffect(error);
    }
  },
  async run(_call, ctx, approved) {
    return applyFileChanges(ctx.root, approved, ctx.signal, (change) => `Edited ${shown(ctx.root, change.path)}.`);
  },
};

