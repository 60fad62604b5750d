// The chat panel: a webview view with a strict CSP that loads only our own
// bundle, and a zod-validated message protocol with a `ready` handshake.
// Messages to the panel go through the PanelBridge only.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { PROTOCOL_VERSION, WebviewMessage } from '../../webview/protocol';
import type { PanelBridge } from './panelBridge';
import { startupMark, startupPanelBoot } from '../startup/startupMarks';

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'accord.chat';

  private view: vscode.WebviewView | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly messageEmitter = new vscode.EventEmitter<WebviewMessage>();
  /** Every valid message from the webview, after the handshake. */
  readonly onDidReceiveMessage = this.messageEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly bridge: PanelBridge,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    startupMark('view resolved');
    this.view = view;
    const webview = view.webview;
    this.bridge.attach(webview);
    webview.options = {
      enableScripts: true,
      localResourceRoots: [
        vscode.Uri.joinPath(this.extensionUri, 'dist'),
        vscode.Uri.joinPath(this.extensionUri, 'media'),
      ],
    };
    webview.html = this.html(webview);
    this.disposables.push(
      webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
        this.bridge.detach(webview);
      }),
    );
  }

  /** True while the chat view is showing (approvals then use a modal dialog). */
  get isVisible(): boolean {
    return this.view?.visible ?? false;
  }

  /** True once the webview has completed the `ready` handshake. */
  get isReady(): boolean {
    return this.bridge.isReady;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.messageEmitter.dispose();
  }

  private receive(raw: unknown): void {
    const parsed = WebviewMessage.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(`dropped an invalid message from the chat panel: ${parsed.error.issues[0]?.message ?? 'unknown shape'}`);
      return;
    }
    const message = parsed.data;
    if (message.type === 'ready') {
      if (message.version !== PROTOCOL_VERSION) {
        this.log.warn(`chat panel speaks protocol ${message.version}, extension speaks ${PROTOCOL_VERSION}`);
      }
      if (message.boot) startupPanelBoot(message.boot);
      this.bridge.panelReady((m) => this.log.info(m));
    }
    if (this.bridge.isReady) this.messageEmitter.fire(message);
  }

  private html(webview: vscode.Webview): string {
    const nonce = randomBytes(16).toString('base64');
    const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', file)).toString();
    const csp = [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${csp}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <!-- First and async: the boot script says ready while the style sheet and the bundle still load (webview/boot.ts). -->
  <script async nonce="${nonce}" src="${asset('webview-boot.js')}"></script>
  <link rel="stylesheet" href="${asset('webview.css')}">
  <title>Accord</title>
</head>
<body>
  <script type="module" nonce="${nonce}" src="${asset('webview.js')}"></script>
</body>
</html>`;
  }
}
