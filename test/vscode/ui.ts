// Lets a test running inside the extension host ask the harness (Playwright,
// outside VS Code) to act on the workbench UI. The test logs one line; the
// harness performs it. Format and fields: test/vscode/README.md.
export interface UiAction {
  /** Text of a notification OR a modal dialog, whichever shows (use this for approvals). */
  message?: string;
  /** Text of a notification (toast or Notifications center) to act on. */
  notification?: string;
  /** Text of a modal dialog to act on. */
  dialog?: string;
  /** Button label to click in that notification or dialog, e.g. "Allow once". */
  click?: string;
  /** CSS selector of an element to click inside the Accord chat webview. */
  webviewClick?: string;
  /** Chooses the option with this value in the <select> matching the CSS selector inside the Accord chat webview. */
  webviewSelect?: { selector: string; value: string };
  /** A key to press, e.g. "Escape" or "Control+Enter". */
  press?: string;
  /** Text to type with the keyboard. */
  type?: string;
  /** Name of a screenshot to save as test-results/<name>.png. */
  screenshot?: string;
  /** Name of a report of VS Code's surfaces as rendered (notifications, dialogs, tree rows, status bar: text and links), saved as test-results/<name>.json. */
  inspect?: string;
}

export function ui(action: UiAction): void {
  // Desktop VS Code (npm run test:desktop) has no harness reading these lines: fail at once, saying so, instead of timing out.
  if (process.env.ACCORD_DESKTOP === '1') throw new Error('this test clicks the workbench through the web harness (npm run test:vscode); desktop VS Code has none');
  console.log(`@@ui ${JSON.stringify(action)}`);
}

/** Polls `probe` until it returns something truthy; fails naming `what` after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => T | undefined | false, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
