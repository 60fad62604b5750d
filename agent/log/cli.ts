// `accord sessions list|remove`: the sessions on this machine, from the
// terminal. Removing is only offered here (never over ACP) and asks first.
import { createInterface } from 'node:readline';
import { removeUnfinished, removeWorkspace, workspaceFromRecord, type IsolatedWorkspace } from '../session/isolated';
import { LogError } from './errors';
import type { SessionSummary } from './listing';
import { SessionStore } from './store';

export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Whether a person can answer the confirmation question. */
  interactive: boolean;
  dataDir: string;
  /** Sessions live in a running daemon right now, by id (none when no daemon answers). */
  liveState?: () => Promise<Map<string, LiveState>>;
}

export interface LiveState {
  turnRunning: boolean;
  clients: number;
  pendingPermissions: number;
}

const USAGE = `usage:
  accord sessions list [--cwd DIR] [--json]   the sessions, most recently updated first
  accord sessions remove ID [--yes]           delete a session's log and its workspace copy (asks first unless --yes)
`;

/** Runs `accord sessions …`; `argv` is what follows "sessions". Resolves to the exit code. */
export async function runSessionsCli(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  const full: CliIo = {
    stdin: io.stdin ?? process.stdin,
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    interactive: io.interactive ?? Boolean(process.stdin.isTTY && process.stdout.isTTY),
    dataDir: io.dataDir ?? new SessionStore().dataDir,
    ...(io.liveState ? { liveState: io.liveState } : {}),
  };
  const [command, ...rest] = argv;
  try {
    if (command === 'list') return await list(rest, full);
    if (command === 'remove') return await remove(rest, full);
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      full.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    }
    full.stderr.write(`accord sessions: unknown command "${command}".\n${USAGE}`);
    return 2;
  } catch (error) {
    if (!(error instanceof LogError)) throw error;
    full.stderr.write(`accord sessions: ${error.message}\n`);
    return 1;
  }
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { flags, values, positional, problem } = parseArgs(args, ['--json'], ['--cwd']);
  if (problem) return usageError(io, problem);
  if (positional.length > 0) return usageError(io, `unexpected argument "${positional[0]}"`);
  const store = new SessionStore(io.dataDir);
  const sessions: SessionSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ cwd: values['--cwd'], cursor, limit: 200 });
    sessions.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor);
  const live = (await io.liveState?.().catch(() => undefined)) ?? new Map<string, LiveState>();
  if (flags.has('--json')) {
    io.stdout.write(`${JSON.stringify(sessions.map((s) => (live.has(s.sessionId) ? { ...s, live: live.get(s.sessionId) } : s)), null, 2)}\n`);
  } else if (sessions.length === 0) {
    io.stdout.write(`No sessions${values['--cwd'] ? ` for ${values['--cwd']}` : ''} (in ${store.dataDir}).\n`);
  } else {
    io.stdout.write(table(sessions, live));
  }
  return 0;
}

