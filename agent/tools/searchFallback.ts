// search without ripgrep: the same walk as list_files (.gitignore honoured,
// symlinks not followed) and a JavaScript regex per line.
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { MAX_SCANNED_FILES, walkFiles } from './fileWalk';
import { ToolInputError } from './results';
import { looksBinary } from './textFiles';
import type { SearchMatch, SearchOutcome, SearchQuery } from './searchTypes';

/** Files larger than this are skipped: a text search over them would stall the turn. */
const MAX_SEARCHED_BYTES = 4 * 1024 * 1024;

function compile(pattern: string, caseInsensitive: boolean): RegExp {
  try {
    return new RegExp(pattern, caseInsensitive ? 'i' : '');
  } catch (error) {
    throw new ToolInputError(`search failed: the pattern is not a valid regular expression (${(error as Error).message}).`);
  }
}

async function* candidates(query: SearchQuery, signal: AbortSignal): AsyncGenerator<string> {
  const target = path.join(query.root, query.target);
  const info = await stat(target);
  if (info.isFile()) {
    const file = path.relative(query.root, target).split(path.sep).join('/');
    if (!query.hidden?.(file)) yield file;
    return;
  }
  const matchesGlob = query.glob ? picomatch(query.glob, { dot: true, basename: !query.glob.includes('/') }) : () => true;
  for await (const file of walkFiles(query.root, target, signal)) if (matchesGlob(file) && !query.hidden?.(file)) yield file;
}

async function readSmallText(absolute: string): Promise<string | null> {
  const handle = await open(absolute, 'r');
  try {
    const info = await handle.stat();
    if (info.size > MAX_SEARCHED_BYTES) return null;
    const bytes = await handle.readFile();
    return looksBinary(bytes) ? null : bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}

export async function searchWithJs(query: SearchQuery, signal: AbortSignal): Promise<SearchOutcome> {
  const regex = compile(query.pattern, query.caseInsensitive);
  const matches: SearchMatch[] = [];
  let scanned = 0;
  for await (const file of candidates(query, signal)) {
    if (++scanned > MAX_SCANNED_FILES) {
      return { matches, more: false, incomplete: `stopped after looking at ${MAX_SCANNED_FILES} files; search a narrower path or glob` };
    }
    let text: string | null;
    try {
      text = await readSmallText(path.join(query.root, file));
    } catch {
      continue; // vanished or unreadable: skip, as ripgrep does
    }
    if (text === null) continue;
    const lines = text.split(/\r?\n/);
    for (let index = 0; index < lines.length; index += 1) {
      if (!regex.test(lines[index]!)) continue;
      if (matches.length === query.maxMatches) return { matches, more: true };
      matches.push({ path: file, line: index + 1, text: lines[index]! });
    }
  }
  return { matches, more: false };
}
