// Runs the webview bundle alone in Chromium: builds it, serves it over
// 127.0.0.1 behind the same CSP the extension uses, stubs acquireVsCodeApi
// to record what the panel posts, and records every request the page makes
// (anything not from the page's own origin is blocked and reported).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import * as esbuild from 'esbuild';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { themeCss, type ThemeName } from './themes';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Bundle {
  dir: string;
  dispose(): Promise<void>;
}

/** Build the webview exactly as esbuild.mjs does (minified, as shipped; unminified only for readable profiles). */
export async function buildBundle(options: { minify?: boolean; entry?: string } = {}): Promise<Bundle> {
  const dir = await mkdtemp(join(tmpdir(), 'accord-webview-'));
  await esbuild.build({
    entryPoints: { webview: options.entry ?? 'webview/main.ts' },
    outdir: dir,
    bundle: true,
    minify: options.minify ?? true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file' },
    define: { ACCORD_VERSION: '"test"' },
    logLevel: 'error',
  });
  // The boot script the page runs first (webview/boot.ts), as esbuild.mjs builds it.
  await esbuild.build({
    entryPoints: { 'webview-boot': 'webview/boot.ts' },
    outdir: dir,
    bundle: true,
    minify: options.minify ?? true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    logLevel: 'error',
  });
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}

const STUB = `
window.__posted = [];
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
});
window.acquireVsCodeApi = () => ({
  postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
  // As VS Code keeps a webview's state across its reloads: here, across reloads of the page.
  getState: () => JSON.parse(sessionStorage.getItem('accord-webview-state') ?? 'null') ?? undefined,
  setState: (state) => sessionStorage.setItem('accord-webview-state', JSON.stringify(state)),
});
`;

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.ttf': 'font/ttf' };

function page(nonce: string, origin: string, theme: ThemeName): string {
  const csp = ["default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src ${origin}`, `font-src ${origin}`, `img-src ${origin} data:`].join('; ');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="stylesheet" href="/theme-${theme}.css">
<link rel="stylesheet" href="/webview.css">
<title>Accord</title></head>
<body class="vscode-${theme}" data-vscode-theme-kind="vscode-${theme}">
<script nonce="${nonce}" src="/stub.js"></script>
<script async nonce="${nonce}" src="/webview-boot.js"></script>
<script type="module" nonce="${nonce}" src="/webview.js"></script>
</body></html>`;
}

export interface PanelServer {
  origin: string;
  close(): Promise<void>;
}

export async function serve(bundle: Bundle): Promise<PanelServer> {
  let origin = '';
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const theme = url.pathname.match(/^\/theme-(dark|light)\.css$/)?.[1] as ThemeName | undefined;
    if (url.pathname === '/') {
      const nonce = Math.random().toString(36).slice(2);
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(nonce, origin, url.searchParams.get('theme') === 'light' ? 'light' : 'dark'));
    } else if (theme) {
      res.writeHead(200, { 'content-type': 'text/css' }).end(themeCss(theme));
    } else if (url.pathname === '/stub.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(STUB);
    } else if (url.pathname === '/blank') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>blank</title>');
    } else {
      try {
        const body = await readFile(join(bundle.dir, url.pathname.replace(/^\/+/, '').replace(/\.\./g, '')));
        res.writeHead(200, { 'content-type': TYPES[extname(url.pathname)] ?? 'application/octet-stream' }).end(body);
      } catch {
        res.writeHead(404).end();
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export interface Browser {
  context: BrowserContext;
  /** Every URL any page requested, in order. */
  requests: string[];
  /** Requests to anything but the panel's own origin (blocked). */
  foreign: string[];
  close(): Promise<void>;
}

export async function launch(origin: string): Promise<Browser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'accord-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 420, height: 760 },
    deviceScaleFactor: 1,
  });
  const requests: string[] = [];
  const foreign: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requests.push(url);
    if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  return {
    context,
    requests,
    foreign,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

export interface Panel {
  page: Page;
  send(messages: unknown[]): Promise<void>;
  posted(): Promise<Array<{ type: string; [key: string]: unknown }>>;
  /** Wait until rendering settled (two animation frames). */
  settle(): Promise<void>;
}

export async function openPanel(browser: Browser, origin: string, theme: ThemeName = 'dark', size?: { width: number; height: number }): Promise<Panel> {
  const page = await browser.context.newPage();
  if (size) await page.setViewportSize(size);
  await page.goto(`${origin}/?theme=${theme}`);
  await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'));
  // `ready` comes from the boot script, before the bundle has run: wait for the bundle's first frame too.
  await page.waitForFunction(() => performance.getEntriesByName('accord: first render').length > 0);
  const settle = () => page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  return {
    page,
    async send(messages) {
      await page.evaluate((list) => {
        for (const m of list) window.postMessage(m, '*');
      }, messages);
      // postMessage is async: wait for delivery, then for the frame that renders it.
      await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
      await settle();
    },
    posted: () => page.evaluate(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted),
    settle,
  };
}

export async function fixture(name: string): Promise<{ description: string; messages: unknown[] }> {
  return JSON.parse(await readFile(join('test/fixtures/updates', `${name}.json`), 'utf8'));
}

/**
 * The texts of a locator once they equal `expected`, or its last texts after
 * the timeout (so the assertion that follows shows the difference). Rendering
 * follows keystrokes by a frame or more, which a loaded machine stretches.
 */
export async function textsWhenSettled(locator: Locator, expected: string[], timeoutMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const texts = await locator.allInnerTexts();
    if (JSON.stringify(texts) === JSON.stringify(expected) || Date.now() > deadline) return texts;
    await new Promise((r) => setTimeout(r, 50));
  }
}
