// The set-up every browser test file shares: one webview bundle, one server
// and one Chromium for the file (built before its first test, closed after
// its last), and panels opened on that server.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { buildBundle, fixture, launch, openPanel, serve, type Browser, type Bundle, type Panel, type PanelServer } from './harness';
import type { ThemeName } from './themes';

/** Where the browser tests' screenshots go. */
export const SHOTS = 'test-results/webview';

export interface PanelPages {
  /** The file's Chromium (its `foreign` lists requests that left the page's origin). */
  readonly browser: Browser;
  /** The origin the panel is served from. */
  readonly origin: string;
  /** A fresh panel page. */
  open(theme?: ThemeName, size?: { width: number; height: number }): Promise<Panel>;
  /** A fresh panel with a recorded fixture (test/fixtures/updates) rendered and settled; fails on any page error. */
  withFixture(name: string, theme?: ThemeName): Promise<Panel>;
}

/** Registers the file's `before`/`after`; call it once, at the top of a test file. */
export function panelPages(options: { timeoutMs?: number; shots?: boolean } = {}): PanelPages {
  let bundle: Bundle | undefined;
  let server: PanelServer | undefined;
  let browser: Browser | undefined;
  before(async () => {
    bundle = await buildBundle();
    server = await serve(bundle);
    browser = await launch(server.origin);
    if (options.shots) await mkdir(SHOTS, { recursive: true });
  }, { timeout: options.timeoutMs ?? 120_000 });
  after(async () => {
    await browser?.close();
    await server?.close();
    await bundle?.dispose();
  });
  const started = () => {
    if (!browser || !server) throw new Error('the browser is not running yet (panelPages set-up failed or has not run)');
    return { browser, origin: server.origin };
  };
  const pages: PanelPages = {
    get browser() {
      return started().browser;
    },
    get origin() {
      return started().origin;
    },
    open: (theme = 'dark', size) => openPanel(started().browser, started().origin, theme, size),
    async withFixture(name, theme = 'dark') {
      const panel = await pages.open(theme);
      const errors: string[] = [];
      panel.page.on('pageerror', (e) => errors.push(e.message));
      await panel.send((await fixture(name)).messages);
      await panel.settle();
      assert.deepEqual(errors, [], `page errors while rendering ${name}`);
      return panel;
    },
  };
  return pages;
}
