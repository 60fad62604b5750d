// search: lines matching a regular expression across the workspace, through
// ripgrep when it is installed and a JavaScript walk otherwise.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { once } from '../core/once';
import { resolveInside } from '../workspace/containment';
import { costlyGlobReason, MAX_TOOL_GLOB_STARS } from '../workspace/globCost';
import { errorResult, failure, locate, shown, success } from './results';
import { findRipgrep, searchWithRipgrep } from './ripgrep';
import { searchWithJs } from './searchFallback';
import type { SearchMatch } from './searchTypes';
import type { Tool } from './tool';
import { inputJsonSchemas } from './inputSchemas.gen';

const DEFAULT_MATCHES = 100;
const MAX_MATCHES = 500;
const MAX_LINE_CHARS = 300;

const input = once(() =>
  z.object({
    pattern: z.string().min(1).describe('Regular expression to look for in each line, e.g. "function\\s+load" or "TODO" (ripgrep syntax: no look-around or backreferences).'),
    path: z.string().optional().describe('File or directory to search, relative to the workspace root. Default: the whole workspace.'),
    glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.py".'),
    case_insensitive: z.boolean().optional().describe('Ignore case. Default false.'),
    max_results: z.number().int().min(1).max(MAX_MATCHES).optional().describe(`Most matches to return. Default ${DEFAULT_MATCHES}.`),
  }),
);
type Input = z.infer<ReturnType<typeof input>>;

export interface SearchToolOptions {
  /**
   * Path to ripgrep, false to always use the JavaScript search, or undefined
   * to look for `rg` on PATH (unless ACCORD_SEARCH_NO_RIPGREP=1).
   */
  ripgrep?: string | false;
}

function format(matches: SearchMatch[]): string {
  return matches
    .map(({ path: file, line, text }) => `${file}:${line}: ${text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text}`)
    .join('\n');
}

export function createSearchTool(options: SearchToolOptions = {}): Tool<Input> {
  let ripgrep: Promise<string | null> | undefined;
  const engine = (): Promise<string | null> => {
    if (options.ripgrep !== undefined) return Promise.resolve(options.ripgrep || null);
    if (process.env.ACCORD_SEARCH_NO_RIPGREP === '1') return Promise.resolve(null);
    ripgrep ??= findRipgrep();
    return ripgrep;
  };
  return {
    name: 'search',
    kind: 'search',
    description:
      'Search file contents in the workspace for a regular expression; returns "path:line: text" for each matching line. ' +
      'Files ignored by .gitignore are skipped. Use glob to limit file types and path to limit the directory.',
    get input() {
      return input();
    },
    inputJsonSchema: inputJsonSchemas.search,
    describe(call, { root }) {
      return { title: `Search ${JSON.stringify(call.pattern)}${call.path ? ` in ${call.path}` : ''}${call.glob ? ` (${call.glob})` : ''}`, locations: [{ path: locate(root, call.path ?? '.') }] };
    },
    async effect() {
      return { type: 'none' };
    },
    async run(call, ctx) {
      try {
        const costly = call.glob ? costlyGlobReason(call.glob, MAX_TOOL_GLOB_STARS) : undefined;
        if (costly) return failure(`The glob ${JSON.stringify(call.glob)} is not supported: ${costly}. Use a simpler one.`);
        const target = await resolveInside(ctx.root, call.path ?? '.');
        if (!(await stat(target).catch(() => null))) return failure(`${shown(ctx.root, target)} does not exist. Use list_files to find the right path.`);
        // Files a policy rule keeps from the model stay out of the results, whichever folder was searched.
        const hiddenFiles = new Map<string, boolean>();
        const hidden = ctx.hidden
          ? (relative: string) => {
              let known = hiddenFiles.get(relative);
              if (known === undefined) hiddenFiles.set(relative, (known = ctx.hidden!(path.join(ctx.root, relative)) !== undefined));
              return known;
            }
          : undefined;
        const query = {
          root: ctx.root,
          ...(hidden ? { hidden } : {}),
          target: path.relative(ctx.root, target) || '.',
          pattern: call.pattern,
          ...(call.glob ? { glob: call.glob } : {}),
          caseInsensitive: call.case_insensitive ?? false,
          maxMatches: call.max_results ?? DEFAULT_MATCHES,
        };
        const rg = await engine();
        const { matches, more, incomplete } = rg ? await searchWithRipgrep(rg, query, ctx.signal) : await searchWithJs(query, ctx.signal);
        const hiddenCount = [...hiddenFiles.values()].filter(Boolean).length;
        const policyNote = hiddenCount > 0 ? `\n[${hiddenCount} file${hiddenCount === 1 ? '' : 's'} left out: the project policy keeps ${hiddenCount === 1 ? 'it' : 'them'} from searches.]` : '';
        if (matches.length === 0) return success(`No matches for ${JSON.stringify(call.pattern)}${incomplete ? ` (${incomplete})` : ''}.${policyNote}`);
        const files = new Set(matches.map((match) => match.path)).size;
        const capped = more ? `showing the first ${matches.length} matches; more exist. Narrow the pattern, path or glob, or raise max_results (up to ${MAX_MATCHES})` : null;
        const note = capped ?? incomplete ? `\n[${capped ?? incomplete}.]` : '';
        return success(format(matches) + note + policyNote, [{ type: 'text', text: `${matches.length}${more ? '+' : ''} matches in ${files} files` }]);
      } catch (error) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        return errorResult(error);
      }
    },
  };
}

export const search = createSearchTool();
