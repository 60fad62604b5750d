// The panel's boot script (dist/webview-boot.js): a few hundred bytes, loaded
// ahead of the panel's bundle (dist/webview.js, zod, markdown-it,
// highlight.js, lit). It says `ready` while the bundle is still on its way
// through VS Code's resource loading, so the extension's greeting, journal
// and agent status travel meanwhile and are waiting when the bundle runs
// (issue 17: opening the view to "connected"). Messages that arrive before
// the bundle's handler exists are kept, in order, and handed to it first
// (webview/bootLink.ts). It also reports when it was requested, loaded and
// ran, for the startup marks (extension/startup).
import { PROTOCOL_VERSION } from './protocolVersion';
import type { AccordBoot, VsCodeApi } from './bootLink';

/** bootLink.ts's BOOT_EVENT (a type-only import above keeps the bundle out of this script). */
const BOOT_EVENT = 'accord-boot';

/** ms since the webview's document began to load, when this script began to run. */
const ran = performance.now();

declare function acquireVsCodeApi(): VsCodeApi;

/** The one VS Code API object (acquireVsCodeApi may be called once per page). */
const vscodeApi = acquireVsCodeApi();

/** When this script was requested, had loaded, began to run, and now (the panel is ready); -1 where unknown. */
function bootTimings(): { requested: number; loaded: number; ran: number; ready: number } {
  const script = performance
    .getEntriesByType('resource')
    .find((entry) => /\/webview-boot\.js(\?|$)/.test(entry.name)) as PerformanceResourceTiming | undefined;
  const ms = (value: number | undefined) => (value === undefined || !Number.isFinite(value) || value <= 0 ? -1 : Math.min(60_000, Math.round(value)));
  return { requested: ms(script?.startTime), loaded: ms(script?.responseEnd), ran: ms(ran), ready: ms(performance.now()) };
}

const early: MessageEvent[] = [];
let handler: ((event: MessageEvent) => void) | undefined;
// For the activation bench: VS Code hands the page the extension's messages only once the page has loaded.
window.addEventListener('load', () => performance.mark('accord: page loaded'), { once: true });
window.addEventListener('message', (event: MessageEvent) => {
  if (performance.getEntriesByName('accord: first message').length === 0) performance.mark('accord: first message');
  if (handler) handler(event);
  else early.push(event);
});

const boot: AccordBoot = {
  vscodeApi,
  onHostMessage(handle) {
    if (handler) throw new Error('the panel has a message handler already');
    handler = handle;
    for (const event of early.splice(0)) handle(event);
  },
};
// Non-writable: nothing later on the page swaps the panel's channel to the extension.
Object.defineProperty(window, 'accordBoot', { value: Object.freeze(boot), writable: false, configurable: false });
window.dispatchEvent(new Event(BOOT_EVENT));

// The listener above is in place, so nothing the extension sends from now on is lost.
vscodeApi.postMessage({ type: 'ready', version: PROTOCOL_VERSION, boot: bootTimings() });
