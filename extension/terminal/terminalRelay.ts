// Streams the panel session's client-owned terminals (ACP terminal/create) to
// the panel, where the tool card naming one draws it as a terminal. Output is
// sent at most every 100 ms per terminal; an exit is sent at once, so the last
// state reaches the panel even when the agent releases the terminal right away.
// It emits panel messages; the panel bridge writes them.
import * as vscode from 'vscode';
import type { HostMessage } from '../../webview/protocol';
import type { TerminalService } from './terminalService';

const INTERVAL_MS = 100;

export class TerminalRelay implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<HostMessage>();
  /** `terminalOutput` messages for the panel. */
  readonly onPanelMessage = this.emitter.event;
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly terminals: TerminalService,
    private readonly panelSession: () => { sessionId: string; epoch: number } | undefined,
  ) {
    this.subscription = terminals.onDidChange(({ terminalId, sessionId }) => {
      // Only the output read when a timer fires is decoded: a chatty command costs one snapshot per interval.
      if (terminals.hasExited(terminalId)) {
        clearTimeout(this.timers.get(terminalId));
        this.timers.delete(terminalId);
        this.send(terminalId, sessionId);
        return;
      }
      if (this.timers.has(terminalId)) return;
      this.timers.set(terminalId, setTimeout(() => {
        this.timers.delete(terminalId);
        this.send(terminalId, sessionId);
      }, INTERVAL_MS));
    });
  }

  private send(terminalId: string, sessionId: string): void {
    const session = this.panelSession();
    const snapshot = this.terminals.snapshot(terminalId);
    if (!session || session.sessionId !== sessionId || !snapshot) return;
    this.emitter.fire({ type: 'terminalOutput', epoch: session.epoch, terminalId, ...snapshot });
  }

  dispose(): void {
    this.subscription.dispose();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.emitter.dispose();
  }
}
