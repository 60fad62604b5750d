// The figures of `npm run bench` in one table. Each bench script records what
// it measured against an issue-17 goal with recordResult (one JSON line
// appended to the file named by ACCORD_BENCH_RESULTS, which bench/run.ts sets;
// run alone, a script records nothing). bench/run.ts then prints every goal,
// measured or not, with the load average at the time it was measured.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename } from 'node:path';

/** The goals of issue 17, in the issue's order; `id` is what scripts record against. */
export const GOALS = [
  { id: 'initialize.daemon', goal: 'spawn → initialize, daemon running: ≤ floor + 20 ms' },
  { id: 'initialize.noDaemon', goal: 'spawn → initialize, no daemon: ≤ 2 × floor' },
  { id: 'sessionNew.daemon', goal: 'session/new, daemon: ≤ 20 ms' },
  { id: 'sessionNew.noDaemon', goal: 'session/new, no daemon: ≤ 20 ms' },
  { id: 'firstChunk.daemon', goal: 'prompt → first chunk net of the model, daemon: ≤ 60 ms' },
  { id: 'firstChunk.noDaemon', goal: 'prompt → first chunk net of the model, no daemon: ≤ 60 ms' },
  { id: 'turn.daemon', goal: '200-chunk turn net of the model, daemon: ≤ 100 ms' },
  { id: 'turn.noDaemon', goal: '200-chunk turn net of the model, no daemon: ≤ 100 ms' },
  { id: 'rss.daemon', goal: 'peak RSS of the process tree in a turn, daemon: ≤ 100 MB' },
  { id: 'rss.noDaemon', goal: 'peak RSS of the process tree in a turn, no daemon: ≤ 100 MB' },
  { id: 'logPerChunk', goal: 'log bytes per streamed text chunk: ≤ 2 × text + 40 B' },
  { id: 'replay', goal: 'replay of 50,000 events: ≥ 500,000 events/s' },
  { id: 'activation', goal: 'view opened → panel "connected": ≤ 1 s' },
  { id: 'webview.busy', goal: '200 chunks/s over 5,000 messages: renderer main thread ≤ 25 % busy' },
  { id: 'webview.frame', goal: '200 chunks/s over 5,000 messages: no frame > 50 ms' },
  { id: 'hugeChunk', goal: 'one 2 MB chunk: longest main-thread stall ≤ 100 ms' },
] as const;

export type GoalId = (typeof GOALS)[number]['id'];

export interface BenchResult {
  /** A goal of GOALS, or a free label for a figure with no issue-17 goal (shown under "other figures"). */
  id: GoalId | string;
  /** What was measured, with its unit, e.g. "612,000 events/s CPU (wall 830,000)". */
  measured: string;
  /** Whether the goal is met; undefined when the figure has no goal. */
  met?: boolean;
  /** Where the figure comes from when one script records several of the same goal (e.g. "log.bench, warm"). */
  note?: string;
  /** The bench script that recorded it. */
  bench: string;
  /** The 1-minute load average when it was measured. */
  load: string;
}

/** Records one figure for the summary table (no-op unless bench/run.ts asked for results). */
export function recordResult(result: Omit<BenchResult, 'bench' | 'load'> & { load?: string }): void {
  const file = process.env.ACCORD_BENCH_RESULTS;
  if (!file) return;
  const line: BenchResult = { ...result, bench: basename(process.argv[1] ?? 'bench'), load: result.load ?? loadavg()[0]!.toFixed(2) };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** The results recorded in `file`; a line that is not a result is skipped (a script killed mid-write). */
export function readResults(file: string): BenchResult[] {
  if (!existsSync(file)) return [];
  const results: BenchResult[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const value = JSON.parse(line) as Partial<BenchResult>;
      if (typeof value.id === 'string' && typeof value.measured === 'string' && typeof value.bench === 'string') results.push(value as BenchResult);
    } catch {
      // not a result line
    }
  }
  return results;
}

/** Table cells hold measured text from the scripts: keep them on one line and out of the markup. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
const verdict = (met: boolean | undefined) => (met === undefined ? '–' : met ? 'yes' : 'NO');

/** One markdown table: every goal (measured or not, and by which script), then the other figures recorded. */
export function summaryTable(results: BenchResult[], failedSteps: string[] = []): string {
  const lines = ['| goal | measured | met? | load | from |', '|---|---|---|---|---|'];
  const row = (goal: string, r: BenchResult) => lines.push(`| ${cell(goal)} | ${cell(r.measured)}${r.note ? ` (${cell(r.note)})` : ''} | ${verdict(r.met)} | ${cell(r.load)} | ${cell(r.bench)} |`);
  const known = new Set<string>(GOALS.map((g) => g.id));
  for (const { id, goal } of GOALS) {
    const measured = results.filter((r) => r.id === id);
    if (measured.length === 0) lines.push(`| ${cell(goal)} | not measured | – | – | – |`);
    for (const r of measured) row(goal, r);
  }
  const others = results.filter((r) => !known.has(r.id));
  if (others.length > 0) {
    lines.push('| **other figures** | | | | |');
    for (const r of others) row(r.id, r);
  }
  const met = results.filter((r) => known.has(r.id) && r.met === true).length;
  const judged = results.filter((r) => known.has(r.id) && r.met !== undefined).length;
  lines.push('');
  lines.push(`${met} of ${judged} measured goal figures met; ${GOALS.filter((g) => !results.some((r) => r.id === g.id)).length} of ${GOALS.length} goals not measured.`);
  if (failedSteps.length > 0) lines.push(`Failed steps: ${failedSteps.join(', ')}.`);
  return lines.join('\n');
}
