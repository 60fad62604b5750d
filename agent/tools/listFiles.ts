// list_files: the workspace's files matching a glob, as git would list them
// (ignored files left out), capped so a huge tree cannot flood the context.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { costlyGlobReason, MAX_TOOL_GLOB_STARS } from '../workspace/globCost';
import { z } from 'zod';
import { once } from '../core/once';
import { resolveInside } from '../workspace/containment';
import { MAX_SCANNED_FILES, walkFiles } from './fileWalk';
import { errorResult, failure, locate, shown, success } from './results';
import type { Tool } from './tool';
import { inputJsonSchemas } from './inputSchemas.gen';

export const MAX_LISTED_FILES = 1000;

const input = once(() =>
  z.object({
    pattern: z.string().optional().describe('Glob, e.g. "**/*.ts" or "src/**/test_*.py". A pattern without "/" matches file names at any depth ("*.md"). Default: every file.'),
    path: z.string().optional().describe('Directory to list, relative to the workspace root. Default: the root.'),
  }),
);
type Input = z.infer<ReturnType<typeof input>>;

export const listFiles: Tool<Input> = {
  name: 'list_files',
  kind: 'read',
  description:
    `List files in the workspace matching a glob, relative to the workspace root, sorted. ` +
    `Files ignored by .gitignore and the .git directory are left out. At most ${MAX_LISTED_FILES} paths are returned.`,
  get input() {
    return input();
  },
  inputJsonSchema: inputJsonSchemas.list_files,
  describe(call, { root }) {
    const where = call.path ?? '.';
    return { title: `List ${call.pattern ?? 'files'}${where === '.' ? '' : ` in ${where}`}`, locations: [{ path: locate(root, where) }] };
  },
  async effect() {
    return { type: 'none' };
  },
  async run(call, ctx) {
    try {
      const directory = await resolveInside(ctx.root, call.path ?? '.');
      const name = shown(ctx.root, directory);
      const info = await stat(directory).catch(() => null);
      if (!info) return failure(`${name} does not exist. List the parent directory to find the right path.`);
      if (!info.isDirectory()) return failure(`${name} is a file, not a directory. Use read_file to read it.`);
      const pattern = call.pattern?.trim() || '**';
      const costly = costlyGlobReason(pattern, MAX_TOOL_GLOB_STARS);
      if (costly) return failure(`The pattern ${JSON.stringify(pattern)} is not supported: ${costly}. Use a simpler glob, or search.`);
      const matches = picomatch(pattern, { dot: true, basename: !pattern.includes('/') });
      const base = path.relative(ctx.root, directory).split(path.sep).join('/');
      const found: string[] = [];
      let more = false;
      let scanned = 0;
      let scanCapped = false;
      let hidden = 0;
      for await (const file of walkFiles(ctx.root, directory, ctx.signal)) {
        if (++scanned > MAX_SCANNED_FILES) {
          scanCapped = true;
          break;
        }
        const local = base === '' ? file : file.slice(base.length + 1);
        if (!matches(local)) continue;
        // A file the policy keeps from the model is not named either.
        if (ctx.hidden?.(path.join(ctx.root, file)) !== undefined) {
          hidden += 1;
          continue;
        }
        if (found.length === MAX_LISTED_FILES) {
          more = true;
          break;
        }
        found.push(file);
      }
      found.sort();
      const policyNote = hidden > 0 ? `\n[${hidden} file${hidden === 1 ? '' : 's'} left out: the project policy keeps ${hidden === 1 ? 'it' : 'them'} from listings.]` : '';
      const stopped = scanCapped ? `stopped after looking at ${MAX_SCANNED_FILES} files; list a narrower path to see the rest` : null;
      if (found.length === 0) return success((stopped ? `No files match ${pattern} so far (${stopped}).` : `No files match ${pattern} in ${name}.`) + policyNote);
      const capped = more ? `showing the first ${MAX_LISTED_FILES} matches; more exist. Narrow the pattern or path` : null;
      const note = capped ?? stopped ? `\n[${capped ?? stopped}.]` : '';
      return success(found.join('\n') + note + policyNote, [{ type: 'text', text: `${found.length}${more ? '+' : ''} files` }]);
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      return errorResult(error);
    }
  },
};
