// The built-in tools, in the order the model sees them.
import { editFile } from './editFile';
import { readFile } from './readFile';
import type { Tool } from './tool';

export function builtinTools(): Tool[] {
  return [readFile, editFile];
}
