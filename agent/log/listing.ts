// Lists sessions without replaying them. Each log is summarized once and the
// summary cached in sessions/index.json together with how far it was read;
// later listings read only bytes appended since (usually none: one stat per
// session). The cache is disposable: the logs stay the truth, a missing or
// stale entry is rebuilt, and a log that changed other than by appending is
// read again from the start.
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LogError } from './errors';
import { readLog } from './reader';
import { sessionsDir } from './paths';
import { titleFromPrompt } from './title';

export interface SessionSummary {
  sessionId: string;
  cwd: string;
  additionalDirectories: string[];
  title: string | undefined;
  createdAt: string;
  updatedAt: string;
  /** Bytes of the log. */
  size: number;
}

export interface ListOptions {
  /** Only sessions created in this directory. */
  cwd?: string;
  /** From a previous page's `nextCursor`. */
  cursor?: string;
  /** Page size (default 50). */
  limit?: number;
}

export interface SessionPage {
  /** Most recently updated first. */
  sessions: SessionSummary[];
  /** Absent on the last page. */
  nextCursor?: string;
}

interface CachedSummary {
  cwd: string;
  additionalDirectories: string[];
  createdAt: string;
  updatedAt: string;
  explicitTitle?: string;
  promptTitle?: string;
  /** Offset just past the last valid record read, and that record's seq. */
  readTo: number;
  lastSeq: number;
  mtimeMs: number;
  /** Inode: a log deleted and created again under the same id is a different file. */
  ino: number;
}

const INDEX_VERSION = 1;
const LOG_NAME = /^([A-Za-z0-9_-]{1,128})\.jsonl$/;

export async function listSessions(dataDir: string, options: ListOptions = {}): Promise<SessionPage> {
  const dir = sessionsDir(dataDir);
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const cache = await readIndex(dir);
  const fresh: Record<string, CachedSummary> = {};
  let changed = false;
  const summaries: SessionSummary[] = [];
  for (const name of names) {
    const id = LOG_NAME.exec(name)?.[1];
    if (!id) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info) continue; // removed while listing
    const cached = cache[id];
    const summary = await summarize(path, { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino }, cached);
    if (!summary) continue; // not (yet) a session log
    changed ||= summary !== cached;
    fresh[id] = summary;
    summaries.push(toSummary(id, summary, info.size));
  }
  changed ||= Object.keys(cache).length !== Object.keys(fresh).length;
  if (changed) await writeIndex(dir, fresh);
  return page(summaries, options);
}

interface FileState {
  size: number;
  mtimeMs: number;
  ino: number;
}

async function summarize(path: string, file: FileState, cached: CachedSummary | undefined): Promise<CachedSummary | undefined> {
  const same = cached !== undefined && cached.ino === file.ino;
  if (same && cached.readTo === file.size && cached.mtimeMs === file.mtimeMs) return cached;
  if (same && cached.readTo <= file.size) {
    const grown = await readFrom(path, { ...cached, mtimeMs: file.mtimeMs }, cached.readTo, file);
    if (grown) return grown;
  }
  return readFrom(path, undefined, 0, file);
}

/**
 * Folds records from `from` into `base`. Returns undefined when the log does
 * not continue `base` (its first record there is not seq lastSeq + 1), which
 * means it was rewritten and must be read from the start.
 */
async function readFrom(path: string, base: CachedSummary | undefined, from: number, file: FileState): Promise<CachedSummary | undefined> {
  let summary = base ? { ...base } : undefined;
  let first = true;
  try {
    for await (const { record, next, known } of readLog(path, { from })) {
      if (first && base && record.seq !== base.lastSeq + 1) return undefined;
      first = false;
      if (!summary) {
        if (!known || record.type !== 'session_created') return undefined;
        summary = { cwd: record.cwd, additionalDirectories: record.additionalDirectories ?? [], createdAt: record.ts, updatedAt: record.ts, readTo: 0, lastSeq: 0, mtimeMs: file.mtimeMs, ino: file.ino };
      }
      // A compact text chunk read without its first chunk has a relative ts ("+ms"); the records around it give the time.
      if (known || !record.ts.startsWith('+')) summary.updatedAt = record.ts;
      summary.readTo = next;
      summary.lastSeq = record.seq;
      if (known && record.type === 'title') summary.explicitTitle = record.title;
      if (known && record.type === 'user_prompt') summary.promptTitle ??= titleFromPrompt(record.prompt);
    }
  } catch (error) {
    if (error instanceof LogError && error.code === 'bad_offset') return undefined;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return summary;
}

function toSummary(sessionId: string, cached: CachedSummary, size: number): SessionSummary {
  return {
    sessionId,
    cwd: cached.cwd,
    additionalDirectories: cached.additionalDirectories,
    title: cached.explicitTitle ?? cached.promptTitle,
    createdAt: cached.createdAt,
    updatedAt: cached.updatedAt,
    size,
  };
}

/** Orders by updatedAt descending, then id; the cursor is the last item's key, so inserts never shift a page. */
function page(all: SessionSummary[], options: ListOptions): SessionPage {
  const cwd = options.cwd === undefined ? undefined : resolve(options.cwd);
  const limit = Math.max(1, options.limit ?? 50);
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
  const sorted = all
    .filter((s) => cwd === undefined || resolve(s.cwd) === cwd)
    .sort(compare)
    .filter((s) => after === undefined || compare(s, { updatedAt: after[0], sessionId: after[1] }) > 0);
  const sessions = sorted.slice(0, limit);
  const last = sessions.at(-1);
  return sorted.length > limit && last ? { sessions, nextCursor: encodeCursor(last) } : { sessions };
}

function compare(a: Pick<SessionSummary, 'updatedAt' | 'sessionId'>, b: Pick<SessionSummary, 'updatedAt' | 'sessionId'>): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}

function encodeCursor(s: SessionSummary): string {
  return Buffer.from(JSON.stringify([s.updatedAt, s.sessionId])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string')) return value as [string, string];
  } catch {
    // fall through
  }
  throw new LogError('bad_cursor', 'The session list cursor is not one this agent gave out; list again from the start.');
}

async function readIndex(dir: string): Promise<Record<string, CachedSummary>> {
  try {
    const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8')) as { version?: number; sessions?: Record<string, CachedSummary> };
    return index.version === INDEX_VERSION && index.sessions ? index.sessions : {};
  } catch {
    return {}; // missing or damaged: rebuilt from the logs
  }
}

/** Write-then-rename, so a reader never sees half an index; concurrent listers just race to the same content. */
async function writeIndex(dir: string, sessions: Record<string, CachedSummary>): Promise<void> {
  const temp = join(dir, `index.json.${process.pid}.tmp`);
  try {
    await writeFile(temp, JSON.stringify({ version: INDEX_VERSION, sessions }));
    await rename(temp, join(dir, 'index.json'));
  } catch {
    // A read-only or full disk must not break listing; the next listing retries.
  }
}