async function remove(args: string[], io: CliIo): Promise<number> {
  const { flags, positional, problem } = parseArgs(args, ['--yes', '-y'], []);
  if (problem) return usageError(io, problem);
  const [id, extra] = positional;
  if (!id || extra) return usageError(io, id ? `unexpected argument "${extra}"` : 'which session? Give its ID (see "accord sessions list")');
  const store = new SessionStore(io.dataDir);
  if (!(await store.exists(id))) throw new LogError('not_found', `No session ${id} (looked for ${store.pathOf(id)}).`);
  if (!flags.has('--yes') && !flags.has('-y')) {
    if (!io.interactive) {
      io.stderr.write(`accord sessions: not removing ${id} without confirmation (no terminal to ask on). Pass --yes to remove it.\n`);
      return 1;
    }
    const what = await describe(store, id);
    const answer = await ask(io, `Remove session ${what}?\nIts log and its copy of the project (with changes not applied) are deleted; this cannot be undone. [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.stdout.write('Kept.\n');
      return 1;
    }
  }
  const { workspace, unfinishedIn } = await recordedWorkspace(store, id);
  await store.remove(id);
  // The copy lives beside the log; removing it also unpins its base in the person's repository.
  if (workspace) await removeWorkspace(workspace, store.dataDir);
  // No finished copy named (or an unreadable log): whatever a making of one left goes too, the
  // base ref it may have pinned in the session's folder's repository included.
  else await removeUnfinished(id, store.dataDir, unfinishedIn);
  io.stdout.write(`Removed session ${id}.\n`);
  return 0;
}

/**
 * The workspace the log names, if it is readable: in its first record, or
 * (a log started before its copy was made) in its `workspace` record. A log
 * whose copy was being made and never recorded (the agent stopped mid-way)
 * names the folder it was made from instead, `unfinishedIn`.
 */
async function recordedWorkspace(store: SessionStore, id: string): Promise<{ workspace?: IsolatedWorkspace; unfinishedIn?: string }> {
  let unfinishedIn: string | undefined;
  try {
    let first = true;
    for await (const { record } of store.read(id)) {
      const recorded = (record as { workspace?: unknown }).workspace;
      if (first && record.type !== 'session_created') return {};
      if (first) {
        const { cwd } = record as { cwd?: unknown };
        const preparing = typeof recorded === 'object' && recorded !== null && (recorded as Record<string, unknown>).preparing === true;
        // An in-place session pins no base.
        if (preparing && (recorded as Record<string, unknown>).inPlace !== true && typeof cwd === 'string') unfinishedIn = cwd;
      }
      first = false;
      if ((record.type !== 'session_created' && record.type !== 'workspace') || typeof recorded !== 'object' || recorded === null) continue;
      if ((recorded as Record<string, unknown>).preparing === true) continue;
      const workspace = workspaceFromRecord(recorded as Record<string, unknown>);
      return workspace?.sessionId === id ? { workspace } : {};
    }
  } catch {
    // A log too damaged to read names no workspace; its folder is still removed.
  }
  return unfinishedIn === undefined ? {} : { unfinishedIn };
}

/** What the confirmation shows; a log too damaged to read can still be removed. */
async function describe(store: SessionStore, id: string): Promise<string> {
  try {
    const replay = await store.replay(id);
    return `${id}${replay.title ? ` "${replay.title}"` : ''}\n  in ${replay.cwd}, last updated ${shortDate(replay.updatedAt)}`;
  } catch (error) {
    if (error instanceof LogError && error.code === 'not_a_session_log') return `${id} (its log is not readable: ${error.message})`;
    throw error;
  }
}

/** One line from the person; end of input counts as no. */
async function ask(io: CliIo, question: string): Promise<string> {
  io.stdout.write(question);
  const rl = createInterface({ input: io.stdin, terminal: false });
  try {
    return await new Promise<string>((resolve) => {
      rl.once('line', resolve);
      rl.once('close', () => resolve(''));
    });
  } finally {
    rl.close();
  }
}

function table(sessions: SessionSummary[], live: Map<string, LiveState>): string {
  // The STATE column appears only while the daemon holds some of these sessions.
  const withState = sessions.some((s) => live.has(s.sessionId));
  const state = (id: string): string[] => {
    if (!withState) return [];
    const entry = live.get(id);
    if (!entry) return ['-'];
    const waiting = entry.pendingPermissions > 0 ? `, ${entry.pendingPermissions} approval(s) waiting` : '';
    return [`${entry.turnRunning ? 'running' : 'open'} (${entry.clients} client${entry.clients === 1 ? '' : 's'}${waiting})`];
  };
  const rows = [
    ['ID', ...(withState ? ['STATE'] : []), 'UPDATED', 'CWD', 'TITLE'],
    ...sessions.map((s) => [s.sessionId, ...state(s.sessionId), shortDate(s.updatedAt), s.cwd, s.title ?? '(no prompt yet)']),
  ];
  const last = rows[0]!.length - 1;
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  return rows.map((row) => row.map((cell, col) => (col < last ? cell.padEnd(widths[col]!) : cell)).join('  ')).join('\n') + '\n';
}

/** "2026-11-29 23:30Z": minute precision is enough to tell sessions apart, in UTC so it reads the same everywhere. */
function shortDate(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`;
}

interface ParsedArgs {
  flags: Set<string>;
  values: Record<string, string | undefined>;
  positional: string[];
  problem?: string;
}

function parseArgs(args: string[], booleans: string[], withValue: string[]): ParsedArgs {
  const parsed: ParsedArgs = { flags: new Set(), values: {}, positional: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (booleans.includes(arg)) parsed.flags.add(arg);
    else if (withValue.includes(name)) {
      const value = inline ?? args[++i];
      if (!value) parsed.problem ??= `${name} needs a value`;
      parsed.values[name] = value;
    } else if (arg.startsWith('-')) parsed.problem ??= `unknown option ${arg}`;
    else parsed.positional.push(arg);
  }
  return parsed;
}

function usageError(io: CliIo, message: string): number {
  io.stderr.write(`accord sessions: ${message}.\n${USAGE}`);
  return 2;
}
