// Types for scripts/vscode-harness.mjs, for the TypeScript tests that use it.
import type { Browser, FrameLocator, Locator, Page } from 'playwright-core';

export const root: string;
export const vsixPath: string;
export const resultsDir: string;
export const chromiumPath: string;
export interface VscodePaths { home: string; installed: boolean; serverMain: string; node: string }
export function vscodePaths(): VscodePaths;
export function ensureVscode(): VscodePaths;
export function installVsix(vsix: string, dirs: { extensionsDir: string; userDataDir: string }): void;

export interface StartServerOptions {
  dataDir?: string;
  token?: string;
  port?: number;
  smokeTestDriver?: boolean;
  workspaceTrust?: boolean;
  vsix?: string;
  /** Unpacked extension folders installed beside Accord (copied into the extensions folder). */
  extensionFolders?: string[];
  env?: Record<string, string>;
  onLog?: (text: string) => void;
}
export interface VscodeServer {
  port: number;
  url(folder: string, query?: Record<string, string>): string;
  remote(file: string): string;
  output: string[];
  close(): Promise<void>;
  dirs: { userDataDir: string; extensionsDir: string };
}
export function startServer(options?: StartServerOptions): Promise<VscodeServer>;

export interface Workbench { page: Page; browser: Browser; exitCode: Promise<number>; close(): Promise<void> }
export function openWorkbench(
  server: VscodeServer,
  options: { folder: string; payload?: [string, string][]; onLog?: (type: string, text: string) => void },
): Promise<Workbench>;
export function findNotification(page: Page, text: string, timeoutMs?: number): Promise<Locator>;
export function findMessage(page: Page, text: string, timeoutMs?: number): Promise<Locator>;
export function findDialog(page: Page, text: string, timeoutMs?: number): Promise<Locator>;
export function webviewFrame(page: Page): FrameLocator;
/** Shows the Accord view (clicking its icon only while another view is active) and waits until its webview is visible. */
export function showAccordView(page: Page, timeoutMs?: number): Promise<void>;
export function runCommand(page: Page, title: string, timeoutMs?: number): Promise<void>;
export function performUiAction(page: Page, json: string, onLog: (type: string, text: string) => void): Promise<void>;

export interface SurfaceItem { text: string; /** A notification's or dialog's own message line. */ message: string; links: { tag: string; href: string; text: string }[] }
export interface SurfaceReport {
  notification: SurfaceItem[]; dialog: SurfaceItem[]; tree: SurfaceItem[]; statusbar: SurfaceItem[];
  panel: {
    header: string; failure: string; transcript: string; approvals: string; links: string[];
    children: Array<{ title: string; state: string; inToolCard: boolean; open: boolean; text: string }>;
  };
  /** The Output view's selected channel, when it shows. */
  output: string[];
}
export function collectSurfaces(page: Page): Promise<SurfaceReport>;
