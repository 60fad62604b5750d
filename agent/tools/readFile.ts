// read_file: a text file's lines, numbered, within size caps so one call can
// never flood the model's context.
import { open, stat } from 'node:fs/promises';
import { z } from 'zod';
import { once } from '../core/once';
import { resolveInside } from '../workspace/containment';
import { errorResult, failure, locate, shown, success, ToolInputError } from './results';
import { readLines } from './lineReader';
import { looksBinary } from './textFiles';
import type { Tool } from './tool';
import { inputJsonSchemas } from './inputSchemas.gen';

/** Files larger than this must be read with offset/limit. */
export const WHOLE_READ_MAX_BYTES = 2 * 1024 * 1024;
const DEFAULT_LINES = 2000;
const MAX_LINE_CHARS = 2000;
const MAX_OUTPUT_CHARS = 100_000;

const input = once(() =>
  z.object({
    path: z.string().describe('File path, relative to the workspace root (or absolute inside it).'),
    offset: z.number().int().min(1).optional().describe('First line to read, 1-based. Default 1.'),
    limit: z.number().int().min(1).optional().describe(`How many lines to read. Default ${DEFAULT_LINES}.`),
  }),
);
type Input = z.infer<ReturnType<typeof input>>;

export const readFile: Tool<Input> = {
  name: 'read_file',
  kind: 'read',
  description:
    `Read a text file from the workspace. Returns numbered lines ("  12\\tcode"); the numbers are not part of the file. ` +
    `Reads up to ${DEFAULT_LINES} lines from offset (1-based); use offset/limit to page through long files. ` +
    `Files over ${WHOLE_READ_MAX_BYTES / 1024 / 1024} MB need offset/limit. Binary files are refused.`,
  get input() {
    return input();
  },
  inputJsonSchema: inputJsonSchemas.read_file,
  describe(call, { root }) {
    const location = { path: locate(root, call.path), ...(call.offset ? { line: call.offset } : {}) };
    return { title: `Read ${call.path}${call.offset ? `:${call.offset}` : ''}`, locations: [location] };
  },
  async effect() {
    return { type: 'none' };
  },
  async run(call, ctx) {
    try {
      const absolute = await resolveInside(ctx.root, call.path);
      const name = shown(ctx.root, absolute);
      const info = await stat(absolute).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') throw new ToolInputError(`${name} does not exist. Use list_files or search to find the right path.`);
        throw error;
      });
      if (info.isDirectory()) return failure(`${name} is a directory. Use list_files to see what it contains.`);
      if (!info.isFile()) return failure(`${name} is not a regular file.`);
      if (info.size > WHOLE_READ_MAX_BYTES && call.offset === undefined && call.limit === undefined) {
        return failure(`${name} is ${info.size} bytes, too large to read whole. Read a part with offset and limit (e.g. offset=1, limit=500), or use search to find the lines you need.`);
      }
      if (await startsBinary(absolute)) return failure(`${name} is a binary file (${info.size} bytes); read_file only shows text.`);
      const text = await numberedLines(absolute, call.offset ?? 1, call.limit ?? DEFAULT_LINES, ctx.signal);
      return success(text.forModel, [{ type: 'text', text: `${name}: ${text.summary}` }]);
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      return errorResult(error);
    }
  },
};

async function startsBinary(absolute: string): Promise<boolean> {
  const handle = await open(absolute, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8192), 0, 8192, 0);
    return looksBinary(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

async function numberedLines(absolute: string, offset: number, limit: number, signal: AbortSignal): Promise<{ forModel: string; summary: string }> {
  const out: string[] = [];
  const notes: string[] = [];
  let lineNo = 0;
  let chars = 0;
  let stoppedAt: number | null = null;
  for await (const line of readLines(absolute, MAX_LINE_CHARS, signal)) {
    lineNo += 1;
    if (lineNo < offset) continue;
    if (lineNo >= offset + limit || chars > MAX_OUTPUT_CHARS) {
      stoppedAt = lineNo;
      if (chars > MAX_OUTPUT_CHARS) notes.push(`output capped at ${MAX_OUTPUT_CHARS} characters`);
      break;
    }
    const clipped = line.length > line.text.length ? `${line.text}… [line cut: ${line.length} characters]` : line.text;
    const numbered = `${String(lineNo).padStart(6)}\t${clipped}`;
    out.push(numbered);
    chars += numbered.length + 1;
  }
  if (lineNo === 0) return { forModel: '(empty file)', summary: 'empty file' };
  if (out.length === 0) {
    return { forModel: `The file has ${lineNo} lines; offset ${offset} is past the end.`, summary: `offset ${offset} past end (${lineNo} lines)` };
  }
  const last = offset + out.length - 1;
  const range = stoppedAt === null ? `lines ${offset}-${last} of ${lineNo}` : `lines ${offset}-${last}; more follow`;
  if (stoppedAt !== null) notes.push(`continue with offset=${last + 1}`);
  const footer = notes.length ? `\n[${range}: ${notes.join('; ')}]` : offset > 1 || stoppedAt !== null ? `\n[${range}]` : '';
  return { forModel: out.join('\n') + footer, summary: range };
}
