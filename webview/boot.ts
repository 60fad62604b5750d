// First import of the panel's entry: the time its bundle began to run, for
// the boot timings the panel sends with \`ready\` (issue 17: where the time
// from opening the view to "connected" goes; extension/startup logs them).
// Times are ms since the webview's document began to load.
const ran = performance.now();

export interface BootTimings {
  requested: number;
  loaded: number;
  ran: number;
  ready: number;
}

/** When the bundle was requested, had loaded, began to run, and now (the panel is ready); -1 where unknown. */
export function bootTimings(): BootTimings {
  const script = performance
    .getEntriesByType('resource')
    .find((entry) => /\/webview\.js(\?|$)/.test(entry.name)) as PerformanceResourceTiming | undefined;
  const ms = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? -1 : Math.min(60_000, Math.round(value)));
  return { requested: ms(script?.startTime), loaded: ms(script?.responseEnd), ran: ms(ran), ready: ms(performance.now()) };
}
