// Turns a permission request's tool call into the whole effect a person
// approves: the command (argv, cwd, env changes) or the files and their
// proposed text. Agents describe effects differently, so this reads the
// common shapes and falls back to the raw input. Pure: no vscode import.
import type { ToolCallUpdate } from '@agentclientprotocol/sdk/unstable';
import { agentLiteral } from '../text/agentText';
import { l10n } from '../text/l10n';

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

/** What Accord found out about a call beyond what the agent said, to tell the truth about the disk. */
export interface EffectFacts {
  /** Each diff path's text as it is now: `null` absent, a string its text; missing when it could not be read. */
  current?: ReadonlyMap<string, string | null>;
  /** The call as the session announced it before the request (a working folder may be there only). */
  announced?: ToolCallUpdate;
  /** Paths whose "before" could not be kept, and why: allowing the call would change them unreviewed. */
  unreviewable?: readonly { path: string; why: string }[];
}

/** A file's change as the dialog says it, after comparing the agent's claim with the disk. */
export interface FileEffect extends ProposedFile {
  /** What the agent itself said was there, when that differs from the disk. */
  claimedOldText?: string | null;
}

export function summarizeEffect(toolCall: ToolCallUpdate, fallbackTitle?: string, facts: EffectFacts = {}): EffectSummary {
  const title = toolCall.title ?? fallbackTitle ?? l10n.t('The agent wants to use a tool');
  const kind = toolCall.kind ?? 'other';
  const found = commandFrom(toolCall);
  const announcedCwd = facts.announced ? commandFrom(facts.announced)?.cwd : undefined;
  const command = found && !found.cwd && announcedCwd ? { ...found, cwd: announcedCwd } : found;
  const files = filesFrom(toolCall).map((f) => checkedAgainstDisk(f, facts.current));
  const filePaths = new Set(files.map((f) => f.path));
  const locations = (toolCall.locations ?? []).map((l) => l.path).filter((p) => !filePaths.has(p));
  // Every value here is the agent's: one line each (a newline in a path must not start a line that reads as Accord's),
  // escapes for invisible characters (extension/text/agentText.ts).
  const v = (s: string, max = 500) => agentLiteral(s, max);
  const lines: string[] = [];
  if (facts.unreviewable && facts.unreviewable.length > 0) {
    lines.push(l10n.t('This change could not be made reviewable; allow anyway?'));
    for (const u of facts.unreviewable) lines.push(l10n.t('Not kept: {0} ({1})', v(u.path), v(u.why)));
  }
  if (command) {
    lines.push(command.line !== undefined ? l10n.t('Command (run by a shell): {0}', v(command.line, 2000)) : l10n.t('Command: {0}', command.argv.map((a) => quoteArg(v(a))).join(' ')));
    lines.push(l10n.t('In: {0}', command.cwd !== undefined ? v(command.cwd) : l10n.t('unknown (the agent did not say which folder)')));
    for (const [k, val] of Object.entries(command.env)) lines.push(l10n.t('Env: {0}={1}', v(k, 100), v(val)));
  }
  for (const f of files) lines.push(describeFile(f, v));
  for (const p of locations) lines.push(l10n.t('Touches: {0}', v(p)));
  if (!command && files.length === 0) {
    const said = textContent(toolCall);
    if (said.length > 0) lines.push(...said.map((t) => l10n.t('Agent says: {0}', v(t, 600))));
    else if (toolCall.rawInput !== undefined) lines.push(l10n.t('Input: {0}', v(truncate(JSON.stringify(toolCall.rawInput) ?? String(toolCall.rawInput), 600), 700)));
  }
  if (lines.length === 0) lines.push(l10n.t('The agent did not describe what this call does.'));
  return { title, kind, command, files, locations, detail: lines.join('\n') };
}

/** The agent's diff with the disk's text as its old side; the agent's own claim kept when it differs. */
function checkedAgainstDisk(f: ProposedFile, current: EffectFacts['current']): FileEffect {
  if (!current?.has(f.path)) return f;
  const onDisk = current.get(f.path) ?? null;
  if (onDisk === f.oldText) return f;
  const whole = onDisk === null || f.oldText === null ? undefined : wholeFileOf(onDisk, f.oldText, f.newText);
  if (whole !== undefined) return { path: f.path, oldText: onDisk, newText: whole };
  return { path: f.path, oldText: onDisk, newText: f.newText, claimedOldText: f.oldText };
}

/**
 * claude-agent-acp's Edit sends its old_string/new_string as the diff (a
 * fragment, not the file): where the fragment is in the file exactly once,
 * the change is the file with it replaced. Anything else stays a claim that
 * differs from the disk.
 */
function wholeFileOf(onDisk: string, fragment: string, replacement: string): string | undefined {
  if (fragment === '') return undefined;
  const at = onDisk.indexOf(fragment);
  if (at < 0 || onDisk.indexOf(fragment, at + 1) >= 0) return undefined;
  // Sliced, not String.replace: the agent's text may hold `$&` and the like.
  return onDisk.slice(0, at) + replacement + onDisk.slice(at + fragment.length);
}

function describeFile(f: FileEffect, v: (s: string) => string): string {
  const after = lineCount(f.newText);
  if (f.oldText === null) {
    return f.claimedOldText !== undefined
      ? l10n.t('Create: {0} ({1}) (the agent thought it existed; it does not)', v(f.path), lineWord(after))
      : l10n.t('Create: {0} ({1})', v(f.path), lineWord(after));
  }
  const before = lineCount(f.oldText);
  if (f.claimedOldText === null) return l10n.t('Replace: {0} ({1} → {2}; it exists, though the agent described it as a new file)', v(f.path), lineWord(before), after);
  return f.claimedOldText !== undefined
    ? l10n.t('Change: {0} ({1} → {2}) (the file on disk is not what the agent saw)', v(f.path), before, lineWord(after))
    : l10n.t('Change: {0} ({1} → {2})', v(f.path), before, lineWord(after));
}

/** "1 line" / "n lines": whole phrases, so a translation can inflect them. */
function lineWord(n: number): string {
  return n === 1 ? l10n.t('1 line') : l10n.t('{0} lines', n);
}

/** The text blocks of a call's content: some agents describe a call only there. */
function textContent(toolCall: ToolCallUpdate): string[] {
  const out: string[] = [];
  for (const c of toolCall.content ?? []) {
    if (c.type === 'content' && c.content.type === 'text' && c.content.text.trim() !== '') out.push(c.content.text.trim());
  }
  return out;
}

/** Lines as an editor numbers them: a final newline ends the last line rather than starting another. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
