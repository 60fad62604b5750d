// Turns a permission request's tool call into the whole effect a person
// approves: the command (argv, cwd, env changes) or the files and their
// proposed text. Agents describe effects differently, so this reads the
// common shapes and falls back to the raw input. Pure: no vscode import.
import type { ToolCallUpdate } from '@agentclientprotocol/sdk/unstable';
import { agentLiteral } from '../text/agentText';

export interface ProposedFile {
  path: string;
  /** null: the file does not exist yet. */
  oldText: string | null;
  newText: string;
}

export interface CommandDetail {
  argv: string[];
  /** A shell line, when the agent sent one string instead of argv. */
  line?: string;
  cwd?: string;
  env: Record<string, string>;
}

export interface EffectSummary {
  title: string;
  kind: string;
  command?: CommandDetail;
  files: ProposedFile[];
  /** Paths the call touches that have no proposed text (e.g. a delete or a read). */
  locations: string[];
  /** Multi-line text for the dialog's detail. */
  detail: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined);

/** Accord's bundled agent puts its computed effect under this `_meta` key. */
export const EFFECT_META_KEY = 'accord.dev/effect';

function commandFrom(toolCall: ToolCallUpdate): CommandDetail | undefined {
  const meta = isRecord(toolCall._meta) ? toolCall._meta[EFFECT_META_KEY] : undefined;
  if (isRecord(meta) && meta.type === 'command' && isRecord(meta.command)) {
    const c = meta.command;
    const argv = strings(c.argv);
    if (argv) return { argv, cwd: typeof c.cwd === 'string' ? c.cwd : undefined, env: envFrom(c.envChanges) };
  }
  const raw = toolCall.rawInput;
  if (!isRecord(raw)) return undefined;
  const cwd = typeof raw.cwd === 'string' ? raw.cwd : typeof raw.workdir === 'string' ? raw.workdir : undefined;
  const env = envFrom(raw.env ?? raw.envChanges);
  const argv = strings(raw.argv) ?? strings(raw.command);
  if (argv) return { argv, cwd, env };
  if (typeof raw.command === 'string') {
    const args = strings(raw.args) ?? [];
    return args.length > 0 ? { argv: [raw.command, ...args], cwd, env } : { argv: [], line: raw.command, cwd, env };
  }
  return undefined;
}

function envFrom(v: unknown): Record<string, string> {
  if (Array.isArray(v)) {
    const out: Record<string, string> = {};
    for (const e of v) if (isRecord(e) && typeof e.name === 'string' && typeof e.value === 'string') out[e.name] = e.value;
    return out;
  }
  if (!isRecord(v)) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function filesFrom(toolCall: ToolCallUpdate): ProposedFile[] {
  const files: ProposedFile[] = [];
  for (const c of toolCall.content ?? []) {
    if (c.type === 'diff') files.push({ path: c.path, oldText: c.oldText ?? null, newText: c.newText });
  }
  return files;
}

/** Quotes one argv element so the line reads unambiguously. */
export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function summarizeEffect(toolCall: ToolCallUpdate, fallbackTitle = 'The agent wants to use a tool'): EffectSummary {
  const title = toolCall.title ?? fallbackTitle;
  const kind = toolCall.kind ?? 'other';
  const command = commandFrom(toolCall);
  const files = filesFrom(toolCall);
  const filePaths = new Set(files.map((f) => f.path));
  const locations = (toolCall.locations ?? []).map((l) => l.path).filter((p) => !filePaths.has(p));
  // Every value here is the agent's: one line each (a newline in a path must not start a line that reads as Accord's),
  // escapes for invisible characters (extension/text/agentText.ts).
  const v = (s: string, max = 500) => agentLiteral(s, max);
  const lines: string[] = [];
  if (command) {
    lines.push(command.line !== undefined ? `Command (run by a shell): ${v(command.line, 2000)}` : `Command: ${command.argv.map((a) => quoteArg(v(a))).join(' ')}`);
    if (command.cwd) lines.push(`In: ${v(command.cwd)}`);
    for (const [k, val] of Object.entries(command.env)) lines.push(`Env: ${v(k, 100)}=${v(val)}`);
  }
  for (const f of files) lines.push(`${f.oldText === null ? 'Create' : 'Change'}: ${v(f.path)} (${describeChange(f)})`);
  for (const p of locations) lines.push(`Touches: ${v(p)}`);
  if (!command && files.length === 0 && toolCall.rawInput !== undefined) {
    lines.push(`Input: ${v(truncate(JSON.stringify(toolCall.rawInput) ?? String(toolCall.rawInput), 600), 700)}`);
  }
  if (lines.length === 0) lines.push('The agent did not describe what this call does.');
  return { title, kind, command, files, locations, detail: lines.join('\n') };
}

function describeChange(f: ProposedFile): string {
  const after = lineCount(f.newText);
  if (f.oldText === null) return `${after} ${after === 1 ? 'line' : 'lines'}`;
  return `${lineCount(f.oldText)} → ${after} lines`;
}

/** Lines as an editor numbers them: a final newline ends the last line rather than starting another. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
