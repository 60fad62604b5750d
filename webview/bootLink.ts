// The panel bundle's side of the boot script (webview/boot.ts, loaded and run
// before this bundle): the VS Code API object it acquired and the messages it
// kept. One object on window, set once by the boot script.

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

export interface AccordBoot {
  readonly vscodeApi: VsCodeApi;
  /** Where every message from the extension goes, those that came before this call first and in order. */
  onHostMessage(handle: (event: MessageEvent) => void): void;
}

/** Said on window by the boot script once `window.accordBoot` is set. */
export const BOOT_EVENT = 'accord-boot';

function bootSoFar(): AccordBoot | undefined {
  return (window as unknown as { accordBoot?: AccordBoot }).accordBoot;
}

// The page loads webview-boot.js async (it must not wait for the style sheet, as a deferred script would),
// so it usually ran long before this bundle arrived; when it did not, this bundle waits for it.
const boot = bootSoFar() ?? (await new Promise<AccordBoot>((resolve) => window.addEventListener(BOOT_EVENT, () => resolve(bootSoFar()!), { once: true })));
export const vscodeApi = boot.vscodeApi;
export const onHostMessage = (handle: (event: MessageEvent) => void): void => boot.onHostMessage(handle);
