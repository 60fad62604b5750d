// Where the time from loading the extension to the panel saying "connected"
// goes (issue 17): a few marks, taken once per extension host, logged in one
// line to the Accord output channel when the panel first hears "connected".
// Times are performance.now(), i.e. ms since the extension host started.
const marks = new Map<string, number>([['bundle evaluated', performance.now()]]);
let sink: ((line: string) => void) | undefined;
let reported = false;

/** Records `name` the first time it happens. */
export function startupMark(name: string): void {
  if (reported || marks.has(name)) return;
  marks.set(name, performance.now());
}

/**
 * The panel's boot script's times (ms since its document began to load, webview/boot.ts), placed on
 * this clock by its `ready` arriving now: each lands late by the one message's trip from the panel.
 */
export function startupPanelBoot(boot: { requested: number; loaded: number; ran: number; ready: number }): void {
  if (reported || marks.has('panel document began')) return; // the first panel only, like every mark
  const now = performance.now();
  const at = (ms: number) => now - (boot.ready - ms);
  marks.set('panel document began', at(0));
  if (boot.requested >= 0) marks.set('panel boot script requested', at(boot.requested));
  if (boot.loaded >= 0) marks.set('panel boot script loaded', at(boot.loaded));
  if (boot.ran >= 0) marks.set('panel boot script ran', at(boot.ran));
}

/** Where the report goes (the Accord output channel). */
export function setStartupLog(write: (line: string) => void): void {
  sink = write;
}

/** The panel showed "connected": log every mark once, in order. */
export function startupConnected(): void {
  if (reported) return;
  startupMark('panel told connected');
  reported = true;
  const from = marks.get('view resolved') ?? marks.get('activate start') ?? 0;
  const parts = [...marks.entries()].sort((a, b) => a[1] - b[1]).map(([name, at]) => `${name} ${Math.round(at)} (${at >= from ? '+' : ''}${Math.round(at - from)})`);
  // The clock's origin lets a bench place these marks against its own wall clock (e.g. the click that opened the view).
  sink?.(`startup, ms since the extension host started (and since the view opened): ${parts.join(', ')}; clock origin ${performance.timeOrigin.toFixed(1)} ms since the epoch`);
}

/** For tests: the marks so far. */
export function startupMarks(): ReadonlyMap<string, number> {
  return marks;
}
