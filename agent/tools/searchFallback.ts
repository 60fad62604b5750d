// search without ripgrep: the same walk as list_files (.gitignore honoured,
// symlinks not followed) on the main thread, and a JavaScript regex per line
// in a worker thread (lineMatcher.ts) so a backtracking pattern stalls nothing else.
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { MAX_SCANNED_FILES, walkFiles } from './fileWalk';
import { BacktrackError, FILE_DEADLINE_MS, LineMatcher, type MatchFile } from './lineMatcher';
import { ToolInputError } from './results';
import { looksBinary } from './textFiles';
import type { SearchMatch, SearchOutcome, SearchQuery } from './searchTypes';

/** Files larger than this are skipped: a text search over them would stall the turn. */
const MAX_SEARCHED_BYTES = 4 * 1024 * 1024;
/**
 * Files go to the worker in batches of about this many characters (or files):
 * one round trip per file made a search of this repository 1.8 x slower than
 * in-thread, while a large batch reads files past the match limit for nothing.
 */
const BATCH_CHARS = 128 * 1024;
const BATCH_FILES = 64;

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

export async function searchWithJs(query: SearchQuery, signal: AbortSignal, deadlineMs = FILE_DEADLINE_MS): Promise<SearchOutcome> {
  const flags = query.caseInsensitive ? 'i' : '';
  compile(query.pattern, query.caseInsensitive); // a syntax error fails here, before any thread starts
  const matcher = new LineMatcher(query.pattern, flags, signal, deadlineMs);
  try {
    matcher.start();
    return await scan(query, signal, matcher);
  } finally {
    await matcher.close();
  }
}

async function scan(query: SearchQuery, signal: AbortSignal, matcher: LineMatcher): Promise<SearchOutcome> {
  const matches: SearchMatch[] = [];
  let batch: MatchFile[] = [];
  let batchChars = 0;
  /** Scans the batch; an outcome when the search ends here. */
  const flush = async (): Promise<SearchOutcome | undefined> => {
    const files = batch;
    batch = [];
    batchChars = 0;
    let more = false;
    const take = (file: number, found: number[]): void => {
      if (more || found.length === 0) return;
      const { path: shown, text } = files[file]!;
      const lines = text.split(/\r?\n/);
      for (const index of found) {
        if (matches.length === query.maxMatches) {
          more = true;
          return;
        }
        matches.push({ path: shown, line: index + 1, text: lines[index]! });
      }
    };
    try {
      // One more than still fits, to tell "exactly full" from "more exist".
      await matcher.match(files, query.maxMatches - matches.length + 1, take);
    } catch (error) {
      // What the files before the stall matched is still true; without any, the stop is the answer.
      if (error instanceof BacktrackError && matches.length > 0) return { matches, more: false, incomplete: `stopped early: ${error.detail}` };
      throw error;
    }
    return more ? { matches, more: true } : undefined;
  };
  let scanned = 0;
  for await (const file of candidates(query, signal)) {
    if (++scanned > MAX_SCANNED_FILES) {
      return (await flush()) ?? { matches, more: false, incomplete: `stopped after looking at ${MAX_SCANNED_FILES} files; search a narrower path or glob` };
    }
    let text: string | null;
    try {
      text = await readSmallText(path.join(query.root, file));
    } catch {
      continue; // vanished or unreadable: skip, as ripgrep does
    }
    if (text === null) continue;
    batch.push({ path: file, text });
    batchChars += text.length;
    if (batchChars >= BATCH_CHARS || batch.length >= BATCH_FILES) {
      const outcome = await flush();
      if (outcome) return outcome;
    }
  }
  return (await flush()) ?? { matches, more: false };
}
