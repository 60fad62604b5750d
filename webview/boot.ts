// The panel's first module: it says `ready` before the rest of the bundle
// (zod, markdown-it, highlight.js, lit) has even been evaluated, so the
// extension's greeting, journal and agent status travel while that work runs
// instead of after it (issue 17: opening the view to "connected"). Messages
// that arrive before the panel's handler exists are kept, in order, and
// handed to it first. It also reports when the bundle was requested, loaded
// and began to run, for the startup marks (extension/startup).
import { PROTOCOL_VERSION } from './protocolVersion';

/** ms since the webview's document began to load, when this bundle began to run. */
const ran = performance.now();

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** The one VS Code API object (acquireVsCodeApi may be called once per page). */
export const vscodeApi = acquireVsCodeApi();

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

const early: MessageEvent[] = [];
let handler: ((event: MessageEvent) => void) | undefined;
window.addEventListener('message', (event: MessageEvent) => {
  if (handler) handler(event);
  else early.push(event);
});

/** Where every message from the extension goes, those that came before this call first and in order. */
export function onHostMessage(handle: (event: MessageEvent) => void): void {
  handler = handle;
  for (const event of early.splice(0)) handle(event);
}

// The listener above is in place, so nothing the extension sends from now on is lost.
vscodeApi.postMessage({ type: 'ready', version: PROTOCOL_VERSION, boot: bootTimings() });
