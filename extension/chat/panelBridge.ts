// The one writer of chat panel messages. Every part with news for the panel
// (sessions, review, the relay, agent status, session lists) emits it as an
// event; the bridge journals each message, so a panel created again is rebuilt
// from the journal, and writes it to the webview once the panel said `ready`.
import * as vscode from 'vscode';
import { PROTOCOL_VERSION, type AgentStatus, type HostMessage } from '../../webview/protocol';
import { PanelJournal } from './panelJournal';
import { startupConnected, startupMark } from '../startup/startupMarks';

export interface PanelBridgeState {
  /** The panel's current session epoch, announced in `hello`. */
  epoch(): number;
  /** The status of the agent the panel is about. */
  status(): AgentStatus;
}

export class PanelBridge implements vscode.Disposable {
  /** Everything the panel was told since its session started. */
  readonly journal = new PanelJournal();
  private webview: vscode.Webview | undefined;
  private ready = false;
  private readonly postedEmitter = new vscode.EventEmitter<HostMessage>();
  /** Every message the panel is sent, live or not (tests and the traffic view read it). */
  readonly onDidPost = this.postedEmitter.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly state: PanelBridgeState) {}

  /** Relays every message `source` emits to the panel. */
  listen(source: vscode.Event<HostMessage>): void {
    this.subscriptions.push(source((message) => this.write(message)));
  }

  /** Journals what `source` emits without sending it: the live panel already drew it itself. */
  record(source: vscode.Event<HostMessage>): void {
    this.subscriptions.push(source((message) => this.journal.record(message)));
  }

  /** A new webview for the panel; it hears nothing until it says `ready`. */
  attach(webview: vscode.Webview): void {
    this.webview = webview;
    this.ready = false;
  }

  detach(webview: vscode.Webview): void {
    if (this.webview !== webview) return;
    this.webview = undefined;
    this.ready = false;
  }

  get isReady(): boolean {
    return this.ready && this.webview !== undefined;
  }

  /** The panel said `ready`: greet it, rebuild it from the journal, tell it the agent's status. */
  panelReady(log: (message: string) => void): void {
    startupMark('panel ready');
    this.ready = true;
    this.send({ type: 'hello', version: PROTOCOL_VERSION, epoch: this.state.epoch() });
    // The same transcript, header, gauge and pending approvals as before the panel went away.
    for (const m of this.journal.replay()) this.send(m);
    if (this.journal.dropped > 0) log(`the chat panel was rebuilt without the first ${this.journal.dropped} messages of a very long session`);
    this.write({ type: 'agentStatus', status: this.state.status() });
  }

  dispose(): void {
    for (const s of this.subscriptions.splice(0)) s.dispose();
    this.postedEmitter.dispose();
  }

  private write(message: HostMessage): void {
    this.journal.record(message);
    this.postedEmitter.fire(message);
    this.send(message);
  }

  private send(message: HostMessage): void {
    if (!this.webview || !this.ready) return;
    void this.webview.postMessage(message);
    if (message.type === 'agentStatus' && message.status.state === 'connected') startupConnected();
  }
}
