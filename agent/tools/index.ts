// The built-in tools, in the order the model sees them.
import { deleteFile } from './deleteFile';
import { editFile } from './editFile';
import { listFiles } from './listFiles';
import { moveFile } from './moveFile';
import { plan } from './plan';
import { readFile } from './readFile';
import { runCommand } from './runCommand';
import { search } from './search';
import type { Tool } from './tool';
import { writeFile } from './writeFile';

export function builtinTools(): Tool[] {
  return [readFile, listFiles, search, editFile, writeFile, deleteFile, moveFile, runCommand, plan];
}
